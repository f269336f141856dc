// `gym env serve --nemo-gym <server>` as a user runs it: a NeMo Gym resources server from the NeMo Gym venv, its URL
// printed once it answers, its tools callable there, and the server stopped with the command.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { interopTitle, nemoGymVenv } from './nemo-gym-venv';

const ROOT = path.resolve(import.meta.dirname, '../..');
const running: ChildProcessWithoutNullStreams[] = [];

function gym(...args: string[]) {
  const child = spawn(process.execPath, ['bin/gym.mjs', ...args], { cwd: ROOT, env: { ...process.env, GYMFLOW_LOG_LEVEL: 'warn' } });
  running.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += String(d)));
  child.stderr.on('data', (d) => (stderr += String(d)));
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
  const served = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const match = /served at (http:\/\/\S+)/.exec(stdout);
      if (match) resolve(match[1]!);
    });
    void exited.then(({ code }) => reject(new Error(`gym env serve exited with ${code} before printing a URL:\n${stdout}${stderr}`)));
  });
  served.catch(() => undefined);
  return { child, exited, served, output: () => stdout };
}

async function post(url: string, route: string, body: unknown, cookie?: string) {
  const res = await request(new URL(route, url), { method: 'POST', headers: { 'content-type': 'application/json', ...(cookie && { cookie }) }, body: JSON.stringify(body) });
  const setCookie = res.headers['set-cookie'];
  return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown>, cookie: [setCookie ?? []].flat()[0]?.split(';')[0] };
}

afterEach(() => {
  for (const child of running.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

describe.skipIf(!nemoGymVenv)(interopTitle('gym env serve --nemo-gym'), () => {
  it("serves NeMo Gym's example_single_tool_call until SIGTERM, then stops it", async () => {
    const { child, exited, served, output } = gym('env', 'serve', '--nemo-gym', 'example_single_tool_call');
    const url = await served;
    expect(output()).toContain(`--env remote --remote-url ${url} --remote-tools get_weather`);
    const seed = await post(url, '/seed_session', {});
    expect(seed.status).toBe(200);
    const weather = await post(url, '/get_weather', { city: 'Paris' }, seed.cookie);
    expect(weather.status).toBe(200);
    expect(weather.body.city).toBe('Paris');
    child.kill('SIGTERM');
    expect((await exited).code).toBe(0);
    // The NeMo Gym server went with it.
    await expect(request(url, { method: 'GET' })).rejects.toThrow();
  });

  it('names the known servers when the server is unknown', async () => {
    const { exited } = gym('env', 'serve', '--nemo-gym', 'no_such_server');
    const { code, stderr } = await exited;
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/no NeMo Gym resources server named 'no_such_server' in .*; known: .*mcqa/);
  });
});

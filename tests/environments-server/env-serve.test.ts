// `gym env serve` as a user runs it: a real subprocess that prints its URL, answers NeMo Gym's
// routes, and exits cleanly on SIGTERM.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { call, multiStepEpisodes, post } from './helpers';

const ROOT = path.resolve(import.meta.dirname, '../..');
const running: ChildProcessWithoutNullStreams[] = [];

function gym(...args: string[]): ChildProcessWithoutNullStreams {
  const child = spawn(process.execPath, ['bin/gym.mjs', ...args], { cwd: ROOT, env: { ...process.env, GYMFLOW_LOG_LEVEL: 'warn' } });
  running.push(child);
  return child;
}

function exited(child: ChildProcessWithoutNullStreams): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += String(d)));
  child.stderr.on('data', (d) => (stderr += String(d)));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

/** The URL the command prints once it listens. */
function servedUrl(child: ChildProcessWithoutNullStreams): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += String(d);
      const match = /served at (http:\/\/\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.stderr.on('data', (d) => (err += String(d)));
    child.once('exit', (code) => reject(new Error(`gym env serve exited with ${code} before printing a URL:\n${out}${err}`)));
  });
}

afterEach(() => {
  for (const child of running.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

describe('gym env serve', () => {
  it('serves an environment on a free port until SIGTERM', async () => {
    const child = gym('env', 'serve', '--env', 'example_multi_step', '--port', '0');
    const url = await servedUrl(child);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const done = exited(child);
    expect(await call(url, 'GET', '/')).toMatchObject({ status: 200, body: { status: 'ok' } });
    const { task } = multiStepEpisodes()[0]!;
    const seed = await post(url, '/seed_session', task);
    expect(seed).toMatchObject({ status: 200, body: {} });
    expect(await post(url, '/get_synonym_value', { synonym: 'Warm' }, seed.cookie)).toMatchObject({ status: 200, body: { synonym_value: 407 } });
    child.kill('SIGTERM');
    expect((await done).code).toBe(0);
  });

  it('names the known environments when --env is unknown', async () => {
    const { code, stderr } = await exited(gym('env', 'serve', '--env', 'no_such_env'));
    expect(code).toBe(4);
    expect(stderr).toMatch(/unknown environment "no_such_env"; known: .*example_multi_step/);
  });

  it('requires --env', async () => {
    const { code, stderr } = await exited(gym('env', 'serve'));
    expect(code).toBe(2);
    expect(stderr).toMatch(/--env is required/);
  });
});

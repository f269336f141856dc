// `gym gateway serve` as a user runs it (a real subprocess): models from a config file, a generated token
// written to a 0600 file and never printed, a rollout registered over HTTP and called through its scoped
// URL with the official openai client, streaming, and a clean exit on SIGTERM.
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { GYM } from '../helpers/gym-cli';

describe('gym gateway serve', () => {
  it('serves the configured models on a rollout-scoped URL until SIGTERM', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'gymflow-gateway-serve-'));
    const config = path.join(dir, 'gateway.yaml');
    await writeFile(config, 'host: 127.0.0.1\nport: 0\ntoken_env: GYMFLOW_TEST_GATEWAY_TOKEN_UNSET\nmodels:\n  - backend: mock\n    env: mcqa\n');
    const tokenFile = path.join(dir, 'token');
    const child = spawn(process.execPath, [GYM, 'gateway', 'serve', '--config', config, '--token-file', tokenFile], {
      env: { ...process.env, GYMFLOW_LOG_LEVEL: 'warn', GYMFLOW_TEST_GATEWAY_TOKEN_UNSET: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const ready = new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d) => {
        stdout += d;
        if (/model mock-mcqa-\S+/.test(stdout)) resolve();
      });
      void exited.then((code) => reject(new Error(`gym gateway serve exited ${code}: ${stderr}`)));
    });
    try {
      await ready;
      const url = /gateway at (\S+)/.exec(stdout)![1]!;
      const model = /model (mock-mcqa-\S+)/.exec(stdout)![1]!;
      const token = (await readFile(tokenFile, 'utf8')).trim();
      expect((await stat(tokenFile)).mode & 0o777).toBe(0o600);
      expect(stdout + stderr).not.toContain(token);

      const register = await fetch(`${url.replace(/\/v1$/, '')}/gymflow/rollouts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ rollout_id: '0-0', attempt: 1, run_dir: dir, model }),
      });
      expect(register.status).toBe(200);
      const { base_url } = (await register.json()) as { base_url: string };
      const client = new OpenAI({ baseURL: base_url, apiKey: token, maxRetries: 0 });
      const stream = await client.chat.completions.create({ model: 'any-name', messages: [{ role: 'user', content: 'Hello there, gateway.' }], stream: true });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      expect(text.length).toBeGreaterThan(0);
      const [segment] = await readdir(path.join(dir, 'model_calls'));
      const record = JSON.parse((await readFile(path.join(dir, 'model_calls', segment!), 'utf8')).trim());
      expect(record).toMatchObject({ rollout_id: '0-0', attempt: 1, route: '/v1/chat/completions', stream: true, model, status: 200 });
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});

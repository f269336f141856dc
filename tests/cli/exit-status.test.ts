// The exit status of `gym eval run|resume|status` for a finished run, through the real command: a run
// whose every rollout failed (a model endpoint that refuses connections) is INCOMPLETE unless
// --min-coverage allows it, with one line saying why; a fully covered run exits 0. Each run is the real
// `gym` subprocess; the follow-up calls on a finished run and the flag refusals run in this process.
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors';
import { gym } from '../helpers/gym-cli';
import { gymHere } from '../helpers/gym-here';
import { tempDir } from '../helpers/run';
import { reservePort } from '../helpers/ports';
import { startTestServer, type TestServer } from '../helpers/temporal-server';

const EXAMPLE = path.resolve(import.meta.dirname, '../fixtures/nemo-gym/example_multi_step/example.jsonl');
const lines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);

describe('exit status by coverage', () => {
  let server: TestServer;
  let env: Record<string, string>;
  beforeAll(async () => {
    server = await startTestServer();
    env = { TEMPORAL_ADDRESS: server.address, GYMFLOW_HOME: server.dir, GYMFLOW_TEST_DUMMY_KEY: 'sk-not-a-real-key' };
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('a run whose every rollout failed exits INCOMPLETE, still writes its files, and status reports it with 0', async () => {
    const closedPort = await reservePort(); // nothing listens there: every model call is refused
    const out = path.join(await tempDir(), 'dead-endpoint');
    const args = [
      'eval',
      'run',
      '--env',
      'example_multi_step',
      '--input',
      EXAMPLE,
      '--output',
      out,
      '--limit',
      '3',
      '--model',
      'openai',
      '--model-name',
      'gpt-test',
      '--model-url',
      `http://127.0.0.1:${closedPort}/v1`,
      '--api-key-env',
      'GYMFLOW_TEST_DUMMY_KEY',
      '--max-attempts',
      '1',
    ];
    const r = await gym(args, env, { timeoutMs: 300_000 });
    expect(r.code, r.stderr).toBe(ERROR_CODES.INCOMPLETE);
    expect(r.stdout).toMatch(/rollouts: 0\/3 recorded, 3 failed \(coverage 0\.0%\)/);
    expect(r.stderr).toMatch(/^gym: coverage 0\.0% is below --min-coverage 100%: 3 rollouts failed \(see failures\.jsonl\)$/m);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(lines(path.join(out, 'failures.jsonl'))).toHaveLength(3);
    expect(JSON.parse(readFileSync(path.join(out, 'metrics.json'), 'utf8')).coverage).toBe(0);

    const status = await gymHere(['eval', 'status', out], env);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/completed/);
    expect(status.stdout).toMatch(/coverage 0\.0% is below --min-coverage 100%: 3 rollouts failed/);

    // A finished run is shown again, not rerun: resume and run give the same verdict, which the threshold sets.
    const resumed = await gymHere(['eval', 'resume', out], env);
    expect(resumed.code).toBe(ERROR_CODES.INCOMPLETE);
    expect(resumed.stdout).toMatch(/already complete/);
    const allowed = await gymHere([...args, '--min-coverage', '0'], env);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stdout).toMatch(/already complete/);
    const bad = await gymHere([...args, '--min-coverage', '60%'], env);
    expect(bad.code).toBe(ERROR_CODES.BAD_FLAG);
    expect(bad.stderr).toMatch(/--min-coverage must be a number between 0 and 1, got 60%/);
  });

  it('a model endpoint that takes the call and never answers fails as "timeout" at the bound the flags set', async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => void sockets.push(socket)); // reads the request, never answers
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as net.AddressInfo).port;
      const out = path.join(await tempDir(), 'silent-endpoint');
      const args = [
        'eval',
        'run',
        '--env',
        'example_multi_step',
        '--input',
        EXAMPLE,
        '--output',
        out,
        '--limit',
        '2',
        '--model',
        'openai',
        '--model-name',
        'gpt-test',
        '--model-url',
        `http://127.0.0.1:${port}/v1`,
        '--api-key-env',
        'GYMFLOW_TEST_DUMMY_KEY',
        '--max-attempts',
        '1',
        '--model-first-byte-timeout-ms',
        '400',
      ];
      const r = await gym(args, env, { timeoutMs: 300_000 });
      expect(r.code, r.stderr).toBe(ERROR_CODES.INCOMPLETE);
      const failures = lines(path.join(out, 'failures.jsonl')).map((l) => JSON.parse(l));
      expect(failures).toHaveLength(2);
      for (const f of failures) {
        expect(f._ng_failure_class).toBe('timeout');
        expect(f.message).toMatch(/first_byte_ms = 400 ms/);
      }
      expect(sockets.length).toBeGreaterThanOrEqual(2);

      const tooShort = await gymHere([...args, '--output', `${out}-2`, '--model-total-timeout-ms', '300'], env);
      expect(tooShort.code).toBe(ERROR_CODES.BAD_FLAG);
      expect(tooShort.stderr).toMatch(/--model-total-timeout-ms \(300 ms\) must be at least --model-connect-timeout-ms \(10000\) and --model-first-byte-timeout-ms \(400\)/);
      const notANumber = await gymHere([...args, '--output', `${out}-3`, '--model-idle-timeout-ms', '5s'], env);
      expect(notANumber.code).toBe(ERROR_CODES.BAD_FLAG);
      expect(notANumber.stderr).toMatch(/--model-idle-timeout-ms must be an integer ≥ 1 and ≤ 1500000, got 5s/);
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });

  it('a fully covered run exits 0', async () => {
    const out = path.join(await tempDir(), 'all-good');
    const r = await gym(['eval', 'run', '--env', 'example_multi_step', '--model', 'mock', '--input', EXAMPLE, '--output', out, '--limit', '2', '--num-repeats', '2'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/rollouts: 4\/4 recorded, 0 failed \(coverage 100\.0%\)/);
    expect(r.stdout + r.stderr).not.toMatch(/below --min-coverage/);
  });
});

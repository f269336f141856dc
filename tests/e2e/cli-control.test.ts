// A detached run steered from the command line, each call a subprocess: pause, a concurrency change,
// unpause to completion, and a cancel with --abandon that leaves the run resumable. Waiting polls the
// status in this process (a subprocess per poll costs seconds on a loaded machine); the steering is real subprocesses.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gym } from '../helpers/gym-cli';
import { gymHere } from '../helpers/gym-here';
import { useGymServer } from '../helpers/gym-server';
import { spawnWorker, waitFor } from '../helpers/worker-process';
import { tempDir } from '../helpers/run';

const EXAMPLE = path.resolve(import.meta.dirname, '../fixtures/nemo-gym/example_multi_step/example.jsonl');

describe('gym eval against a running server', () => {
  const env = useGymServer();

  it('pauses, unpauses, re-sizes and cancels a detached run', async () => {
    const out = path.join(await tempDir(), 'cli-control');
    const args = ['eval', 'run', '--env', 'example_multi_step', '--model', 'mock', '--input', EXAMPLE, '--output', out, '--num-repeats', '2', '--detach'];
    expect((await gym(args, env)).code).toBe(0);
    expect((await gym(['eval', 'pause', out], env)).stdout).toMatch(/pause: sent/);
    const worker = spawnWorker(env, { runDir: out });
    const workers = [worker];
    try {
      const status = async () => JSON.parse((await gymHere(['eval', 'status', out, '--json'], env)).stdout);
      await waitFor(async () => (await status()).progress?.paused === true, 'the paused run to answer its progress query', 60_000);
      expect((await status()).progress.done).toBe(0);
      expect((await gym(['eval', 'concurrency', out, '5'], env)).code).toBe(0);
      expect((await gym(['eval', 'unpause', out], env)).code).toBe(0);
      await waitFor(async () => (await status()).status === 'COMPLETED', 'the run to complete', 120_000);
      expect(readFileSync(path.join(out, 'rollouts.jsonl'), 'utf8').split('\n').filter(Boolean)).toHaveLength(10);

      const second = path.join(await tempDir(), 'cli-cancel');
      await gym(['eval', 'run', '--env', 'example_multi_step', '--model', 'mock', '--input', EXAMPLE, '--output', second, '--detach', '--num-repeats', '4', '--mock-latency-ms', '5000'], env);
      // Each run has its own task queue: the cancellation is carried out by a worker for this run.
      workers.push(spawnWorker(env, { runDir: second }));
      expect((await gym(['eval', 'cancel', second, '--abandon'], env)).code).toBe(0);
      await waitFor(async () => /cancelled/.test((await gymHere(['eval', 'status', second], env)).stdout), 'the cancelled status', 60_000);
      expect((await gym(['eval', 'status', second], env)).stdout).toMatch(/gym eval resume/);
      const notRunning = await gym(['eval', 'pause', second], env);
      expect(notRunning.code).toBe(6);
      expect(notRunning.stderr).toMatch(/not running/);
    } finally {
      await Promise.all(workers.map((w) => w.kill()));
    }
  }, 480_000); // a dozen `gym` subprocesses: each start takes seconds on a loaded machine
});

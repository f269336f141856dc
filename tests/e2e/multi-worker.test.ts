// Several worker processes on one run, on a real Temporal dev server: one is SIGKILLed again and again
// while the other keeps working, or SIGSTOPped until the other finishes and then woken. Either way the
// raw results files hold every task × repeat exactly once, with no torn line.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../workflows/definitions';
import { runConfig, startRunWorkflow, tempDir } from '../helpers/run';
import { startTestServer, type TestServer } from '../helpers/temporal-server';
import { spawnWorker, waitFor, type WorkerProcess } from '../helpers/worker-process';

const INPUT = path.resolve(import.meta.dirname, '../fixtures/nemo-gym/example_multi_step/example.jsonl');
const TASKS = 5;
const REPEATS = 12;

const lines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : '');

function assertExactlyOnce(runDir: string) {
  const rollouts = lines(path.join(runDir, 'rollouts.jsonl'));
  const failures = lines(path.join(runDir, 'failures.jsonl'));
  for (const text of [rollouts, failures]) if (text) expect(text.endsWith('\n')).toBe(true);
  const ids = [...rollouts.split('\n'), ...failures.split('\n')].filter(Boolean).map((l) => JSON.parse(l)._ng_rollout_id as string);
  const expected: string[] = [];
  for (let t = 0; t < TASKS; t++) for (let r = 0; r < REPEATS; r++) expected.push(`${t}-${r}`);
  expect([...ids].sort()).toEqual(expected.sort());
}

let server: TestServer;
const workers: WorkerProcess[] = [];
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  for (const w of workers) if (w.child.signalCode === 'SIGSTOP' || w.child.exitCode === null) w.child.kill('SIGCONT');
  await Promise.all(workers.map((w) => w.kill()));
  await server?.stop();
});

function config(runDir: string) {
  return runConfig({ runDir, envName: 'example_multi_step', inputFile: INPUT, numRepeats: REPEATS, concurrency: 16, shards: 4, stepsPerExecution: 40, maximumAttempts: 20, model: { accuracy: 0.7, latency_ms: 30 } });
}

function worker(runDir: string): WorkerProcess {
  const w = spawnWorker({ TEMPORAL_ADDRESS: server.address, GYMFLOW_HOME: server.dir }, { runDir });
  workers.push(w);
  return w;
}

describe('two workers on one run', () => {
  it('record every rollout exactly once while one of them is SIGKILLed three times', async () => {
    const runDir = await tempDir('gymflow-two-workers-');
    const handle = await startRunWorkflow(server, config(runDir));
    const steady = worker(runDir);
    let victim = worker(runDir);
    const recorded = () => lines(path.join(runDir, 'rollouts.jsonl')).split('\n').filter(Boolean).length;
    for (const threshold of [10, 25, 40]) {
      await waitFor(() => (steady.assertAlive(), recorded() >= threshold), `${threshold} records`, 300_000);
      await victim.kill('SIGKILL');
      victim = worker(runDir);
    }
    const result = (await handle.result()) as RunResult;
    assertExactlyOnce(runDir);
    expect(result.metrics.coverage).toBe(1);
  }, 900_000);

  it('write no duplicate when a stopped worker wakes up after the other finished the run', async () => {
    const runDir = await tempDir('gymflow-stopped-worker-');
    const handle = await startRunWorkflow(server, config(runDir));
    const sleeper = worker(runDir);
    const recorded = () => lines(path.join(runDir, 'rollouts.jsonl')).split('\n').filter(Boolean).length;
    await waitFor(() => (sleeper.assertAlive(), recorded() >= 10), '10 records', 300_000);
    sleeper.child.kill('SIGSTOP');
    worker(runDir);
    const result = (await handle.result()) as RunResult;
    expect(result.metrics.rollouts_recorded).toBe(TASKS * REPEATS);
    sleeper.child.kill('SIGCONT');
    // Give the woken worker time to finish whatever it was doing when it stopped.
    await new Promise((r) => setTimeout(r, 15_000));
    assertExactlyOnce(runDir);
  }, 900_000);
});

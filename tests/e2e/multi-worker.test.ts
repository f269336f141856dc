// Several worker processes on one run, on a real Temporal dev server: one is SIGSTOPped until the other
// finishes and then woken, and must write no duplicate. (Workers SIGKILLed again and again are in the
// fault matrix, tests/faults/worker-kills.test.ts.)
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../workflows/definitions';
import { runConfig, startRunWorkflow, tempDir } from '../helpers/run';
import { expectFaultInvariants } from '../helpers/fault-invariants';
import { startTestServer, type TestServer } from '../helpers/temporal-server';
import { spawnWorker, waitFor, type WorkerProcess } from '../helpers/worker-process';

const INPUT = path.resolve(import.meta.dirname, '../fixtures/nemo-gym/example_multi_step/example.jsonl');
const TASKS = 5;
const REPEATS = 12;

const lines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : '');

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
  return runConfig({
    runDir,
    envName: 'example_multi_step',
    inputFile: INPUT,
    numRepeats: REPEATS,
    concurrency: 16,
    shards: 4,
    stepsPerExecution: 40,
    maximumAttempts: 20,
    model: { accuracy: 0.7, latency_ms: 30 },
  });
}

function worker(runDir: string): WorkerProcess {
  const w = spawnWorker({ TEMPORAL_ADDRESS: server.address, GYMFLOW_HOME: server.dir }, { runDir });
  workers.push(w);
  return w;
}

describe('two workers on one run', () => {
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
    await expectFaultInvariants(runDir, { tasks: TASKS, repeats: REPEATS, env: 'example_multi_step' });
  }, 900_000);
});

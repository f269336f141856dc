// Durability under crashes, on a real Temporal dev server: a 200-rollout run survives its worker
// being SIGKILLed twice, and the Temporal server being killed and restarted on the same SQLite file.
// Either way, every task × repeat ends with exactly one record and no torn line (the fault matrix's
// checker, docs/faults.md).
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFaultInvariants } from '../helpers/fault-invariants';
import { startTestServer, type TestServer } from '../helpers/temporal-server';
import { runConfig, startRunWorkflow, tempDir } from '../helpers/run';
import { spawnWorker, waitFor, type WorkerProcess } from '../helpers/worker-process';
import type { RunResult } from '../../workflows/definitions';

// Single-turn mcqa keeps each rollout to four activities, so 200 rollouts fit a CI budget on two cores.
const INPUT = path.resolve(import.meta.dirname, '../fixtures/nemo-gym/mcqa/example.jsonl');
const TASKS = 5;
const REPEATS = 40;

function recordedLines(runDir: string): string[] {
  const file = path.join(runDir, 'rollouts.jsonl');
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

async function assertExactlyOnce(runDir: string, result: RunResult) {
  await expectFaultInvariants(runDir, { tasks: TASKS, repeats: REPEATS, env: 'mcqa' });
  expect(result.metrics.rollouts_recorded).toBe(TASKS * REPEATS);
  expect(result.metrics.coverage).toBe(1);
}

let server: TestServer;
const workers: WorkerProcess[] = [];
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.kill()));
  await server?.stop();
});

function startWorker(runDir: string): WorkerProcess {
  const w = spawnWorker({ TEMPORAL_ADDRESS: server.address, GYMFLOW_HOME: server.dir }, { runDir });
  workers.push(w);
  return w;
}

async function crashRun(runDir: string, crash: (done: number) => Promise<void>) {
  const config = runConfig({
    runDir,
    envName: 'mcqa',
    inputFile: INPUT,
    numRepeats: REPEATS,
    concurrency: 16,
    // Short executions, so the kills also land around continue-as-new with rollouts in flight.
    stepsPerExecution: 25,
    shards: 2,
    model: { accuracy: 0.7, seed: 7, latency_ms: 5 },
    maximumAttempts: 20,
  });
  const handle = await startRunWorkflow(server, config);
  await crash(0);
  return (await handle.result()) as RunResult;
}

describe('a 200-rollout run', () => {
  it('completes exactly once although its worker is SIGKILLed twice', async () => {
    const runDir = await tempDir('gymflow-crash-worker-');
    let worker = startWorker(runDir);
    const result = await crashRun(runDir, async () => {
      for (const threshold of [40, 110]) {
        await waitFor(() => (worker.assertAlive(), recordedLines(runDir).length >= threshold), `${threshold} records`);
        await worker.kill('SIGKILL');
        // The kill must land mid-run, or the test proves nothing.
        expect(recordedLines(runDir).length).toBeLessThan(TASKS * REPEATS);
        worker = startWorker(runDir);
      }
    });
    await assertExactlyOnce(runDir, result);
  }, 600_000);

  it('completes exactly once although the Temporal server is killed and restarted mid-run', async () => {
    const runDir = await tempDir('gymflow-crash-server-');
    const worker = startWorker(runDir);
    const result = await crashRun(runDir, async () => {
      await waitFor(() => (worker.assertAlive(), recordedLines(runDir).length >= 60), '60 records');
      await server.restart('SIGKILL');
      expect(recordedLines(runDir).length).toBeLessThan(TASKS * REPEATS);
    });
    await assertExactlyOnce(runDir, result);
  }, 600_000);
});

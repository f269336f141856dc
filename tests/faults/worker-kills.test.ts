// Fault matrix (docs/faults.md): worker processes SIGKILLed at seeded random points of one multi-turn
// run, a dozen times, while several workers share it. The raw files must still hold every task × repeat
// exactly once, each reward the verifier's, and the run must end.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRng } from '../../src/util/rng';
import type { RunResult } from '../../workflows/definitions';
import { bounded, expectFaultInvariants } from '../helpers/fault-invariants';
import { runConfig, startRunWorkflow, tempDir } from '../helpers/run';
import { startTestServer, type TestServer } from '../helpers/temporal-server';
import { spawnWorker, waitFor, type WorkerProcess } from '../helpers/worker-process';

const INPUT = path.resolve(import.meta.dirname, '../fixtures/nemo-gym/example_multi_step/example.jsonl');
const TASKS = 5;
const REPEATS = 16;
const WORKERS = 3;
const KILLS = 12;
const SEED = 20261201;

const recorded = (runDir: string) => {
  const file = path.join(runDir, 'rollouts.jsonl');
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0;
};

let server: TestServer;
const spawned: WorkerProcess[] = [];
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await Promise.all(spawned.map((w) => w.kill()));
  await server?.stop();
});

describe('worker SIGKILLs at seeded random points', () => {
  it(`leave every rollout recorded exactly once after ${KILLS} kills among ${WORKERS} workers`, async () => {
    const runDir = await tempDir('gymflow-fault-kills-');
    const config = runConfig({
      runDir,
      envName: 'example_multi_step',
      inputFile: INPUT,
      numRepeats: REPEATS,
      concurrency: 12,
      shards: WORKERS,
      // Short executions, so some kills land around continue-as-new with rollouts in flight.
      stepsPerExecution: 30,
      maximumAttempts: 20,
      model: { accuracy: 0.7, seed: 3, latency_ms: 40 },
    });
    const handle = await startRunWorkflow(server, config);
    const start = () => {
      const w = spawnWorker({ TEMPORAL_ADDRESS: server.address, GYMFLOW_HOME: server.dir }, { runDir });
      spawned.push(w);
      return w;
    };
    const workers = Array.from({ length: WORKERS }, start);
    const done = handle.result() as Promise<RunResult>;
    let finished = false;
    void done.then(
      () => (finished = true),
      () => (finished = true),
    );

    // The kill points: a seeded victim among the workers that are up, at a seeded moment after it was
    // picked, so kills land anywhere in a turn (or a continue-as-new), and never wait for the run's end.
    const rng = seededRng(SEED);
    const total = TASKS * REPEATS;
    await waitFor(() => finished || recorded(runDir) >= 1, 'the first record', 300_000);
    let kills = 0;
    while (kills < KILLS) {
      const up = () => workers.map((w, i) => [w, i] as const).filter(([w]) => /polling task queue/.test(w.output()));
      await waitFor(() => (workers.forEach((w) => w.assertAlive()), up().length > 0), 'a worker that is up', 300_000);
      const [victim, slot] = rng.pick(up());
      await new Promise((r) => setTimeout(r, 200 + rng.int(1300)));
      // Only a kill of a run still in progress tests anything.
      if (finished || recorded(runDir) >= total) break;
      await victim.kill('SIGKILL');
      kills++;
      workers[slot] = start();
    }
    expect(kills, 'kills that landed before the run finished').toBe(KILLS);

    const result = await bounded('the run after the kills', 400_000, done);
    await expectFaultInvariants(runDir, { tasks: TASKS, repeats: REPEATS, env: 'example_multi_step' });
    expect(result.metrics.coverage).toBe(1);
  }, 900_000);
});

// The "rollout" durability grain: batches of rollouts in heartbeating activities run the same agent
// steps in memory. It reproduces NeMo Gym's recorded rewards, keeps a shard's history to its batch
// activities, and a SIGKILLed worker's batch resumes and every rollout finishes exactly once.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWorkflowId, shardWorkflowId, type RunResult } from '../../workflows/definitions';
import { expectPlausibleDiagnostics } from '../helpers/diagnostics';
import { runConfig, runInProcess, startRunWorkflow, tempDir } from '../helpers/run';
import { startTestServer, type TestServer } from '../helpers/temporal-server';
import { spawnWorker, waitFor, type WorkerProcess } from '../helpers/worker-process';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/nemo-gym/example_multi_step');
const lines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);

let server: TestServer;
const workers: WorkerProcess[] = [];
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.kill()));
  await server?.stop();
});

describe('the rollout durability grain', () => {
  it('replays NeMo Gym rollouts to their recorded rewards with batch activities only', async () => {
    const runDir = await tempDir('gymflow-grain-');
    const config = runConfig({
      runDir,
      envName: 'example_multi_step',
      inputFile: path.join(FIXTURES, 'example.jsonl'),
      durability: 'rollout',
      model: { replay_files: [path.join(FIXTURES, 'example_rollouts.jsonl')] },
    });
    const result = await runInProcess(server, config);
    expect(result.metrics.rollouts_recorded).toBe(5);
    expect(result.metrics.mean_reward).toBe(1);
    expectPlausibleDiagnostics(runDir, { environment: 'example_multi_step', modelLatencyMs: 0 });
    const history = await (await server.client()).workflow.getHandle(shardWorkflowId(runWorkflowId(config.runId), 0)).fetchHistory();
    const scheduled = history.events!.filter((e) => e.activityTaskScheduledEventAttributes).map((e) => e.activityTaskScheduledEventAttributes!.activityType!.name);
    expect(scheduled).toEqual(['runRolloutBatch']);
    expect(history.events!.some((e) => e.markerRecordedEventAttributes)).toBe(false);
  });

  it('finishes every rollout exactly once after its worker is SIGKILLed mid-rollout', async () => {
    const runDir = await tempDir('gymflow-grain-crash-');
    const config = runConfig({
      runDir,
      envName: 'example_multi_step',
      inputFile: path.join(FIXTURES, 'example.jsonl'),
      numRepeats: 10,
      concurrency: 8,
      durability: 'rollout',
      maximumAttempts: 10,
      model: { accuracy: 0.7, latency_ms: 100 },
    });
    const handle = await startRunWorkflow(server, config);
    const env = { TEMPORAL_ADDRESS: server.address, GYMFLOW_HOME: server.dir };
    const first = spawnWorker(env, { runDir });
    workers.push(first);
    await waitFor(() => (first.assertAlive(), lines(path.join(runDir, 'rollouts.jsonl')).length >= 10), '10 records');
    await first.kill('SIGKILL');
    expect(lines(path.join(runDir, 'rollouts.jsonl')).length).toBeLessThan(50);
    workers.push(spawnWorker(env, { runDir }));
    const result = (await handle.result()) as RunResult;
    const ids = lines(path.join(runDir, 'rollouts.jsonl')).map((l) => JSON.parse(l)._ng_rollout_id);
    expect(ids).toHaveLength(50);
    expect(new Set(ids).size).toBe(50);
    expect(result.metrics.coverage).toBe(1);
  }, 600_000);
});

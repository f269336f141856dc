// Replay safety: recorded workflow histories must replay against the current workflow code without
// a determinism error — the committed ones (captured from earlier code) and fresh ones from a real
// run made now, including shard continue-as-new chains with rollouts in flight.
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installTracing } from '../../src/tracing/provider';
import { WORKFLOW_TRACING_MODULES, workerTracingOptions } from '../../src/tracing/temporal';
import { workflowBundle } from '../../workers/bundle';
import { WORKFLOWS_PATH } from '../../workers/worker';
import { runWorkflowId } from '../../workflows/definitions';
import { captureRunHistories, committedHistories } from '../helpers/histories';
import { quietLogger, runConfig, runInProcess, tempDir } from '../helpers/run';
import { startTestServer, type TestServer } from '../helpers/temporal-server';

async function replayAll(histories: { workflowId: string; history: unknown }[]) {
  const results = [];
  // The bundle every worker runs, with the OpenTelemetry interceptors in it (built once, not per replay).
  const tracing = workerTracingOptions(installTracing('gymflow-replay', quietLogger, { files: true, otlp: false }));
  expect(tracing.interceptors?.workflowModules).toEqual(WORKFLOW_TRACING_MODULES);
  const bundle = await workflowBundle(WORKFLOWS_PATH, WORKFLOW_TRACING_MODULES);
  for await (const r of Worker.runReplayHistories({ workflowBundle: bundle, sinks: tracing.sinks }, histories)) results.push(r);
  return results;
}

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.stop();
});

describe('workflow replay', () => {
  it('replays every committed history', async () => {
    const histories = committedHistories();
    expect(histories.length).toBeGreaterThanOrEqual(4);
    const results = await replayAll(histories);
    expect(results.map((r) => [r.workflowId, r.error?.message])).toEqual(histories.map((h) => [h.workflowId, undefined]));
  });

  it('replays the histories of a run made now, continue-as-new included', async () => {
    const runDir = await tempDir('gymflow-replay-');
    const config = runConfig({
      runDir,
      envName: 'example_multi_step',
      inputFile: path.resolve(import.meta.dirname, '../fixtures/nemo-gym/example_multi_step/example.jsonl'),
      limit: 3,
      numRepeats: 2,
      concurrency: 2,
      stepsPerExecution: 3,
      model: { accuracy: 0.5, seed: 11 },
    });
    await runInProcess(server, config);
    const client = await server.client();
    const captured = await captureRunHistories(client, runWorkflowId(config.runId));
    // One run execution and a shard that continued as new every 3 rounds.
    expect(captured.filter((h) => !h.workflowId.includes('/shard-'))).toHaveLength(1);
    expect(captured.filter((h) => h.workflowId.includes('/shard-')).length).toBeGreaterThan(2);
    const results = await replayAll(captured.map((h) => ({ workflowId: h.workflowId, history: JSON.parse(h.json) })));
    expect(results.every((r) => r.error === undefined)).toBe(true);
  });

  it('detects a workflow change that would break running histories', async () => {
    const [history] = committedHistories().filter((h) => !h.workflowId.includes('/shard-'));
    const tampered = structuredClone(history!) as { workflowId: string; history: { events: { eventType: string; activityTaskScheduledEventAttributes?: { activityType?: { name: string } } }[] } };
    const scheduled = tampered.history.events.find((e) => e.activityTaskScheduledEventAttributes)!;
    scheduled.activityTaskScheduledEventAttributes!.activityType!.name = 'somethingElse';
    const [result] = await replayAll([tampered]);
    expect(result!.error).toBeDefined();
  });
});

// The real run and shard workflows on a real Temporal server, with their activities replaced by
// scripted stubs, so each workflow branch (pause, resize, continue-as-new, failure routing, cancel) is
// driven exactly. Time-skipping needs a test server that @temporalio/testing downloads from GitHub,
// which this project never does: the environment is createLocal() on the project's own Temporal CLI.
import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { WorkflowHandle } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundle } from '@temporalio/worker';
import type { Settled } from '../../activities/rollout-rounds';
import type { BatchCounts, BatchInput } from '../../activities/rollout-batch';
import type { RoundInput } from '../../activities/rollout-rounds';
import { computeRunMetrics, type RunMetrics } from '../../src/metrics/aggregate';
import { ensureTemporalCli } from '../../src/temporal/cli-binary';
import { RUN_STATUS, SEARCH_ATTRIBUTES } from '../../src/temporal/search-attributes';
import { workflowBundle } from '../../workers/bundle';
import { WORKFLOWS_PATH } from '../../workers/worker';
import { DEFAULT_RETRY, runWorkflowId, shardWorkflowId, type Durability, type RolloutSelection, type RunInput } from '../../workflows/definitions';
import type { evalRunWorkflow } from '../../workflows/run';
// Installs the project's SDK runtime (quiet logs) before the environment makes its connections.
import '../helpers/run';
import { waitFor } from '../helpers/worker-process';

/** Positions and codes as the workflows see them (StepCode in activities/rollout-rounds.ts). */
export const NEXT = 0;
export const FINISH = 1;
export const RECORDED = 2;
export const FAILED = 3;
export const FINISHING = 0;

export interface WorkflowTestEnv {
  env: TestWorkflowEnvironment;
  bundle: WorkflowBundle;
}

export async function startWorkflowTestEnv(): Promise<WorkflowTestEnv> {
  const env = await TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'existing-path', path: await ensureTemporalCli() }, searchAttributes: SEARCH_ATTRIBUTES },
  });
  // The workers' own bundle, cached: webpack once for all these files, not once per file.
  return { env, bundle: await workflowBundle(WORKFLOWS_PATH, []) };
}

/** One call of a stub activity: its input, and which shard execution made it. */
export interface Call<I> {
  input: I;
  workflowId: string;
  runId: string;
}

export interface Stubs {
  advanceRollouts?: (input: RoundInput, call: Call<RoundInput>) => Promise<Settled[]>;
  runRolloutBatch?: (input: BatchInput, call: Call<BatchInput>) => Promise<BatchCounts>;
}

/** A stub round that plays every rollout in `steps` turns and records it with `reward`. */
export function playAll(turns: number, reward = 1): (input: RoundInput) => Promise<Settled[]> {
  return async (input) => input.rollouts.map(([o, step]) => settle(o, step, turns, reward));
}

/** The next code of a rollout at `step` that takes `turns` turns. */
export function settle(ordinal: number, step: number, turns: number, reward = 1): Settled {
  if (step === FINISHING) return [ordinal, step, RECORDED, reward];
  return [ordinal, step, step >= turns ? FINISH : NEXT];
}

/** A latch a stub waits on; the test opens it. */
export function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

export interface StubRun {
  handle: WorkflowHandle<typeof evalRunWorkflow>;
  rounds: Call<RoundInput>[];
  batches: Call<BatchInput>[];
  /** How each finalize was asked to end the run. */
  finalized: { expected: number; status?: string }[];
  /** Runs the worker until `body` is done (and the run has ended), then shuts it down. */
  drive(body: (handle: WorkflowHandle<typeof evalRunWorkflow>) => Promise<void>): Promise<void>;
}

const METRICS: RunMetrics = computeRunMetrics({ rollouts: [], failureClasses: [], expected: 0 });

export async function stubRun(
  t: WorkflowTestEnv,
  opts: { total: number; concurrency: number; shards?: number; durability?: Durability; stepsPerExecution?: number; maximumAttempts?: number; only?: RolloutSelection },
  stubs: Stubs,
): Promise<StubRun> {
  const taskQueue = `wf-test-${randomUUID()}`;
  const rounds: Call<RoundInput>[] = [];
  const batches: Call<BatchInput>[] = [];
  const finalized: StubRun['finalized'] = [];
  const callOf = <I>(input: I): Call<I> => {
    const { workflowExecution } = Context.current().info;
    return { input, workflowId: workflowExecution!.workflowId, runId: workflowExecution!.runId };
  };
  const worker = await Worker.create({
    connection: t.env.nativeConnection,
    taskQueue,
    workflowBundle: t.bundle,
    activities: {
      collateRun: async () => ({ taskCount: opts.total, rolloutCount: opts.total, agent: 'simple_agent' }),
      finalizeRun: async ({ expected, status }: { expected: number; status?: string }) => {
        finalized.push({ expected, status });
        return { ...METRICS, rollouts_expected: expected };
      },
      advanceRollouts: async (input: RoundInput) => {
        const call = callOf(input);
        rounds.push(call);
        if (!stubs.advanceRollouts) throw new Error('this test has no rounds');
        return stubs.advanceRollouts(input, call);
      },
      runRolloutBatch: async (input: BatchInput) => {
        const call = callOf(input);
        batches.push(call);
        if (!stubs.runRolloutBatch) throw new Error('this test has no batches');
        return stubs.runRolloutBatch(input, call);
      },
    },
  });
  const runId = `stub-${randomUUID().slice(0, 8)}`;
  const input: RunInput = {
    runId,
    runDir: `/nonexistent/${runId}`,
    env: { name: 'mcqa', options: {} },
    inputFile: '/nonexistent/tasks.jsonl',
    model: { backend: 'mock', env: 'mcqa', seed: 0, accuracy: 1, latency_ms: 0, replay_files: [] },
    numRepeats: 1,
    concurrency: opts.concurrency,
    retry: { ...DEFAULT_RETRY, initialIntervalMs: 100, maximumIntervalMs: 100, maximumAttempts: opts.maximumAttempts ?? DEFAULT_RETRY.maximumAttempts },
    durability: opts.durability ?? 'turn',
    shards: opts.shards ?? 1,
    stepsPerExecution: opts.stepsPerExecution,
    only: opts.only,
  };
  const handle = await t.env.client.workflow.start<typeof evalRunWorkflow>('evalRunWorkflow', {
    taskQueue,
    workflowId: runWorkflowId(runId),
    args: [input],
    typedSearchAttributes: [{ key: RUN_STATUS, value: 'running' }],
  });
  return {
    handle,
    rounds,
    batches,
    finalized,
    async drive(body) {
      await worker.runUntil(async () => {
        await body(handle);
        await handle.result().catch(() => {});
      });
    },
  };
}

export function shardId(handle: WorkflowHandle, shard: number): string {
  return shardWorkflowId(handle.workflowId, shard);
}

/** The run's GymStatus search attribute. */
export async function runStatus(handle: WorkflowHandle): Promise<unknown> {
  return (await handle.describe()).typedSearchAttributes.get(RUN_STATUS);
}

/**
 * Waits until `workflowId` has handled a signal named `name`: a workflow task completed after it
 * arrived. A turn-grain shard takes signals only between workflow tasks, and a task stays open while
 * a round runs (the SDK completes it as a heartbeat every few seconds), so this can take seconds.
 */
export async function signalHandled(t: WorkflowTestEnv, workflowId: string, name: string, nth = 1): Promise<void> {
  await waitFor(async () => {
    const { events } = await t.env.client.workflow.getHandle(workflowId).fetchHistory();
    let seen = 0;
    for (const e of events ?? []) {
      if (e.workflowExecutionSignaledEventAttributes?.signalName === name) seen++;
      else if (seen >= nth && e.workflowTaskCompletedEventAttributes) return true;
    }
    return false;
  }, `${workflowId} to handle signal ${name}`);
}

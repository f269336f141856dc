// A run (campaign): collate the input once, spread the rollouts (or a retry's selection of them) over
// shard workflows, steer them (pause, resume, concurrency, graceful stop), then aggregate the run's
// metrics from its files. GymStatus follows: running, paused, completed, failed or cancelled.
import {
  type ActivityOptions,
  allHandlersFinished,
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  patched,
  proxyActivities,
  setHandler,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
  ParentClosePolicy,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import { RUN_STATUS } from '../src/temporal/search-attributes';
import {
  MAX_CONCURRENCY,
  pauseSignal,
  resumeSignal,
  runStateQuery,
  setConcurrencyUpdate,
  shardConcurrencySignal,
  shardShare,
  shardWorkflowId,
  stopSignal,
  type RolloutSelection,
  type RunInput,
  type RunPhase,
  type RunResult,
  type ShardCounts,
} from './definitions';
import { shardWorkflow } from './shard';

const runStep: ActivityOptions = {
  startToCloseTimeout: '30 minutes',
  retry: { maximumAttempts: 5, nonRetryableErrorTypes: ['BAD_INPUT', 'NOT_FOUND', 'DISK_FULL'] },
};
// Collating validates a whole dataset in one go, so its heartbeats may be far apart.
const { collateRun } = proxyActivities<Activities>({ ...runStep, heartbeatTimeout: '2 minutes' });
// Finalizing streams the results files and beats often; a short timeout matters because a frozen
// (SIGSTOPped, swapped-out) worker whose poll was still open can be handed this task, and the run then
// waits out the whole timeout before another worker gets it.
const { finalizeRun } = proxyActivities<Activities>({ ...runStep, heartbeatTimeout: '30 seconds' });

/** Workflow patches, named once: each guards a change that old histories must replay without. */
const PATCH_PAUSED_STATUS = 'gym-status-paused';
const PATCH_FINALIZE_CANCELLED = 'finalize-cancelled-run';

/** Shard `s`'s part of a selection: every `shards`-th entry from the s-th. */
function selectionPart(only: RolloutSelection, shards: number, s: number): RolloutSelection {
  const keep = (_: number, i: number) => i % shards === s;
  return { ordinals: only.ordinals.filter(keep), attempts: only.attempts.filter(keep) };
}

export async function evalRunWorkflow(input: RunInput): Promise<RunResult> {
  let phase: RunPhase = 'collating';
  let concurrency = Math.min(MAX_CONCURRENCY, Math.max(1, input.concurrency));
  let paused = false;
  let stopping = false;
  let total: number | null = null;
  const runWfId = workflowInfo().workflowId;
  const shards = Math.max(1, Math.min(input.shards, concurrency, input.only ? input.only.ordinals.length : Infinity));
  const shardIds = Array.from({ length: shards }, (_, s) => shardWorkflowId(runWfId, s));
  const finished: Record<string, ShardCounts> = {};
  const running = new Set<string>();

  /** Tells every shard still running; a shard that just ended is no error. */
  async function broadcast(send: (id: string, s: number) => Promise<void>): Promise<void> {
    await Promise.all(shardIds.map((id, s) => (running.has(id) ? send(id, s).catch(() => {}) : undefined)));
  }

  // Only started shards: an id not started yet may still name a finished shard of an earlier run.
  setHandler(runStateQuery, () => ({ phase, total, concurrency, paused, stopping, shardIds: shardIds.filter((id) => running.has(id) || id in finished), finished }));
  /** GymStatus while the run runs; histories from before it was kept replay without the upsert. */
  const showPaused = (isPaused: boolean) => {
    if (phase !== 'completed' && patched(PATCH_PAUSED_STATUS)) upsertSearchAttributes([{ key: RUN_STATUS, value: isPaused ? 'paused' : 'running' }]);
  };
  setHandler(pauseSignal, async () => {
    paused = true;
    showPaused(true);
    await broadcast((id) => getExternalWorkflowHandle(id).signal(pauseSignal));
  });
  setHandler(resumeSignal, async () => {
    paused = false;
    showPaused(false);
    await broadcast((id) => getExternalWorkflowHandle(id).signal(resumeSignal));
  });
  setHandler(stopSignal, async () => {
    stopping = true;
    await broadcast((id) => getExternalWorkflowHandle(id).signal(stopSignal));
  });
  setHandler(
    setConcurrencyUpdate,
    async (n) => {
      concurrency = n;
      await broadcast((id, s) => getExternalWorkflowHandle(id).signal(shardConcurrencySignal, shardShare(n, shards, s)));
      return concurrency;
    },
    {
      validator: (n) => {
        if (!Number.isInteger(n) || n < 1 || n > MAX_CONCURRENCY) throw new Error(`concurrency must be an integer from 1 to ${MAX_CONCURRENCY}, got ${n}`);
      },
    },
  );

  try {
    // Only a run with an object store names one: every other run's activity inputs stay as they were.
    const store = input.store ? { store: input.store } : {};
    const collated = await collateRun({ runDir: input.runDir, ...store, inputFile: input.inputFile, env: input.env, limit: input.limit, numRepeats: input.numRepeats });
    total = collated.rolloutCount;
    phase = 'running';
    const spec = {
      runDir: input.runDir,
      ...store,
      epoch: workflowInfo().firstExecutionRunId,
      env: input.env,
      agent: collated.agent,
      model: input.model,
      judgeModel: input.judgeModel,
      maxSteps: input.maxSteps,
      historyPolicy: input.historyPolicy,
    };
    await Promise.all(
      shardIds.map(async (id, s) => {
        const share = shardShare(concurrency, shards, s);
        const startPaused = paused;
        const startStopping = stopping;
        const child = await startChild(shardWorkflow, {
          workflowId: id,
          args: [
            {
              spec,
              durability: input.durability,
              retry: input.retry,
              numRepeats: input.numRepeats,
              total: total!,
              shard: s,
              shards,
              concurrency: share,
              paused: startPaused,
              ...(startStopping ? { stopping: true } : {}),
              stepsPerExecution: input.stepsPerExecution,
              ...(input.only ? { only: selectionPart(input.only, shards, s) } : {}),
              ...(input.rolloutQueue ? { rolloutQueue: input.rolloutQueue } : {}),
            },
          ],
          parentClosePolicy: ParentClosePolicy.TERMINATE,
        });
        // Control that arrived while the shard was starting reached no one: pass it on now.
        running.add(id);
        if (paused !== startPaused) await child.signal(paused ? pauseSignal : resumeSignal);
        if (stopping && !startStopping) await child.signal(stopSignal);
        if (shardShare(concurrency, shards, s) !== share) await child.signal(shardConcurrencySignal, shardShare(concurrency, shards, s));
        try {
          finished[id] = await child.result();
        } finally {
          running.delete(id);
        }
      }),
    );
    phase = 'finalizing';
    // A graceful stop ends here too: the run is complete as a workflow, cancelled as a run.
    const status = stopping ? 'cancelled' : 'completed';
    const metrics = await finalizeRun({ runDir: input.runDir, ...store, expected: total, status });
    phase = 'completed';
    upsertSearchAttributes([{ key: RUN_STATUS, value: status }]);
    await condition(allHandlersFinished);
    return { runDir: input.runDir, metrics };
  } catch (err) {
    const cancelled = isCancellation(err);
    await CancellationScope.nonCancellable(async () => {
      // An abandoned run still gets its metrics and health, counting the rollouts it left as missing.
      if (cancelled && total !== null && patched(PATCH_FINALIZE_CANCELLED)) {
        await finalizeRun({ runDir: input.runDir, ...(input.store ? { store: input.store } : {}), expected: total, status: 'cancelled' }).catch(() => undefined);
      }
      upsertSearchAttributes([{ key: RUN_STATUS, value: cancelled ? 'cancelled' : 'failed' }]);
    });
    throw err;
  }
}

// A run (campaign): collate the input, keep a bounded sliding window of rollout workflows in flight
// over every task × repeat, continue-as-new before the history grows large, then aggregate.
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  executeChild,
  isCancellation,
  log,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
  ParentClosePolicy,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import { RUN_STATUS } from '../src/temporal/search-attributes';
import {
  MAX_CONCURRENCY,
  pauseSignal,
  progressQuery,
  resumeSignal,
  rolloutWorkflowId,
  setConcurrencySignal,
  type RunCounts,
  type RunInput,
  type RunPhase,
  type RunResult,
} from './definitions';
import { rolloutWorkflow } from './rollout';

const { collateRun, finalizeRun, recordFailure } = proxyActivities<Activities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '2 minutes',
  retry: { maximumAttempts: 5, nonRetryableErrorTypes: ['BadInput'] },
});

const DEFAULT_ROLLOUTS_PER_EXECUTION = 500;

function clampConcurrency(n: number): number {
  return Math.min(MAX_CONCURRENCY, Math.max(1, Math.floor(n)));
}

export async function evalRunWorkflow(input: RunInput): Promise<RunResult> {
  let phase: RunPhase = input.total === undefined ? 'collating' : 'running';
  let concurrency = clampConcurrency(input.concurrency);
  let paused = false;
  let inFlight = 0;
  let total = input.total ?? null;
  let agent = input.agent ?? 'simple_agent';
  const counts: RunCounts = input.counts ?? { cursor: 0, done: 0, failed: 0, rewardSum: 0 };

  setHandler(progressQuery, () => ({
    phase,
    total,
    done: counts.done,
    failed: counts.failed,
    inFlight,
    concurrency,
    paused,
    meanReward: counts.done ? counts.rewardSum / counts.done : null,
  }));
  setHandler(setConcurrencySignal, (n) => void (concurrency = clampConcurrency(n)));
  setHandler(pauseSignal, () => void (paused = true));
  setHandler(resumeSignal, () => void (paused = false));

  if (total === null) {
    const collated = await collateRun({ runDir: input.runDir, inputFile: input.inputFile, envName: input.envName, limit: input.limit, numRepeats: input.numRepeats });
    total = collated.rolloutCount;
    agent = collated.agent;
    phase = 'running';
  }

  const perExecution = input.rolloutsPerExecution ?? DEFAULT_ROLLOUTS_PER_EXECUTION;
  const runWfId = workflowInfo().workflowId;
  let startedHere = 0;
  while (counts.cursor < total) {
    await condition(() => !paused && inFlight < concurrency);
    if (startedHere >= perExecution || workflowInfo().continueAsNewSuggested) break;
    const i = counts.cursor++;
    const taskIndex = Math.floor(i / input.numRepeats);
    const rolloutIndex = i % input.numRepeats;
    startedHere++;
    inFlight++;
    const ref = { runDir: input.runDir, envName: input.envName, taskIndex, rolloutIndex };
    void executeChild(rolloutWorkflow, {
      workflowId: rolloutWorkflowId(runWfId, taskIndex, rolloutIndex),
      args: [{ ...ref, agent, durability: input.durability, model: input.model, judgeModel: input.judgeModel, maxSteps: input.maxSteps, retry: input.retry }],
      parentClosePolicy: ParentClosePolicy.TERMINATE,
    })
      .then(
        (outcome) => {
          if (outcome.status === 'recorded') {
            counts.done++;
            counts.rewardSum += outcome.reward;
          } else counts.failed++;
        },
        // The rollout workflow itself failed or was terminated: it left no record, so the run writes one.
        // A cancelled run leaves its rollouts unrecorded on purpose: a resume runs them again.
        async (err: Error) => {
          counts.failed++;
          if (isCancellation(err)) return;
          try {
            await recordFailure({ ...ref, failureClass: 'internal', message: `rollout workflow ended: ${err.message}`, stage: 'record', attempt: 1 });
          } catch (e) {
            log.error('could not write the sidecar record of a rollout', { rollout: `${taskIndex}-${rolloutIndex}`, error: String(e) });
          }
        },
      )
      .finally(() => void inFlight--);
  }
  await condition(() => inFlight === 0);

  if (counts.cursor < total) {
    await condition(allHandlersFinished);
    return continueAsNew<typeof evalRunWorkflow>({ ...input, concurrency, total, agent, counts });
  }
  phase = 'finalizing';
  const metrics = await finalizeRun({ runDir: input.runDir, expected: total });
  phase = 'completed';
  upsertSearchAttributes([{ key: RUN_STATUS, value: 'completed' }]);
  return { runDir: input.runDir, metrics };
}

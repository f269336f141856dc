// One rollout, NeMo Gym's agent loop made durable. With the default "turn" grain each model call and
// each tool call is its own activity, so a crash resumes at the last finished one; with the "rollout"
// grain the whole loop runs in one heartbeating activity (fewer history events for high-throughput
// single-turn campaigns), which still resumes at the last finished step from the run folder.
import { isCancellation, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { playRollout } from './agent-loop';
import type { RolloutInput, RolloutOutcome } from './definitions';
import { describeFailure, type RolloutStage } from './failure';

export async function rolloutWorkflow(input: RolloutInput): Promise<RolloutOutcome> {
  const retry = {
    maximumAttempts: input.retry.maximumAttempts,
    initialInterval: input.retry.initialIntervalMs,
    maximumInterval: input.retry.maximumIntervalMs,
    backoffCoefficient: 2,
    nonRetryableErrorTypes: ['BadTask'],
  };
  const acts = proxyActivities<Activities>({ startToCloseTimeout: '10 minutes', heartbeatTimeout: input.retry.heartbeatTimeoutMs, retry });
  const whole = proxyActivities<Activities>({ startToCloseTimeout: '2 hours', heartbeatTimeout: input.retry.heartbeatTimeoutMs, retry });
  const ref = { runDir: input.runDir, envName: input.envName, taskIndex: input.taskIndex, rolloutIndex: input.rolloutIndex };
  let stage: RolloutStage = 'seed';
  try {
    const { reward } = input.durability === 'rollout' ? await whole.runRollout(input) : await playRollout(input, acts, (s) => (stage = s));
    return { status: 'recorded', reward };
  } catch (err) {
    if (isCancellation(err)) throw err;
    const failure = describeFailure(stage, err, input.retry.maximumAttempts);
    await acts.recordFailure({ ...ref, ...failure });
    return { status: 'failed', failureClass: failure.failureClass };
  }
}

// One rollout, NeMo Gym's simple agent loop made durable: seed the session, then model turn → tool
// calls → … until the model answers without calling a tool (or max_steps), then verify and record.
// Each model call and each tool call is its own activity, so a crash resumes at the last finished one.
import { isCancellation, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { STEP_CAP, type RolloutInput, type RolloutOutcome } from './definitions';
import { describeFailure, type RolloutStage } from './failure';

export async function rolloutWorkflow(input: RolloutInput): Promise<RolloutOutcome> {
  const acts = proxyActivities<Activities>({
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: input.retry.heartbeatTimeoutMs,
    retry: {
      maximumAttempts: input.retry.maximumAttempts,
      initialInterval: input.retry.initialIntervalMs,
      maximumInterval: input.retry.maximumIntervalMs,
      backoffCoefficient: 2,
      nonRetryableErrorTypes: ['BadTask'],
    },
  });
  const ref = { runDir: input.runDir, envName: input.envName, taskIndex: input.taskIndex, rolloutIndex: input.rolloutIndex };
  let stage: RolloutStage = 'seed';
  try {
    const start = await acts.startRollout(ref);
    if (start.recordedReward !== null) return { status: 'recorded', reward: start.recordedReward };

    const stepCap = input.maxSteps && input.maxSteps > 0 ? input.maxSteps : STEP_CAP;
    for (let step = 1; ; step++) {
      stage = 'model';
      const turn = await acts.callModel({ ...ref, step, model: input.model });
      if (turn.incomplete) break;
      if (input.agent === 'gymnasium_agent') {
        stage = 'tool';
        const { done } = await acts.stepEnvironment({ ...ref, step });
        if (done || step >= stepCap) break;
        continue;
      }
      if (turn.functionCalls === 0 && turn.hasAssistantMessage) break;
      if (input.agent === 'non_executing_agent') break;
      stage = 'tool';
      for (let index = 0; index < turn.functionCalls; index++) await acts.callTool({ ...ref, step, index });
      if (step >= stepCap) break;
    }
    stage = 'verify';
    await acts.verifyRollout({ ...ref, judgeModel: input.judgeModel });
    stage = 'record';
    const { reward } = await acts.recordRollout(ref);
    return { status: 'recorded', reward };
  } catch (err) {
    if (isCancellation(err)) throw err;
    const failure = describeFailure(stage, err, input.retry.maximumAttempts);
    await acts.recordFailure({ ...ref, ...failure });
    return { status: 'failed', failureClass: failure.failureClass };
  }
}

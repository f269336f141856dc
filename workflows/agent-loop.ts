// The agent loop of one rollout, written once for both durability grains: the rollout workflow runs it
// with every step an activity ("turn"), the runRollout activity runs it with every step a plain call
// ("rollout"). Deterministic and free of I/O, so it is safe in workflow code.
import type { createResultActivities } from '../activities/results';
import type { createRolloutStepActivities } from '../activities/rollout-steps';
import { STEP_CAP, type RolloutInput } from './definitions';
import type { RolloutStage } from './failure';

export type RolloutSteps = Pick<
  ReturnType<typeof createRolloutStepActivities> & ReturnType<typeof createResultActivities>,
  'startRollout' | 'callModel' | 'stepEnvironment' | 'callTool' | 'verifyRollout' | 'recordRollout'
>;

/** Seed → (model turn → tool calls or environment step)* → verify → record; returns the reward. */
export async function playRollout(input: RolloutInput, steps: RolloutSteps, enter: (stage: RolloutStage) => void): Promise<{ reward: number }> {
  const ref = { runDir: input.runDir, envName: input.envName, taskIndex: input.taskIndex, rolloutIndex: input.rolloutIndex };
  enter('seed');
  const start = await steps.startRollout(ref);
  if (start.recordedReward !== null) return { reward: start.recordedReward };

  const stepCap = input.maxSteps && input.maxSteps > 0 ? input.maxSteps : STEP_CAP;
  for (let step = 1; ; step++) {
    enter('model');
    const turn = await steps.callModel({ ...ref, step, model: input.model });
    if (turn.incomplete) break;
    if (input.agent === 'gymnasium_agent') {
      enter('tool');
      const { done } = await steps.stepEnvironment({ ...ref, step });
      if (done || step >= stepCap) break;
      continue;
    }
    if (turn.functionCalls === 0 && turn.hasAssistantMessage) break;
    if (input.agent === 'non_executing_agent') break;
    enter('tool');
    for (let index = 0; index < turn.functionCalls; index++) await steps.callTool({ ...ref, step, index });
    if (step >= stepCap) break;
  }
  enter('verify');
  await steps.verifyRollout({ ...ref, judgeModel: input.judgeModel });
  enter('record');
  return steps.recordRollout(ref);
}

// The "rollout" durability grain: the whole agent loop in one heartbeating activity. It calls the very
// step functions the "turn" grain schedules as activities, so the files, the idempotence and the resume
// point are the same; only the history is smaller.
import { ApplicationFailure } from '@temporalio/common';
import { playRollout, type RolloutSteps } from '../workflows/agent-loop';
import type { RolloutInput } from '../workflows/definitions';
import type { RolloutStage } from '../workflows/failure';
import { runActivity } from './envelope';

export function createInlineRolloutActivity(steps: RolloutSteps) {
  return {
    async runRollout(input: RolloutInput): Promise<{ reward: number }> {
      let stage: RolloutStage = 'seed';
      return runActivity(async () => {
        try {
          return await playRollout(input, steps, (s) => (stage = s));
        } catch (err) {
          const f = err as ApplicationFailure;
          throw ApplicationFailure.create({
            type: f.type ?? (err as Error).name,
            message: (err as Error).message,
            nonRetryable: f.nonRetryable ?? false,
            details: [{ ...((f.details?.[0] as object | undefined) ?? {}), stage }],
            cause: err as Error,
          });
        }
      });
    },
  };
}

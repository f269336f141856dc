// All activities of a Gymflow worker, built around the shared model gateway.
import type { Gateway } from '../src/gateway/server';
import { collateRun } from './collate';
import { runActivity } from './envelope';
import { createBatchActivity } from './rollout-batch';
import { createRoundActivity } from './rollout-rounds';
import { createRolloutSteps } from './rollout-steps';
import { finalizeRun } from './results';
import { createSandboxActivities } from './sandbox';

export function createActivities(deps: { gateway: Gateway }) {
  const steps = createRolloutSteps(deps);
  const batch = createBatchActivity(steps);
  const rounds = createRoundActivity(steps);
  return {
    collateRun,
    finalizeRun,
    ...createSandboxActivities(),
    advanceRollouts: (input: Parameters<typeof rounds.advanceRollouts>[0]) => runActivity(() => rounds.advanceRollouts(input)),
    runRolloutBatch: (input: Parameters<typeof batch.runRolloutBatch>[0]) => runActivity(() => batch.runRolloutBatch(input)),
  };
}

export type Activities = ReturnType<typeof createActivities>;

// All activities of a Gymflow worker, built around the shared model gateway.
import type { Gateway } from '../src/gateway/server';
import { collateRun } from './collate';
import { runActivity } from './envelope';
import { createHarnessRollout } from './harness-rollout';
import { createBatchActivity } from './rollout-batch';
import { createRoundActivity } from './rollout-rounds';
import { createRolloutSteps } from './rollout-steps';
import { finalizeRun } from './results';
import { createSandboxActivities } from './sandbox';
import type { Slots } from '../src/util/slots';

/** `rolloutSlots`: the worker's cap on the rollouts its batches play at once (absent: each batch's own width). */
export function createActivities(deps: { gateway: Gateway; rolloutSlots?: Slots }) {
  const steps = createRolloutSteps(deps);
  const batch = createBatchActivity(steps, createHarnessRollout(deps), deps.rolloutSlots);
  const rounds = createRoundActivity(steps);
  return {
    collateRun,
    finalizeRun,
    ...createSandboxActivities(),
    advanceRollouts: (input: Parameters<typeof rounds.advanceRollouts>[0]) => runActivity(() => rounds.advanceRollouts(input)),
    runRolloutBatch: (input: Parameters<typeof batch.runRolloutBatch>[0]) => runActivity(() => batch.runRolloutBatch(input)),
    // Does nothing: the shard schedules it to end its workflow task (see ROUNDS_PER_YIELD in workflows/shard.ts).
    yieldTask: async (): Promise<void> => undefined,
  };
}

export type Activities = ReturnType<typeof createActivities>;

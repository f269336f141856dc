// All activities of a Gymflow worker, built around the shared model gateway.
import type { Gateway } from '../src/gateway/server';
import { collateRun } from './collate';
import { createResultActivities } from './results';
import { createInlineRolloutActivity } from './rollout-inline';
import { createRolloutStepActivities } from './rollout-steps';

export function createActivities(deps: { gateway: Gateway }) {
  const steps = { ...createRolloutStepActivities(deps), ...createResultActivities(deps) };
  return { collateRun, ...steps, ...createInlineRolloutActivity(steps) };
}

export type Activities = ReturnType<typeof createActivities>;

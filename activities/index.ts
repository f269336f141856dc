// All activities of a Gymflow worker, built around the shared model gateway.
import type { Gateway } from '../src/gateway/server';
import { collateRun } from './collate';
import { createResultActivities } from './results';
import { createRolloutStepActivities } from './rollout-steps';

export function createActivities(deps: { gateway: Gateway }) {
  return { collateRun, ...createRolloutStepActivities(deps), ...createResultActivities(deps) };
}

export type Activities = ReturnType<typeof createActivities>;

// Bench-only workflows for the Temporal ceiling: the least a workflow, an activity and a local activity can
// cost on this server. Bundled by the bench worker through workflowsPath; nothing here is product code.
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type * as activities from './activities';

export interface WindowInput {
  /** Activities to run, in total. */
  n: number;
  /** How many are in flight at once. */
  window: number;
}

const regular = proxyActivities<typeof activities>({ startToCloseTimeout: '1 minute' });
const local = proxyLocalActivities<typeof activities>({ startToCloseTimeout: '1 minute' });

export async function trivialWorkflow(): Promise<number> {
  return 0;
}

// `window` lanes each take the next index until none is left: a sliding window, not batches.
async function slidingWindow(input: WindowInput, call: (i: number) => Promise<number>): Promise<number> {
  let next = 0;
  let done = 0;
  const lane = async () => {
    while (next < input.n) {
      await call(next++);
      done++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(input.window, input.n) }, lane));
  return done;
}

export async function activitiesWorkflow(input: WindowInput): Promise<number> {
  return slidingWindow(input, regular.noop);
}

export async function localActivitiesWorkflow(input: WindowInput): Promise<number> {
  return slidingWindow(input, local.noop);
}

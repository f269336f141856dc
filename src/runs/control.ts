// Steering a running run through its workflow's signals and updates: pause, unpause, cancel and a new
// concurrency. Shared by `gym eval pause|unpause|cancel|concurrency` and the trigger API.
import type { Client } from '@temporalio/client';
import { GymError } from '../errors';
import { pauseSignal, resumeSignal, setConcurrencyUpdate, stopSignal } from '../../workflows/definitions';

export type SteerAction =
  | { action: 'pause' }
  | { action: 'unpause' }
  /** Graceful by default: no new rollouts, those in flight finish, the run ends as cancelled; `abandon` stops them where they are. */
  | { action: 'cancel'; abandon?: boolean }
  | { action: 'concurrency'; value: number };

/** Sends the action to a running run; answers the concurrency applied for a resize. Refuses a run that is not running. */
export async function steerRun(client: Client, workflowId: string, steer: SteerAction): Promise<number | undefined> {
  const handle = client.workflow.getHandle(workflowId);
  const status = (await handle.describe().catch(() => undefined))?.status.name;
  if (status !== 'RUNNING') throw new GymError('CONFLICT', `run ${workflowId} is ${status?.toLowerCase() ?? 'unknown to this server'}, not running`);
  if (steer.action === 'pause') await handle.signal(pauseSignal);
  else if (steer.action === 'unpause') await handle.signal(resumeSignal);
  else if (steer.action === 'cancel') await (steer.abandon ? handle.cancel() : handle.signal(stopSignal));
  else return handle.executeUpdate(setConcurrencyUpdate, { args: [steer.value] });
  return undefined;
}

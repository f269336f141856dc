// A run's status as `gym eval status` and the trigger API show it: Temporal's execution status, live
// progress while it runs, and the metrics its folder holds once finalized.
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { GymError } from '../errors';
import type { RunMetrics } from '../metrics/aggregate';
import { RunStore } from '../store/run-store';
import type { RunProgress } from '../../workflows/definitions';
import { queryProgress } from './client';
import type { Manifest } from './manifest';

export interface RunStatusReport {
  workflowId: string;
  /** Temporal's execution status: RUNNING, COMPLETED, FAILED, CANCELLED, TERMINATED, TIMED_OUT, … */
  status: string;
  startTime: Date;
  runDir?: string;
  progress?: RunProgress;
  metrics?: RunMetrics;
}

/** Execution statuses after which `gym eval resume` continues the run. */
export const INTERRUPTED_STATUSES: readonly string[] = ['FAILED', 'TERMINATED', 'TIMED_OUT', 'CANCELLED'];

export async function describeRun(client: Client, workflowId: string, manifest?: Manifest): Promise<RunStatusReport> {
  const handle = client.workflow.getHandle(workflowId);
  let description;
  try {
    description = await handle.describe();
  } catch (e) {
    if (e instanceof WorkflowNotFoundError) throw new GymError('NOT_FOUND', `no run with workflow id ${workflowId} on this Temporal server`);
    throw e;
  }
  const progress = description.status.name === 'RUNNING' ? await queryProgress(handle) : undefined;
  const runDir = manifest?.config.runDir ?? (description.memo?.runDir as string | undefined);
  const store = runDir ? new RunStore(runDir) : undefined;
  const metrics = store ? await store.readJson<RunMetrics>(store.metricsPath) : undefined;
  return { workflowId, status: description.status.name, startTime: description.startTime, runDir, progress, metrics };
}

// A run's status as `gym eval status` and the trigger API show it: Temporal's execution status, live
// progress while it runs, and the metrics its folder holds once finalized.
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { GymError } from '../errors';
import type { RunMetrics } from '../metrics/aggregate';
import { RunStore } from '../store/run-store';
import type { RunProgress } from '../../workflows/definitions';
import { RUN_STATUS } from '../temporal/search-attributes';
import { queryProgress } from './client';
import { rowStatus } from './list';
import type { Manifest } from './manifest';

export interface RunStatusReport {
  workflowId: string;
  /** Temporal's execution status: RUNNING, COMPLETED, FAILED, CANCELLED, TERMINATED, TIMED_OUT, … */
  status: string;
  /** What Gymflow calls it: running, paused, completed, cancelled (gracefully, or by Temporal), failed, terminated, timed_out. */
  runStatus: string;
  startTime: Date;
  runDir?: string;
  progress?: RunProgress;
  metrics?: RunMetrics;
}

/** Run statuses after which `gym eval resume` continues the run. */
export const INTERRUPTED_STATUSES: readonly string[] = ['failed', 'terminated', 'timed_out', 'cancelled'];

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
  // Paused, or cancelled gracefully (the workflow completed), as GymStatus tells it.
  const runStatus = rowStatus(description.status.name, description.typedSearchAttributes.get(RUN_STATUS) as string | undefined);
  return { workflowId, status: description.status.name, runStatus, startTime: description.startTime, runDir, progress, metrics };
}

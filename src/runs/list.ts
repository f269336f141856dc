// Runs a Temporal server knows, with their environment, agent, model and status, filtered as
// `gym eval list` asks: from each run workflow's search attributes and memo, newest first.
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { GymError } from '../errors';
import { AGENT_NAME, ENV_NAME, MODEL_NAME, RUN_ID, RUN_STATUS } from '../temporal/search-attributes';

export const RUN_STATUSES = ['running', 'paused', 'completed', 'failed', 'cancelled', 'terminated', 'timed_out'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export interface RunRow {
  run: string;
  workflow_id: string;
  status: string;
  env: string;
  agent: string;
  model: string;
  started: string;
  folder: string;
}

export interface RunFilter {
  env?: string;
  agent?: string;
  model?: string;
  status?: RunStatus;
}

export function parseRunStatus(raw: string): RunStatus {
  const s = raw.toLowerCase() === 'canceled' ? 'cancelled' : raw.toLowerCase();
  if (!(RUN_STATUSES as readonly string[]).includes(s)) throw new GymError('BAD_FLAG', `--status must be one of ${RUN_STATUSES.join(', ')}, got ${raw}`);
  return s as RunStatus;
}

/**
 * Temporal's execution status is the truth for how a run ended (a terminated run never updated its
 * GymStatus); while it runs, GymStatus says more (e.g. paused), and a run cancelled gracefully (its
 * rollouts in flight finished) completed as a workflow but is cancelled as a run.
 */
export function rowStatus(execution: string, gymStatus: string | undefined): string {
  const s = execution.toLowerCase();
  if (s === 'running') return gymStatus === 'paused' ? 'paused' : 'running';
  if (s === 'completed' && gymStatus === 'cancelled') return 'cancelled';
  return s;
}

/** An environment matches by name, with or without its settings ("mcqa" matches "mcqa(prompt=…)"); a model by its label or its name after the backend. */
export function rowMatches(row: RunRow, f: RunFilter): boolean {
  if (f.env !== undefined && row.env !== f.env && !row.env.startsWith(`${f.env}(`)) return false;
  if (f.agent !== undefined && row.agent !== f.agent) return false;
  if (f.model !== undefined && row.model !== f.model && row.model.slice(row.model.indexOf(':') + 1) !== f.model) return false;
  if (f.status !== undefined && row.status !== f.status) return false;
  return true;
}

function toRow(wf: WorkflowExecutionInfo): RunRow {
  const attr = (k: typeof RUN_ID) => wf.typedSearchAttributes.get(k);
  return {
    run: String(attr(RUN_ID) ?? wf.workflowId),
    workflow_id: wf.workflowId,
    status: rowStatus(wf.status.name, attr(RUN_STATUS) as string | undefined),
    env: String(attr(ENV_NAME) ?? ''),
    agent: String(attr(AGENT_NAME) ?? ''),
    model: String(attr(MODEL_NAME) ?? ''),
    started: wf.startTime.toISOString(),
    folder: String(wf.memo?.runDir ?? ''),
  };
}

/**
 * Up to `limit` matching runs. Matching is done here rather than in a visibility query, so an
 * environment's name matches every variant of its settings and a model matches without its backend.
 */
export async function listRuns(client: Client, filter: RunFilter, limit: number): Promise<RunRow[]> {
  const rows: RunRow[] = [];
  // A run continued-as-new or resumed has several executions; the newest (listed first) speaks for it.
  const seen = new Set<string>();
  for await (const wf of client.workflow.list({ query: 'WorkflowType = "evalRunWorkflow"' })) {
    if (seen.has(wf.workflowId)) continue;
    seen.add(wf.workflowId);
    const row = toRow(wf);
    if (!rowMatches(row, filter)) continue;
    rows.push(row);
    if (rows.length >= limit) break;
  }
  return rows;
}

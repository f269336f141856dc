// A run's workflow histories — the run workflow and every shard, each execution of their continue-as-new
// chains — fetched from Temporal, or read back from the copies exported into the run folder.
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { GymError } from '../errors';
import { writeFileAtomic } from '../store/jsonl';

export interface RunHistory {
  workflowId: string;
  runId: string;
  /** The history as JSON text (`temporal workflow show --output json`, the Web UI's download). */
  json: string;
}

/** Where `gym eval history` puts a run's histories, beside its results. */
export function historiesDir(runDir: string): string {
  return path.join(runDir, 'histories');
}

const SEPARATOR = '--';
const SLASH = '~';

/** Replay needs each history's own workflow id (shard ids derive from the run's), so the file name carries it. */
export function historyFileName(index: number, h: { workflowId: string; runId: string }): string {
  return `${String(index).padStart(3, '0')}${SEPARATOR}${h.workflowId.replaceAll('/', SLASH)}${SEPARATOR}${h.runId}.json`;
}

function parseFileName(file: string): { workflowId: string; runId: string } | undefined {
  const parts = file.replace(/\.json$/, '').split(SEPARATOR);
  return parts.length === 3 ? { workflowId: parts[1]!.replaceAll(SLASH, '/'), runId: parts[2]! } : undefined;
}

/**
 * Every execution of the run's workflow and of its shards, oldest first per workflow id (the run's
 * executions before its shards). Temporal keeps a closed execution only for the namespace's retention.
 */
export async function fetchRunHistories(client: Client, runWorkflowId: string): Promise<RunHistory[]> {
  const listed: { workflowId: string; runId: string; start: number }[] = [];
  const query = `WorkflowId = "${runWorkflowId}" OR WorkflowId STARTS_WITH "${runWorkflowId}/"`;
  for await (const wf of client.workflow.list({ query })) listed.push({ workflowId: wf.workflowId, runId: wf.runId, start: wf.startTime.getTime() });
  listed.sort((a, b) =>
    a.workflowId === b.workflowId ? a.start - b.start : a.workflowId === runWorkflowId ? -1 : b.workflowId === runWorkflowId ? 1 : a.workflowId.localeCompare(b.workflowId, 'en', { numeric: true }),
  );
  const out: RunHistory[] = [];
  for (const wf of listed) {
    const history = await client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
    out.push({ workflowId: wf.workflowId, runId: wf.runId, json: historyToJSON(history) });
  }
  return out;
}

/** Writes the histories as `histories/NNN--<workflow id>--<run id>.json`, replacing an earlier export. */
export async function writeHistories(runDir: string, histories: readonly RunHistory[]): Promise<string[]> {
  const dir = historiesDir(runDir);
  await mkdir(dir, { recursive: true });
  for (const f of await readdir(dir)) if (parseFileName(f)) await rm(path.join(dir, f));
  const files: string[] = [];
  for (const [i, h] of histories.entries()) {
    const file = path.join(dir, historyFileName(i, h));
    await writeFileAtomic(file, h.json);
    files.push(file);
  }
  return files;
}

/** The exported histories of a run folder, in export order; undefined when it has none. */
export async function readHistories(runDir: string): Promise<(RunHistory & { file: string })[] | undefined> {
  const dir = historiesDir(runDir);
  if (!existsSync(dir)) return undefined;
  const files = (await readdir(dir)).filter((f) => parseFileName(f)).sort();
  if (!files.length) return undefined;
  return Promise.all(files.map(async (f) => ({ ...parseFileName(f)!, file: path.join(dir, f), json: await readFile(path.join(dir, f), 'utf8') })));
}

export function parseHistory(h: RunHistory & { file?: string }): unknown {
  try {
    return JSON.parse(h.json);
  } catch (e) {
    throw new GymError('BAD_INPUT', `${h.file ?? h.workflowId} is not valid JSON: ${(e as Error).message}`);
  }
}

/** How long the server keeps a closed execution's history (the namespace's retention), e.g. "1 day". */
export async function historyRetention(client: Client): Promise<string | undefined> {
  // Only a note for the user: a server that will not describe its namespace (permissions) still serves histories.
  const ns = await client.workflowService.describeNamespace({ namespace: client.options.namespace }).catch(() => undefined);
  const seconds = Number(ns?.config?.workflowExecutionRetentionTtl?.seconds ?? 0);
  if (!seconds) return undefined;
  const days = seconds / 86_400;
  return Number.isInteger(days) ? `${days} day${days === 1 ? '' : 's'}` : `${Math.round(seconds / 3600)} hours`;
}

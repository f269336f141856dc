// Health checks over a run folder: stream the model call log, rollouts.jsonl and failures.jsonl into
// compact evidence, check each task × repeat, and write rollout_verdicts.jsonl and quality_summary.json.
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';
import { FailureRecord, ModelCallRecord } from '../schemas/records';
import { rolloutId } from '../schemas/task';
import { writeFileAtomic } from '../store/jsonl';
import { eachFileLine } from '../store/result-lines';
import { RunStore } from '../store/run-store';
import { Manifest } from '../runs/manifest';
import { checkRollout, type RecordDigest, type RolloutEvidence } from './checks';
import { RecordEvidence, digestCall, digestRecord, type CallDigest } from './evidence';
import { compareIndex, summarize, verdictRow } from './summary';
import { SUMMARY_FILE, UNKNOWN_INDEX, VERDICTS_FILE, type CheckId, type QualitySummary, type RolloutVerdict } from './types';

export interface HealthResult {
  summary: QualitySummary;
  verdicts: RolloutVerdict[];
  summaryPath: string;
  verdictsPath: string;
}

function parse(text: string): { value?: unknown; error?: string } {
  try {
    return { value: JSON.parse(text) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

const idOf = (value: unknown) =>
  value && typeof value === 'object' && typeof (value as { _ng_rollout_id?: unknown })._ng_rollout_id === 'string' ? (value as { _ng_rollout_id: string })._ng_rollout_id : undefined;

/** The tasks × repeats a run was to play, from its manifest and tasks.jsonl; undefined without them. */
async function expectedIds(runDir: string): Promise<string[] | undefined> {
  const store = new RunStore(runDir);
  const manifest = Manifest.safeParse(await store.readJson(store.manifestPath));
  if (!manifest.success || !existsSync(store.tasksPath)) return undefined;
  const tasks = await store.taskCount();
  const ids: string[] = [];
  for (let t = 0; t < tasks; t++) for (let r = 0; r < manifest.data.config.numRepeats; r++) ids.push(rolloutId({ taskIndex: t, rolloutIndex: r }));
  return ids;
}

/** Task and repeat of a Gymflow rollout id ("<task>-<repeat>"), for rollouts with no line to read them from. */
function indicesOf(id: string): { taskIndex: number | string; rolloutIndex: number | string } {
  const m = /^(\d+)-(\d+)$/.exec(id);
  return m ? { taskIndex: Number(m[1]), rolloutIndex: Number(m[2]) } : { taskIndex: UNKNOWN_INDEX, rolloutIndex: UNKNOWN_INDEX };
}

interface Claimed {
  taskIndex: number | string;
  rolloutIndex: number | string;
  record?: RecordDigest;
  failure?: FailureRecord;
  unreadable?: { file: string; line: number; error: string };
  copies: number;
}

export async function runHealthChecks(runDir: string, opts: { ignored?: readonly CheckId[] } = {}): Promise<HealthResult> {
  const ignored = new Set(opts.ignored ?? []);

  // The model call log first: per call a digest of a few numbers, joined below by call id and rollout id.
  const callDir = path.join(runDir, 'model_calls');
  const callLog = existsSync(callDir);
  const byCall = new Map<string, CallDigest | CallDigest[]>();
  const byRollout = new Map<string, CallDigest[]>();
  const unreadableCapture = new Set<string>();
  let callRecords = 0;
  let unreadableCalls = 0;
  const segments = callLog ? (await readdir(callDir)).filter((f) => f.endsWith('.jsonl')).sort() : [];
  for (const segment of segments) {
    await eachFileLine(path.join(callDir, segment), (text) => {
      callRecords++;
      const { value } = parse(text);
      const parsed = ModelCallRecord.safeParse(value);
      if (!parsed.success) {
        unreadableCalls++;
        const rid = (value as { rollout_id?: unknown } | undefined)?.rollout_id;
        if (typeof rid === 'string') unreadableCapture.add(rid);
        return;
      }
      // The checks are about the policy: a judge's calls (logged under the rollout they grade) are not its turns.
      if (parsed.data.role === 'judge') return;
      const d = digestCall(parsed.data);
      const had = byCall.get(d.callId);
      byCall.set(d.callId, had === undefined ? d : Array.isArray(had) ? [...had, d] : [had, d]);
      const list = byRollout.get(d.rolloutId);
      if (list) list.push(d);
      else byRollout.set(d.rolloutId, [d]);
    });
  }
  const callsById = (id: string): readonly CallDigest[] => {
    const found = byCall.get(id);
    return found === undefined ? [] : Array.isArray(found) ? found : [found];
  };

  // Then the results files: what each rollout id's lines say, records winning over sidecar lines.
  const claims = new Map<string, Claimed>();
  let unreadableRecords = 0;
  const anonymous: Claimed[] = [];
  const claim = (id: string, at: Omit<Claimed, 'copies'>) => {
    const had = claims.get(id);
    if (!had) return void claims.set(id, { ...at, copies: 1 });
    had.copies++;
    had.record ??= at.record;
    had.failure ??= at.failure;
    had.unreadable ??= at.unreadable;
  };
  /** Each line of a results file as a record, or as an unreadable line of the rollout it names (if any). */
  const readResults = <T>(file: string, schema: z.ZodType<T>, onRecord: (record: T) => void) =>
    eachFileLine(file, (text, line) => {
      const { value, error } = parse(text);
      const parsed = schema.safeParse(value);
      if (parsed.success) return onRecord(parsed.data);
      unreadableRecords++;
      const unreadable = { file: path.basename(file), line, error: error ?? `${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}` };
      const id = idOf(value);
      if (id) claim(id, { ...indicesOf(id), unreadable });
      else anonymous.push({ taskIndex: UNKNOWN_INDEX, rolloutIndex: UNKNOWN_INDEX, unreadable, copies: 1 });
    });
  const store = new RunStore(runDir);
  await readResults(store.rolloutsPath, RecordEvidence, (r) => claim(r._ng_rollout_id, { taskIndex: r._ng_task_index, rolloutIndex: r._ng_rollout_index, record: digestRecord(r) }));
  await readResults(store.failuresPath, FailureRecord, (f) => claim(f._ng_rollout_id, { ...indicesOf(f._ng_rollout_id), failure: f }));

  const expected = await expectedIds(runDir);
  const ids = new Set([...(expected ?? []), ...claims.keys()]);
  const verdicts: RolloutVerdict[] = [];
  const check = (id: string, c: Claimed | undefined) => {
    const at = c ?? { ...indicesOf(id), copies: 0 };
    const evidence: RolloutEvidence = {
      rolloutId: id,
      taskIndex: at.taskIndex,
      rolloutIndex: at.rolloutIndex,
      record: at.record,
      failure: at.record ? undefined : at.failure,
      unreadable: at.unreadable,
      copies: at.copies,
      callLog,
      callsById,
      observedCalls: byRollout.get(id) ?? [],
      captureUnreadable: unreadableCapture.has(id),
    };
    verdicts.push(checkRollout(evidence, ignored));
  };
  for (const id of ids) check(id, claims.get(id));
  anonymous.forEach((c) => check(`unreadable:${c.unreadable!.file}:${c.unreadable!.line}`, c));
  verdicts.sort((a, b) => compareIndex(a.taskIndex, b.taskIndex) || compareIndex(a.rolloutIndex, b.rolloutIndex) || (a.rolloutId < b.rolloutId ? -1 : 1));

  const summary = summarize(verdicts, { expected: expected?.length ?? null, unreadableRecords, modelCallRecords: callRecords, unreadableModelCallRecords: unreadableCalls }, ignored);
  const verdictsPath = path.join(runDir, VERDICTS_FILE);
  const summaryPath = path.join(runDir, SUMMARY_FILE);
  await writeFileAtomic(verdictsPath, verdicts.map((v) => JSON.stringify(verdictRow(v)) + '\n').join(''));
  await writeFileAtomic(summaryPath, JSON.stringify(summary, null, 2) + '\n');
  return { summary, verdicts, summaryPath, verdictsPath };
}

/** The one line a run's closing summary and `gym eval health-check` print. */
export function formatHealth(r: Pick<HealthResult, 'summary' | 'summaryPath'>): string {
  const v = r.summary.run.verdicts;
  return `rollout health: ${r.summary.run.rows} checked, ${v.healthy} healthy, ${v.unhealthy} unhealthy, ${v.unobserved} unobserved (${r.summaryPath})`;
}

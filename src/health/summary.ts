// From rollout verdicts to NeMo Gym's task-level checks and the run's quality summary: counts,
// fractions, coverage and issues per check, and each task's repeats. Pure.
import { ROLLOUT_CHECKS, TASK_CHECKS, UNKNOWN_INDEX, type CheckId, type QualitySummary, type RolloutVerdict, type VerdictRow } from './types';

export interface Artifacts {
  expected: number | null;
  unreadableRecords: number;
  modelCallRecords: number;
  unreadableModelCallRecords: number;
}

type TaskCheck = (typeof TASK_CHECKS)[number];
const taskOf = (v: RolloutVerdict) => String(v.taskIndex);
const inTask = (v: RolloutVerdict) => v.taskIndex !== UNKNOWN_INDEX;

/** NeMo Gym's task checks over one task's repeats; undefined for a check that could not look. */
export function checkTask(repeats: readonly RolloutVerdict[], ignored: ReadonlySet<CheckId>): Record<TaskCheck, boolean | undefined | 'ignored'> {
  const computable = repeats.filter((r) => r.verdict !== 'unobserved');
  const observed = repeats.length > 0 && repeats.every((r) => r.policyCallsObserved);
  return {
    task_consistently_unhealthy: ignored.has('task_consistently_unhealthy') ? 'ignored' : computable.length >= 2 ? computable.every((r) => r.verdict === 'unhealthy') : undefined,
    task_no_successful_model_calls: ignored.has('task_no_successful_model_calls') ? 'ignored' : observed ? !repeats.some((r) => r.successfulModelCalls > 0) : undefined,
  };
}

export function summarize(verdicts: readonly RolloutVerdict[], artifacts: Artifacts, ignored: ReadonlySet<CheckId>): QualitySummary {
  const coverage: QualitySummary['run']['artifacts']['coverage'] = {};
  const issues: Record<string, number> = {};
  const flagged: Record<string, number> = {};
  for (const id of [...ROLLOUT_CHECKS, ...TASK_CHECKS]) {
    coverage[id] = { evaluated: 0, unobserved: 0, not_applicable: 0, ignored: 0 };
    issues[id] = 0;
    flagged[id] = 0;
  }
  const counts = { healthy: 0, unhealthy: 0, unobserved: 0 };
  const source = { rollouts: 0, failures: 0, missing: 0 };
  const byStatus: Record<string, number> = {};
  let callErrors = 0;
  let affected = 0;
  let endedOnError = 0;
  const tokens = { record_input: 0, record_output: 0, capture_input: 0, capture_output: 0 };
  const tasks = new Map<string, RolloutVerdict[]>();

  for (const v of verdicts) {
    counts[v.verdict]++;
    source[v.source]++;
    for (const id of ROLLOUT_CHECKS) {
      const c = coverage[id]!;
      if (ignored.has(id)) c.ignored++;
      else if (id in v.unobserved) c.unobserved++;
      else if (v.notApplicable.includes(id)) c.not_applicable++;
      else c.evaluated++;
    }
    const seen = new Set<string>();
    for (const f of v.findings) {
      issues[f.check]!++;
      seen.add(f.check);
    }
    for (const id of seen) flagged[id]!++;
    callErrors += v.modelCallErrors;
    if (v.modelCallErrors) affected++;
    if (v.endedOnError) endedOnError++;
    for (const [status, n] of Object.entries(v.errorsByStatus)) byStatus[status] = (byStatus[status] ?? 0) + n;
    tokens.record_input += v.recordTokens.input;
    tokens.record_output += v.recordTokens.output;
    tokens.capture_input += v.captureTokens.input;
    tokens.capture_output += v.captureTokens.output;
    if (!inTask(v)) continue;
    const list = tasks.get(taskOf(v));
    if (list) list.push(v);
    else tasks.set(taskOf(v), [v]);
  }

  const taskRows: QualitySummary['tasks'] = {};
  const order = [...tasks.keys()].sort((a, b) => compareIndex(a, b));
  for (const key of order) {
    const repeats = tasks.get(key)!;
    const results = checkTask(repeats, ignored);
    const flags: CheckId[] = [];
    for (const id of TASK_CHECKS) {
      const r = results[id];
      const c = coverage[id]!;
      if (r === 'ignored') c.ignored++;
      else if (r === undefined) c.unobserved++;
      else {
        c.evaluated++;
        if (r) {
          flags.push(id);
          issues[id]!++;
          flagged[id]!++;
        }
      }
    }
    const n = { healthy: 0, unhealthy: 0, unobserved: 0 };
    for (const r of repeats) n[r.verdict]++;
    taskRows[key] = { repeats: repeats.length, ...n, flags };
  }

  const rows = verdicts.length;
  const frac = (x: number, of: number) => (of ? x / of : 0);
  const denominator = artifacts.expected ?? source.rollouts + source.failures + source.missing;
  return {
    run: {
      ignored_checks: [...ignored],
      expected: artifacts.expected,
      rows,
      artifacts: {
        records: source.rollouts,
        sidecar: source.failures,
        missing: source.missing,
        unreadable_records: artifacts.unreadableRecords,
        model_call_records: artifacts.modelCallRecords,
        unreadable_model_call_records: artifacts.unreadableModelCallRecords,
        coverage,
      },
      verdicts: counts,
      fractions: {
        healthy: frac(counts.healthy, rows),
        unhealthy: frac(counts.unhealthy, rows),
        unobserved: frac(counts.unobserved, rows),
        failed: frac(source.failures + source.missing, denominator),
      },
      issues,
      rollouts_flagged: flagged,
      stats: {
        model_call_errors: { total: callErrors, by_status: byStatus, rollouts_affected: affected, ended_on_error: endedOnError },
        tokens,
      },
    },
    tasks: taskRows,
  };
}

/** Numbers in numeric order, then anything else as text. */
export function compareIndex(a: number | string, b: number | string): number {
  const na = typeof a === 'number' ? a : /^\d+$/.test(a) ? Number(a) : Number.NaN;
  const nb = typeof b === 'number' ? b : /^\d+$/.test(b) ? Number(b) : Number.NaN;
  if (!Number.isNaN(na) && !Number.isNaN(nb)) return na - nb;
  if (!Number.isNaN(na)) return -1;
  if (!Number.isNaN(nb)) return 1;
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

export function verdictRow(v: RolloutVerdict): VerdictRow {
  return {
    _ng_task_index: v.taskIndex,
    _ng_rollout_index: v.rolloutIndex,
    rollout_id: v.rolloutId,
    source: v.source,
    verdict: v.verdict,
    findings: v.findings.map((f) => ({ check: f.check, ...(f.locator ? { locator: f.locator } : {}), detail: f.detail ?? {} })),
    unobserved: Object.keys(v.unobserved) as CheckId[],
    unobserved_reasons: v.unobserved as Record<string, string>,
  };
}

// NeMo Gym 0.7.0's aggregate metrics (`*_aggregate_metrics.json`, a resources server's `/aggregate_metrics`)
// from rollout rows of either system: per agent, its statistics per task, per repeat and overall, pass@k and majority@k. Pure.
import { majorityAtKCurve } from './pass-at-k';
import { mean, prefixSampleStds, quantileSorted, sampleStd, studentTQuantile } from './stats';

type Row = Record<string, unknown>;
type Metrics = Record<string, unknown>;

/** One `/aggregate_metrics` answer: NeMo Gym's `AggregateMetrics`. */
export interface AggregateMetrics {
  agent_metrics: Metrics;
  key_metrics: Metrics;
  group_level_metrics: Metrics[];
  repeat_level_metrics: Metrics[];
}

/** One entry of `*_aggregate_metrics.json`: one agent (or environment server) of the rollouts file. */
export interface AgentAggregate extends AggregateMetrics {
  agent_ref: { name: string };
  _ng_environment_server?: string;
}

const TASK = '_ng_task_index';
const REPEAT = '_ng_rollout_index';
/** The name NeMo Gym's aggregation gives rows that name no agent (its own synthetic rows use it). */
export const UNNAMED_AGENT = 'agent';
const DESCRIBE = ['mean', 'max', 'min', 'median', 'std'] as const;

const isRecord = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);
const indexOf = (row: Row, key: string): number => (typeof row[key] === 'number' ? (row[key] as number) : 0);

/** The value pandas would keep as a number column: numbers, and booleans as 0/1. */
function numeric(v: unknown): number | undefined {
  if (typeof v === 'boolean') return v ? 1 : 0;
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** What one scored rollout contributes: its numeric fields (the usage counts over its own), its `rollout_infos` line, its answer. */
interface Scored {
  task: number;
  repeat: number;
  columns: Map<string, number>;
  info: Metrics;
  reward: number | undefined;
  answer: unknown;
  hasAnswer: boolean;
}

function scoredOf(row: Row): Scored {
  const usage = isRecord(row.response) && isRecord(row.response.usage) ? row.response.usage : {};
  const task = indexOf(row, TASK);
  const repeat = indexOf(row, REPEAT);
  // The rollout's own fields win in its info line, the usage counts in the columns: NeMo Gym builds them in those orders.
  const info: Metrics = { rollout_id: `${task}:${repeat}`, [TASK]: task, [REPEAT]: repeat };
  if ('reward' in row) info.reward = row.reward;
  const columns = new Map<string, number>();
  const own = Object.entries(row).filter(([k]) => !k.startsWith('_') && k !== 'mask_sample');
  for (const [k, v] of Object.entries(usage)) {
    const n = numeric(v);
    if (n !== undefined) info[k] = n;
  }
  for (const [k, v] of own) {
    const n = numeric(v);
    if (n === undefined) continue;
    columns.set(k, n);
    if (k !== 'reward') info[k] = n;
  }
  for (const [k, v] of Object.entries(usage)) {
    const n = numeric(v);
    if (n !== undefined && !k.startsWith('_')) columns.set(k, n);
  }
  return { task, repeat, columns, info, reward: numeric(row.reward), answer: row.extracted_answer, hasAnswer: 'extracted_answer' in row };
}

function median(sorted: readonly number[]): number {
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const ascending = (xs: readonly number[]) => [...xs].sort((a, b) => a - b);
const minOf = (xs: readonly number[]) => xs.reduce((a, b) => Math.min(a, b));
const maxOf = (xs: readonly number[]) => xs.reduce((a, b) => Math.max(a, b));

/** The column names of a set of rollouts, in the order they first appear (a data frame's column order). */
function columnNames(rollouts: readonly Scored[]): string[] {
  const names = new Set<string>();
  for (const r of rollouts) for (const k of r.columns.keys()) names.add(k);
  return [...names];
}

/**
 * NeMo Gym's `describe` of a group of rollouts: mean, max, min, median and sample std of each column, over
 * the rollouts that have it. When no column has a std (a single rollout) the complete columns get 0.
 */
function describe(rollouts: readonly Scored[], names: readonly string[]): Metrics {
  const values = names.map((name) => rollouts.flatMap((r) => (r.columns.has(name) ? [r.columns.get(name)!] : [])));
  const stds: (number | undefined)[] = values.map((xs) => (xs.length > 1 ? sampleStd(xs)! : undefined));
  if (!stds.some((s) => s !== undefined)) {
    values.forEach((xs, i) => {
      if (xs.length > 0 && xs.length === rollouts.length) stds[i] = 0;
    });
  }
  const out: Metrics = {};
  for (const stat of DESCRIBE) {
    names.forEach((name, i) => {
      const xs = values[i]!;
      if (stat === 'std') {
        if (stds[i] !== undefined) out[`std/${name}`] = stds[i];
      } else if (xs.length) {
        out[`${stat}/${name}`] = stat === 'mean' ? mean(xs) : stat === 'max' ? maxOf(xs) : stat === 'min' ? minOf(xs) : median(ascending(xs));
      }
    });
  }
  return out;
}

/** A 95% t interval, as NeMo Gym gives it: none for a single value, a point when the error is 0. */
function interval95(m: number, se: number, n: number): [number, number] | undefined {
  if (n <= 1) return undefined;
  if (se === 0) return [m, m];
  const half = studentTQuantile(0.975, n - 1) * se;
  return [m - half, m + half];
}

/** Each repeat's statistics over the tasks it has, when there are several repeats. */
function repeatLevel(rollouts: readonly Scored[], names: readonly string[]): Metrics[] {
  // Grouped in one pass: a filter per repeat was quadratic (minutes for 20,000 repeats).
  const byRepeat = new Map<number, Scored[]>();
  for (const r of rollouts) {
    const group = byRepeat.get(r.repeat);
    if (group) group.push(r);
    else byRepeat.set(r.repeat, [r]);
  }
  const repeats = [...byRepeat.keys()].sort((a, b) => a - b);
  if (repeats.length < 2) return [];
  const totalTasks = new Set(rollouts.map((r) => r.task)).size;
  return repeats.map((repeat) => {
    const group = byRepeat.get(repeat)!;
    const present = new Set(group.map((r) => r.task)).size;
    const entry: Metrics = { [REPEAT]: repeat, sample_count: present, missing_count: totalTasks - present };
    for (const name of names) {
      const xs = group.flatMap((r) => (r.columns.has(name) ? [r.columns.get(name)!] : []));
      if (!xs.length) continue;
      const sorted = ascending(xs);
      const m = mean(xs)!;
      const std = xs.length > 1 ? sampleStd(xs)! : 0;
      const sem = std / Math.sqrt(xs.length);
      Object.assign(entry, {
        [`mean/${name}`]: m,
        [`median/${name}`]: median(sorted),
        [`std/${name}`]: std,
        [`sem/${name}`]: sem,
        [`min/${name}`]: sorted[0],
        [`max/${name}`]: sorted[sorted.length - 1],
        [`p25/${name}`]: quantileSorted(sorted, 0.25),
        [`p75/${name}`]: quantileSorted(sorted, 0.75),
      });
      const ci = interval95(m, sem, xs.length);
      if (ci) [entry[`ci_low_95/${name}`], entry[`ci_high_95/${name}`]] = ci;
    }
    return entry;
  });
}

const ACROSS = '_across_repeats/';
const EXCLUDED_PREFIXES = ['max/', 'min/', 'median/', 'std/', 'sem/', 'se/', 'p25/', 'p75/', 'ci_low_95/', 'ci_high_95/', 'histogram/'];
const EXCLUDED_SUFFIXES = [
  '/max',
  '/min',
  '/median',
  '/p5',
  '/p25',
  '/p75',
  '/p95',
  '/ci_low_95',
  '/ci_high_95',
  '/ci_lower',
  '/ci_upper',
  '_ci_lower',
  '_ci_upper',
  '_ci95_lower',
  '_ci95_upper',
  '/_ng_attempt_index',
  '/std_dev_across_runs',
  '/std_err_across_runs',
  '/avg_sample_std_dev',
];
const EXCLUDED_NAMES = new Set([TASK, REPEAT, '_ng_attempt_index', 'sample_count', 'missing_count', 'num_repeats', 'token_usage_version']);

/** NeMo Gym's primary metric: a point estimate, which is what is summarized across repeats. */
export function isPrimaryMetric(name: string): boolean {
  return !EXCLUDED_NAMES.has(name) && !EXCLUDED_PREFIXES.some((p) => name.startsWith(p)) && !EXCLUDED_SUFFIXES.some((s) => name.endsWith(s)) && !name.includes(ACROSS);
}

/** Each repeat's point estimates summarized across the repeats (`mean_across_repeats/mean/reward`, …). */
function acrossRepeats(repeats: readonly Metrics[]): Metrics {
  const names = new Set<string>();
  for (const r of repeats) for (const [k, v] of Object.entries(r)) if (typeof v === 'number' && isPrimaryMetric(k)) names.add(k);
  const out: Metrics = {};
  for (const name of names) {
    const xs = repeats.flatMap((r) => (typeof r[name] === 'number' ? [r[name] as number] : []));
    const sorted = ascending(xs);
    const m = mean(xs)!;
    const std = xs.length > 1 ? sampleStd(xs)! : 0;
    const se = std / Math.sqrt(xs.length);
    Object.assign(out, {
      [`mean${ACROSS}${name}`]: m,
      [`median${ACROSS}${name}`]: median(sorted),
      [`std${ACROSS}${name}`]: std,
      [`min${ACROSS}${name}`]: sorted[0],
      [`max${ACROSS}${name}`]: sorted[sorted.length - 1],
      [`se${ACROSS}${name}`]: se,
    });
    const ci = interval95(m, se, xs.length);
    if (ci) [out[`ci_low_95${ACROSS}${name}`], out[`ci_high_95${ACROSS}${name}`]] = ci;
  }
  return out;
}

/**
 * 1 − C(incorrect, k)/C(n, k) for every k from 1 to n (index k − 1): NeMo Gym's pass@k of 0/1 scores. Both
 * binomials follow from their values at k − 1, exactly (as Python's integers) while they fit a double's
 * integers, so the ratio is the correctly rounded one NeMo Gym gets; past that, as a running product of the
 * factors (incorrect − k + 1)/(n − k + 1), within a few ulps. Per k from scratch, 20,000 repeats took minutes.
 */
function binaryPassCurve(incorrect: number, n: number): number[] {
  const curve: number[] = [];
  let chosenWrong = 1n;
  let chosen = 1n;
  let ratio: number | undefined;
  for (let k = 1; k <= n; k++) {
    if (ratio === undefined) {
      chosenWrong = (chosenWrong * BigInt(Math.max(0, incorrect - k + 1))) / BigInt(k);
      chosen = (chosen * BigInt(n - k + 1)) / BigInt(k);
      if (chosen <= BigInt(Number.MAX_SAFE_INTEGER)) {
        curve.push(incorrect < k ? 1 : 1 - Number(chosenWrong) / Number(chosen));
        continue;
      }
      ratio = Number(chosenWrong) / Number(chosen);
    } else ratio *= Math.max(0, incorrect - k + 1) / (n - k + 1);
    curve.push(incorrect < k ? 1 : 1 - ratio);
  }
  return curve;
}

/** Running statistics of a task's first k scores for every k (index k − 1). */
function prefixCurves(values: readonly (number | undefined)[]): { max: number[]; mean: (number | undefined)[] } {
  const max: number[] = [];
  const meanOf: (number | undefined)[] = [];
  let best = -Infinity;
  let sum = 0;
  let n = 0;
  for (const v of values) {
    if (v !== undefined) {
      best = Math.max(best, v);
      sum += v;
      n++;
    }
    max.push(best);
    meanOf.push(n ? sum / n : undefined);
  }
  return { max, mean: meanOf };
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

/**
 * NeMo Gym's `compute_pass_majority_metrics` with the reward as `accuracy` (and, when the rows carry an
 * `extracted_answer`, `no_answer` and majority@k): pass@k (combinatorial for 0/1 scores, the best of the
 * first k otherwise), pass@1[avg-of-k], majority@k, each repeat's pass@1 and their spread. Percentages.
 * Each task's values at every k are computed once, then averaged per k.
 */
function passMajority(tasks: readonly Scored[][]): Metrics {
  if (!tasks.length) return {};
  const answered = tasks.some((t) => t.some((r) => r.hasAnswer));
  const scores = tasks.map((t) =>
    t.map((r) => ({ accuracy: r.reward, ...(answered ? { no_answer: r.answer === null || r.answer === undefined ? 1 : 0 } : {}) }) as Record<string, number | undefined>),
  );
  const answers = tasks.map((t) => t.map((r) => (r.answer === undefined ? null : r.answer)));
  const names = [...new Set(scores.flatMap((t) => t.flatMap((s) => Object.keys(s))))].sort();
  const maxK = tasks.reduce((most, t) => Math.max(most, t.length), 0);
  const curves = new Map(
    names.map((name) => [
      name,
      scores.map((task, i) => {
        const column = task.map((s) => s[name]);
        const vals = column.filter((v): v is number => v !== undefined);
        const binary = vals.every((v) => v === 0 || v === 1);
        const prefix = prefixCurves(column);
        // majority@k votes among the first k samples with an answer and this score.
        const valid = column.map((v, j) => (answers[i]![j] !== null && v !== undefined ? j : -1)).filter((j) => j >= 0);
        const votes = majorityAtKCurve(
          valid.map((j) => column[j]!),
          valid.map((j) => JSON.stringify(answers[i]![j])),
        );
        const majority: number[] = [];
        let seen = 0;
        for (let k = 1; k <= task.length; k++) {
          while (seen < valid.length && valid[seen]! < k) seen++;
          majority.push(seen ? votes[seen - 1]! : 0);
        }
        return {
          vals: vals.length,
          // Past 0/1, the best of the first k scores the task has (samples without one skipped).
          pass: binary ? binaryPassCurve(vals.filter((v) => !v).length, vals.length) : prefixCurves(vals).max,
          avg: prefix.mean,
          majority,
        };
      }),
    ]),
  );
  const out: Metrics = {};
  for (let k = 1; k <= maxK; k++) {
    for (const name of names) {
      const perTask = curves.get(name)!;
      const pass = perTask.flatMap((t) => (t.vals && k <= t.vals ? [t.pass[k - 1]!] : []));
      if (pass.length) out[`pass@${k}/${name}`] = (100 * sum(pass)) / pass.length;
      const avg = perTask.flatMap((t) => {
        const v = t.avg[Math.min(k, t.avg.length) - 1];
        return v === undefined ? [] : [v];
      });
      if (avg.length) out[`pass@1[avg-of-${k}]/${name}`] = (100 * sum(avg)) / avg.length;
      if (answered) {
        const majority = perTask.map((t) => t.majority[Math.min(k, t.majority.length) - 1] ?? 0);
        out[`majority@${k}/${name}`] = (100 * sum(majority)) / majority.length;
      }
    }
  }
  const perSample: Record<string, number[]> = {};
  for (let run = 0; run < maxK; run++) {
    for (const name of names) {
      const xs = scores.flatMap((task) => (run < task.length && task[run]![name] !== undefined ? [task[run]![name]!] : []));
      if (xs.length) (perSample[name] ??= []).push((100 * sum(xs)) / xs.length);
    }
  }
  out.per_sample_aggregate = perSample;
  const stds = new Map(names.map((name) => [name, prefixSampleStds(perSample[name] ?? [])]));
  for (let k = 2; k <= maxK; k++) {
    for (const name of names) {
      const runs = Math.min(k, perSample[name]?.length ?? 0);
      if (runs < 2) continue;
      const std = stds.get(name)![runs - 1]!;
      out[`pass@1[avg-of-${k}]/${name}/std_dev_across_runs`] = std;
      out[`pass@1[avg-of-${k}]/${name}/std_err_across_runs`] = std / Math.sqrt(runs);
    }
  }
  return out;
}

/** NeMo Gym's `highest_k_metrics`: the entries of `pattern` (with `{k}`) at their highest k, for one score name. */
function highestK(metrics: Metrics, pattern: string, scoreName: string): Metrics {
  const escaped = pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace('\\{k\\}', '(\\d+)');
  const re = new RegExp(`^${escaped}/(.+)$`);
  const matches = Object.keys(metrics).flatMap((key) => {
    const m = re.exec(key);
    return m && m[2] === scoreName ? [{ k: Number(m[1]), key }] : [];
  });
  if (!matches.length) return {};
  const top = Math.max(...matches.map((m) => m.k));
  return Object.fromEntries(matches.filter((m) => m.k === top).map((m) => [m.key, metrics[m.key]]));
}

/** The headline metrics: NeMo Gym's default (every `mean/…`) and the accuracy at the highest k. */
function keyMetrics(agent: Metrics): Metrics {
  return {
    ...Object.fromEntries(Object.entries(agent).filter(([k]) => k.startsWith('mean/'))),
    ...highestK(agent, 'pass@1[avg-of-{k}]', 'accuracy'),
    ...highestK(agent, 'pass@{k}', 'accuracy'),
    ...highestK(agent, 'majority@{k}', 'accuracy'),
  };
}

/** A rollout as aggregation keeps it: its key, whether it is masked, and what a measured one contributes. */
interface Reduced {
  task: number;
  repeat: number;
  /** Absent for a masked sample: its reward is not a measurement. */
  scored?: Scored;
}

const reduce = (row: Row): Reduced => ({ task: indexOf(row, TASK), repeat: indexOf(row, REPEAT), ...(row.mask_sample ? {} : { scored: scoredOf(row) }) });

/** How much of the rollouts the metrics were computed from, when some were masked (`mask_sample`). */
function coverage(all: readonly Reduced[], measured: readonly Scored[]): Metrics {
  const masked = all.length - measured.length;
  if (!masked) return {};
  const measuredTasks = new Set(measured.map((r) => r.task));
  const allTasks = new Set(all.map((r) => r.task));
  return {
    'coverage/measured_rollouts': measured.length,
    'coverage/masked_rollouts': masked,
    'coverage/measured_tasks': measuredTasks.size,
    'coverage/fully_masked_tasks': [...allTasks].filter((t) => !measuredTasks.has(t)).length,
  };
}

const byKey = (a: Scored, b: Scored) => a.task - b.task || a.repeat - b.repeat;

/**
 * One agent's verify responses aggregated as NeMo Gym's `/aggregate_metrics` does, plus pass@k and
 * majority@k on the reward. Masked samples leave the quality metrics and are reported as coverage.
 */
export function aggregateVerifyResponses(rows: readonly Row[]): AggregateMetrics {
  return aggregateReduced(rows.map(reduce));
}

function aggregateReduced(rows: readonly Reduced[]): AggregateMetrics {
  if (!rows.length) return { agent_metrics: {}, key_metrics: {}, group_level_metrics: [], repeat_level_metrics: [] };
  const measured = rows.flatMap((r) => (r.scored ? [r.scored] : [])).sort(byKey);
  const cover = coverage(rows, measured);
  if (!measured.length) return { agent_metrics: { ...cover }, key_metrics: { ...cover }, group_level_metrics: [], repeat_level_metrics: [] };
  const names = columnNames(measured);
  const tasks = new Map<number, Scored[]>();
  for (const r of measured) {
    const task = tasks.get(r.task);
    if (task) task.push(r);
    else tasks.set(r.task, [r]);
  }
  const groups = [...tasks.entries()].map(([task, rollouts]) => ({
    [TASK]: task,
    ...describe(rollouts, names),
    sample: { agent_ref: { name: UNNAMED_AGENT } },
    num_rollouts: rollouts.length,
    expected_num_rollouts: rollouts.length,
    missing_num_rollouts: 0,
    reward_profile_completion_pct: 100,
    rollout_infos: rollouts.map((r) => r.info),
  }));
  const repeats = repeatLevel(measured, names);
  const agent: Metrics = {
    ...describe(measured, names),
    ...acrossRepeats(repeats),
    ...cover,
    ...passMajority([...tasks.values()]),
    num_repeats: new Set(rows.map((r) => r.repeat)).size,
  };
  return { agent_metrics: agent, key_metrics: { ...keyMetrics(agent), ...cover }, group_level_metrics: groups, repeat_level_metrics: repeats };
}

/** What ran a rollout, as NeMo Gym groups rows: its environment server, else its agent. */
function runKey(row: Row): { key: string; server?: string; agent?: string } {
  const agent = isRecord(row.agent_ref) && typeof row.agent_ref.name === 'string' ? row.agent_ref.name : undefined;
  const server = typeof row._ng_environment_server === 'string' ? row._ng_environment_server : undefined;
  return { key: server ?? agent ?? UNNAMED_AGENT, server, agent: agent ?? (server ? undefined : UNNAMED_AGENT) };
}

/**
 * Labels as NeMo Gym's `label_runs`: a run is labelled by its agent when that agent names only that run,
 * else by its own key, so every label is unique.
 */
function labelRuns(agents: ReadonlyMap<string, string | undefined>): Map<string, string> {
  const keysOf = new Map<string, number>();
  for (const agent of agents.values()) if (agent !== undefined) keysOf.set(agent, (keysOf.get(agent) ?? 0) + 1);
  const labels = new Map([...agents].map(([key, agent]) => [key, agent !== undefined && keysOf.get(agent) === 1 ? agent : key]));
  for (;;) {
    const counts = new Map<string, number>();
    for (const l of labels.values()) counts.set(l, (counts.get(l) ?? 0) + 1);
    const clashing = [...labels].filter(([key, l]) => counts.get(l)! > 1 && l !== key);
    if (!clashing.length) return labels;
    for (const [key] of clashing) labels.set(key, key);
  }
}

/** Rollout rows reduced to what aggregation needs, one at a time (a run's file need not fit in memory). */
export class RolloutAggregator {
  private readonly runs = new Map<string, { server?: string; agent?: string; rows: Reduced[] }>();

  /** Keeps only the rollout's numbers (not its episode or task text), so memory grows with the rollouts' numeric fields. */
  add(row: Row): void {
    const { key, server, agent } = runKey(row);
    let run = this.runs.get(key);
    if (!run) this.runs.set(key, (run = { server, agent, rows: [] }));
    run.rows.push(reduce(row));
  }

  /** One entry per agent (or environment server), in the order they first appear. */
  result(): AgentAggregate[] {
    const labels = labelRuns(new Map([...this.runs].map(([key, run]) => [key, run.agent])));
    return [...this.runs].map(([key, run]) => ({
      agent_ref: { name: labels.get(key)! },
      ...(run.server ? { _ng_environment_server: run.server } : {}),
      ...aggregateReduced(run.rows),
    }));
  }
}

export function aggregateRollouts(rows: Iterable<Row>): AgentAggregate[] {
  const acc = new RolloutAggregator();
  for (const row of rows) acc.add(row);
  return acc.result();
}

const isIndex = (v: unknown) => v === undefined || (typeof v === 'number' && Number.isInteger(v) && v >= 0);

/** Why a rollouts-file row cannot be aggregated, or undefined when it can: what NeMo Gym's aggregation reads must be there. */
export function rolloutRowProblem(row: unknown): string | undefined {
  if (!isRecord(row)) return 'not a JSON object';
  if (typeof row.reward !== 'number' && typeof row.reward !== 'boolean') return row.reward === undefined ? 'no reward' : `reward is ${JSON.stringify(row.reward)}, not a number`;
  for (const key of [TASK, REPEAT]) if (!isIndex(row[key])) return `${key} is ${JSON.stringify(row[key])}, not a non-negative integer`;
  if (row.mask_sample !== undefined && typeof row.mask_sample !== 'boolean') return `mask_sample is ${JSON.stringify(row.mask_sample)}, not a boolean`;
  if (row.agent_ref !== undefined && !(isRecord(row.agent_ref) && typeof row.agent_ref.name === 'string')) return 'agent_ref has no name';
  return undefined;
}

// What the report shows beside the headline: per environment/agent/model tables (through the run's own
// metric functions, so a group's numbers mean what metrics.json's do), histogram bins and the pass@k curve.
import { computeRunMetrics, type RunMetrics } from '../metrics/aggregate';
import { mean } from '../metrics/stats';
import type { ReportRollout } from './read-run';

export type Dimension = 'environment' | 'agent' | 'model';
export const DIMENSIONS: readonly Dimension[] = ['environment', 'agent', 'model'];

export interface GroupRow {
  label: string;
  metrics: RunMetrics;
  /** Mean of each numeric series (tokens, turns, latencies) over the group's rollouts that carry it. */
  seriesMeans: Record<string, number>;
}

export function groupTable(rollouts: readonly ReportRollout[], dimension: Dimension): GroupRow[] {
  const groups = new Map<string, ReportRollout[]>();
  for (const r of rollouts) {
    const g = groups.get(r[dimension]);
    if (g) g.push(r);
    else groups.set(r[dimension], [r]);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([label, rs]) => {
      const metrics = computeRunMetrics({
        rollouts: rs.map((r) => ({ taskIndex: r.task, rolloutIndex: r.repeat, reward: r.reward, rewardComponents: r.rewardComponents })),
        failureClasses: [],
        expected: rs.length,
      });
      const values: Record<string, number[]> = {};
      for (const r of rs) for (const [k, v] of Object.entries(r.series)) (values[k] ??= []).push(v);
      return { label, metrics, seriesMeans: Object.fromEntries(Object.entries(values).map(([k, v]) => [k, mean(v)!])) };
    });
}

export interface Histogram {
  /** Bar labels: the value itself for a few distinct values, else the bin's lower edge. */
  labels: string[];
  counts: number[];
  /** Each bar's [low, high) range (the last bar includes high). */
  edges: [number, number][];
}

const DISTINCT_MAX = 12;

const short = (x: number) => (Number.isInteger(x) ? String(x) : Math.abs(x) >= 100 ? x.toFixed(0) : x.toPrecision(3));

/** Bars over the values: one per value when there are few distinct ones (binary rewards), else equal-width bins. */
export function histogram(values: readonly number[], bins = 20): Histogram {
  if (!values.length) return { labels: [], counts: [], edges: [] };
  let lo = Infinity;
  let hi = -Infinity;
  const distinct = new Map<number, number>();
  for (const v of values) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
    if (distinct.size <= DISTINCT_MAX) distinct.set(v, (distinct.get(v) ?? 0) + 1);
  }
  if (distinct.size <= DISTINCT_MAX) {
    const keys = [...distinct.keys()].sort((a, b) => a - b);
    return { labels: keys.map(short), counts: keys.map((k) => distinct.get(k)!), edges: keys.map((k) => [k, k]) };
  }
  const width = (hi - lo) / bins;
  const counts = new Array<number>(bins).fill(0);
  for (const v of values) counts[Math.min(bins - 1, Math.floor((v - lo) / width))]!++;
  const edges = counts.map((_, i) => [lo + i * width, i === bins - 1 ? hi : lo + (i + 1) * width] as [number, number]);
  return { labels: edges.map(([a]) => short(a)), counts, edges };
}

/** The pass@k values metrics.json holds, by k: a number per key, or an object carrying one (value/estimate/mean). */
export function passAtKCurve(metrics: Record<string, unknown>): { k: number; value: number }[] {
  const table = metrics.pass_at_k;
  if (!table || typeof table !== 'object') return [];
  const out: { k: number; value: number }[] = [];
  for (const [key, v] of Object.entries(table as Record<string, unknown>)) {
    const k = Number(/(\d+)\s*$/.exec(key)?.[1]);
    const o = v as Record<string, unknown> | null;
    const value = typeof v === 'number' ? v : [o?.value, o?.estimate, o?.mean].find((x) => typeof x === 'number');
    if (Number.isInteger(k) && typeof value === 'number') out.push({ k, value });
  }
  return out.sort((a, b) => a.k - b.k);
}

/** The numeric series every rollout could carry, in display order, with a label and unit. */
export const SERIES_LABELS: Record<string, string> = {
  latency_total_ms: 'total latency (ms)',
  latency_model_ms: 'model latency (ms)',
  latency_tool_ms: 'tool latency (ms)',
  latency_verify_ms: 'verify latency (ms)',
  latency_sandbox_ms: 'sandbox latency (ms)',
  latency_queueing_ms: 'queueing (ms)',
  input_tokens: 'input tokens',
  output_tokens: 'output tokens',
  reasoning_tokens: 'reasoning tokens',
  turns: 'turns',
  tool_calls: 'tool calls',
  failed_tool_calls: 'failed tool calls',
};

/** Each series' values over the rollouts, the known ones first, then any others a record carried. */
export function seriesValues(rollouts: readonly ReportRollout[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const key of Object.keys(SERIES_LABELS)) out.set(key, []);
  for (const r of rollouts) {
    for (const [k, v] of Object.entries(r.series)) {
      let list = out.get(k);
      if (!list) out.set(k, (list = []));
      list.push(v);
    }
  }
  for (const [k, v] of out) if (!v.length) out.delete(k);
  return out;
}

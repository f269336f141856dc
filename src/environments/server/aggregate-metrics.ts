// NeMo Gym's default `/aggregate_metrics`, without the per-task groups: for every numeric field of
// the verify responses (and the token counts in `response.usage`), its mean, median, spread and range.
import { mean, sampleStd } from '../../metrics/stats';

export interface AggregateMetrics {
  group_level_metrics: Record<string, unknown>[];
  agent_metrics: Record<string, number>;
  key_metrics: Record<string, number>;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The columns pandas would average: numbers and booleans (as 0/1); nested objects and `_ng_*` bookkeeping are skipped. */
function numericFields(row: Record<string, unknown>): [string, number][] {
  const usage = isRecord(row.response) && isRecord(row.response.usage) ? row.response.usage : {};
  const out: [string, number][] = [];
  for (const [key, value] of Object.entries({ ...row, ...usage })) {
    if (key.startsWith('_')) continue;
    if (typeof value === 'boolean') out.push([key, value ? 1 : 0]);
    else if (typeof value === 'number' && Number.isFinite(value)) out.push([key, value]);
  }
  return out;
}

function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function aggregateVerifyResponses(rows: readonly Record<string, unknown>[]): AggregateMetrics {
  // A field missing from some rows is averaged over the rows that have it, as pandas skips NaN.
  const columns = new Map<string, number[]>();
  for (const row of rows) {
    for (const [field, value] of numericFields(row)) {
      const xs = columns.get(field);
      if (xs) xs.push(value);
      else columns.set(field, [value]);
    }
  }
  const agent: Record<string, number> = {};
  const key: Record<string, number> = {};
  for (const [field, xs] of columns) {
    key[`mean/${field}`] = agent[`mean/${field}`] = mean(xs)!;
    // reduce, not Math.max(...xs): a run's worth of rollouts would overflow the argument list.
    agent[`max/${field}`] = xs.reduce((a, b) => Math.max(a, b));
    agent[`min/${field}`] = xs.reduce((a, b) => Math.min(a, b));
    agent[`median/${field}`] = median(xs);
    agent[`std/${field}`] = sampleStd(xs)!;
  }
  return { group_level_metrics: [], agent_metrics: agent, key_metrics: key };
}

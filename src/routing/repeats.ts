// NeMo Gym's `num_repeats` over routed rows: one number for every row, or a mapping keyed by the agent a row
// is dispatched to or by the row's own routing key (its agent_ref name or task_source as written), the
// dispatched agent first, `_default` for the rest. Pure; every row without an entry is reported at once.
import { z } from 'zod';
import { DEFAULT_KEY } from './route';

export const NumRepeats = z.union([z.number().int().min(1), z.record(z.string(), z.number().int().min(1))]);

/** A routed row as num_repeats sees it: the agent it goes to, and the key it was routed by. */
export interface RepeatKeys {
  readonly agent: string;
  readonly basis: string | undefined;
}

export interface Repeats {
  /** Every row's repeats, when they differ (absent: `uniform` for all). */
  readonly perRow?: number[];
  /** The one number of repeats of every row, when they agree (absent: no num_repeats key). */
  readonly uniform?: number;
  readonly problems: string[];
  readonly warnings: string[];
}

export function routedRepeats(setting: unknown, rows: readonly RepeatKeys[]): Repeats {
  if (setting === undefined || setting === null) return { problems: [], warnings: [] };
  const parsed = NumRepeats.safeParse(setting);
  if (!parsed.success) return { problems: [`num_repeats: a number ≥ 1, or a mapping of agent (or agent_ref / task_source) to a number ≥ 1, got ${JSON.stringify(setting)}`], warnings: [] };
  if (typeof parsed.data === 'number') return { uniform: parsed.data, problems: [], warnings: [] };
  const map = parsed.data;
  const fallback = map[DEFAULT_KEY];
  const seen = new Set<string>();
  const missing = new Set<string>();
  const perRow = rows.map((r) => {
    const keys = [...new Set([r.agent, r.basis].filter((k): k is string => k !== undefined))];
    keys.forEach((k) => seen.add(k));
    const hit = keys.find((k) => k !== DEFAULT_KEY && map[k] !== undefined);
    if (hit !== undefined) return map[hit]!;
    if (fallback !== undefined) return fallback;
    missing.add(keys.join(' / '));
    return 0;
  });
  const listed = Object.keys(map)
    .filter((k) => k !== DEFAULT_KEY)
    .sort();
  const problems = missing.size ? [`num_repeats has no entry for routing key(s) ${[...missing].sort().join(', ')} and no _default; listed: ${listed.join(', ') || 'none'}`] : [];
  const unused = listed.filter((k) => !seen.has(k));
  const warnings = unused.length ? [`num_repeats names ${unused.join(', ')}, which no routed row has as its agent, agent_ref or task_source (a typo?)`] : [];
  const distinct = new Set(perRow);
  if (distinct.size <= 1) return { uniform: perRow[0] ?? fallback ?? 1, problems, warnings };
  return { perRow, problems, warnings };
}

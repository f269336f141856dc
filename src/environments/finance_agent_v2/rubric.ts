// The FABv2 rubric: criteria parsed from the row's JSON string, a judge reply's 0/1 verdict, and Vals's
// Partial Credit over the per-criterion verdicts (severity-weighted, zero when a must_pass criterion fails).
import { jsonLoads, jsonLoadsPlain, toPlainJson, type PyJson } from '../../python/json';

export interface Criterion {
  criteria: string;
  operator: unknown;
  severity: number;
  must_pass: boolean;
}

/** One criterion's outcome; `score` null means the judge never gave enough usable verdicts. */
export interface Judgement extends Criterion {
  score: 0 | 1 | null;
  votes: (0 | 1)[];
  votes_for: number;
  votes_against: number;
  unanimous: boolean | null;
  attempts_used: number;
  parse_failures: number;
  api_failures: number;
  evidence: string[];
  reasons: string[];
  error: string | null;
}

function pyLoads(text: string): unknown {
  try {
    return jsonLoadsPlain(text);
  } catch {
    return undefined;
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A missing, non-positive, NaN or infinite severity weighs 1.0, as NeMo Gym coerces it rather than failing the row. */
function modifiers(entry: Record<string, unknown>): { severity: number; must_pass: boolean } {
  const m = entry.modifiers;
  if (!isRecord(m)) return { severity: 1, must_pass: false };
  const raw = m.severity;
  let severity = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw.trim()) : NaN;
  if (typeof raw === 'boolean') severity = raw ? 1 : 0;
  if (!(severity > 0) || !Number.isFinite(severity)) severity = 1;
  return { severity, must_pass: m.category === 'must_pass' };
}

/** The usable criteria of a rubric string; [] (an unscorable dry run) for anything that is not a JSON list. */
export function parseRubric(rubric: string | null | undefined): Criterion[] {
  if (!rubric) return [];
  const parsed = pyLoads(rubric);
  if (!Array.isArray(parsed)) return [];
  return parsed.flatMap((entry) => {
    if (!isRecord(entry) || typeof entry.criteria !== 'string' || !entry.criteria.trim()) return [];
    return [{ criteria: entry.criteria.trim(), operator: entry.operator ?? null, ...modifiers(entry) }];
  });
}

/**
 * The top-level `{…}` spans of a text, by brace depth outside JSON strings: judges quote answers with
 * LaTeX braces (`EBITDAR_{WMT}`), which a lazy regex would split mid-object.
 */
export function jsonObjects(text: string): string[] {
  const spans: string[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (ch === '\\') escaped = true;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{') {
      if (depth === 0) start = i;
      depth++;
    } else if (ch === '}' && depth) {
      depth--;
      if (depth === 0) spans.push(text.slice(start, i + 1));
    }
  }
  return spans;
}

/** The last JSON object with a `score` key; the verdict is its score when that is the integer 0 or 1. */
export function judgeVerdict(text: string): { score: 0 | 1 | null; payload: Record<string, unknown> } {
  for (const blob of jsonObjects(text).reverse()) {
    let parsed: PyJson;
    try {
      parsed = jsonLoads(blob);
    } catch {
      continue;
    }
    if (!(parsed instanceof Map) || !parsed.has('score')) continue;
    // Python ints only: "pass", 1.0 and true are not votes.
    const score = parsed.get('score');
    const verdict = score === 0n ? 0 : score === 1n ? 1 : null;
    return { score: verdict, payload: toPlainJson(parsed) as Record<string, unknown> };
  }
  return { score: null, payload: {} };
}

/** Vals's Partial Credit and the counts beside it; only an affirmative pass counts, unresolved weighs as a miss. */
export function aggregate(judgements: readonly Judgement[]) {
  const total = judgements.length;
  const passed = judgements.filter((j) => j.score === 1).length;
  const unresolved = judgements.filter((j) => j.score === null).length;
  const weightTotal = judgements.reduce((s, j) => s + j.severity, 0);
  const weightPassed = judgements.reduce((s, j) => s + (j.score === 1 ? j.severity : 0), 0);
  const weighted = weightTotal ? weightPassed / weightTotal : null;
  const dealbreakers = judgements.filter((j) => j.must_pass);
  const dealbreakersFailed = dealbreakers.filter((j) => j.score !== 1).length;
  return {
    rubric_total: total,
    rubric_passed: passed,
    rubric_unresolved: unresolved,
    rubric_fraction: total ? passed / total : null,
    rubric_all_pass: unresolved === 0 && passed === total,
    rubric_partial_credit: dealbreakersFailed ? 0 : (weighted ?? 0),
    rubric_weighted_fraction: weighted,
    rubric_weight_total: weightTotal,
    rubric_weight_passed: weightPassed,
    rubric_dealbreakers_total: dealbreakers.length,
    rubric_dealbreakers_failed: dealbreakersFailed,
  };
}

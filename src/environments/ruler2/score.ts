// RULER v2's soft string match: per reference, max(substring found, 1 − word error rate), both sides
// lower-cased, aggregated over the references as the row's match_type says.
import { PyRegex } from '../../python/regex';
import { pySplit } from '../../python/str';

export const MATCH_TYPES = ['all', 'part', '2steps'] as const;
export type MatchType = (typeof MATCH_TYPES)[number];

// A document header ("Document 3:") and the lines after it up to the first blank line.
const DOCUMENT_HEADER = new PyRegex('Document \\d+:(?:.*\\n)+?\\n');

/** Levenshtein distance over words (insert, delete, substitute: cost 1 each). */
function wordEditDistance(a: readonly string[], b: readonly string[]): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** Word error rate of a hypothesis against a reference; infinite for a reference without words. */
export function wordErrorRate(hypothesis: string, reference: string): number {
  const ref = pySplit(reference);
  if (ref.length === 0) return Infinity;
  return wordEditDistance(pySplit(hypothesis), ref) / ref.length;
}

export function softMatch(prediction: string, reference: string): number {
  const p = prediction.toLowerCase();
  const r = reference.toLowerCase();
  return Math.max(p.includes(r) ? 1 : 0, 1 - wordErrorRate(p, r));
}

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

/** The row's score in [0, 1]; no references score 0. */
export function stringMatch(matchType: MatchType, prediction: string, references: readonly string[]): number {
  if (references.length === 0) return 0;
  switch (matchType) {
    case 'all':
      return mean(references.map((r) => softMatch(prediction, r)));
    case 'part': {
      const stripped = DOCUMENT_HEADER.sub(prediction, () => '');
      return Math.max(...references.map((r) => softMatch(stripped, r)));
    }
    case '2steps': {
      const last = prediction.split('\n\n').at(-1)!;
      return mean(references.map((r) => softMatch(last, r)));
    }
  }
}

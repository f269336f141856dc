// HotpotQA's answer check as Aviary runs it: both answers normalised (lowercase, ASCII punctuation and
// English articles removed, whitespace collapsed), then case-folded; correct when the gold is contained.
import { PY_WORD_CLASS, pySplit, pyStrip } from '../../python/str';

// Python's string.punctuation: ASCII only, so typographic quotes and dashes survive normalisation.
const PUNCTUATION = new Set('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~');
// Python's `\b` is a boundary between a Unicode word character and anything else.
const ARTICLES = new RegExp(`(?<![${PY_WORD_CLASS}])(?:a|an|the)(?![${PY_WORD_CLASS}])`, 'gu');

/** HotpotQA's normalize_answer: lower, drop punctuation, drop articles, collapse whitespace. */
export function normalizeAnswer(text: string): string {
  const noPunctuation = [...text.toLowerCase()].filter((ch) => !PUNCTUATION.has(ch)).join('');
  return pySplit(noPunctuation.replace(ARTICLES, ' ')).join(' ');
}

/**
 * Python's str.casefold() for comparing lowercase text: per code point, upper then lower case, which is
 * full case folding except for the dotless ı (kept) and Cherokee (folded to lowercase instead of
 * uppercase, which keeps equality and containment the same).
 */
function foldCase(text: string): string {
  return [...text].map((ch) => (ch === 'ı' ? ch : ch.toUpperCase().toLowerCase())).join('');
}

/** Aviary's eval_answer in `contains` mode over the normalised answers. */
export function containsGold(submitted: string, gold: string): boolean {
  const pred = foldCase(pyStrip(normalizeAnswer(submitted)));
  return pred.includes(foldCase(pyStrip(normalizeAnswer(gold))));
}

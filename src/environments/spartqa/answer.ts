// How SpartQA reads a model's final answer and resolves it to one of the four choose-object labels,
// as NeMo Gym 0.7.0's spartqa server does: a verbatim (article- and punctuation-blind) match, an alias
// of "both"/"none", or the one candidate the answer contains; two candidates named is no answer.
import { PyRegex } from '../../python/regex';
import { pySplit, pySplitlines, pyStrip } from '../../python/str';

export const BOTH_LABEL = 'both of them';
export const NONE_LABEL = 'none of them';

const BOTH_ALIASES = new Set(['both', 'both of them', 'both objects', 'both of the objects', 'both of these']);
// SpartQA counts DK / None / [] alike: none of the named objects holds.
const NONE_ALIASES = new Set(['none', 'none of them', 'none of the objects', 'neither', 'neither of them', 'neither object', 'no object', 'dk', 'do not know', 'dont know']);

// Python's string.punctuation.
const ASCII_PUNCTUATION = new Set('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~');

/** Stripped, lower-cased, ASCII punctuation dropped, whitespace runs collapsed. */
export function normalize(text: string): string {
  const lowered = [...pyStrip(text).toLowerCase()].filter((ch) => !ASCII_PUNCTUATION.has(ch)).join('');
  return pySplit(lowered).join(' ');
}

const LEADING_ARTICLE = new PyRegex('^(?:a|an|the)\\s+');

/** The comparison key of a label or a prediction: normalized, one leading article dropped. */
export function labelKey(text: string): string {
  return pyStrip(LEADING_ARTICLE.sub(normalize(text), () => ''));
}

const THINK_BLOCK = new PyRegex('<think>.*?</think>', 'is');
const CHANNEL_THOUGHT = new PyRegex('<\\|channel>thought\\s*.*?<channel\\|>', 'is');

function stripReasoning(text: string): string {
  return pyStrip(
    CHANNEL_THOUGHT.sub(
      THINK_BLOCK.sub(text, () => ''),
      () => '',
    ),
  );
}

const LEADING_BULLETS = new PyRegex('^[-*•\\s]+');
const EDGE_STARS = new PyRegex('^\\*+|\\*+$');
const THINK_TAG = new PyRegex('</?think>', 'i');

function cleanCandidate(text: string): string {
  let s = LEADING_BULLETS.sub(pyStrip(text), () => '');
  s = pyStrip(EDGE_STARS.sub(s, () => ''));
  s = pyStrip(THINK_TAG.sub(s, () => ''));
  return pyStrip(pyStrip(s), '"\'` ');
}

// Tried in order; the first that yields an answer wins, and within it the last match.
const ANSWER_PATTERNS = [
  '(?:^|\\n)\\s*(?:[*_`#>\\-\\s]*)final\\s+answer(?:\\s+is)?\\s*(?:[*_`\\s])*[:\\-]\\s*(.+)',
  '(?:^|\\n)\\s*(?:[*_`#>\\-\\s]*)selected\\s+answer(?:\\s+is)?\\s*(?:[*_`\\s])*[:\\-]\\s*(.+)',
  '(?:^|\\n)\\s*(?:[*_`#>\\-\\s]*)answer(?:\\s+is)?\\s*(?:[*_`\\s])*[:\\-]\\s*(.+)',
  '\\b(?:the\\s+)?(?:final\\s+)?answer\\s+(?:is|would\\s+be|should\\s+be)\\s*[:\\-]?\\s*(.+)',
  '\\bselected\\s+(?:option|answer)\\s+(?:is|would\\s+be)\\s*[:\\-]?\\s*(.+)',
].map((p) => new PyRegex(p, 'im'));

const PREAMBLE_STARTS = ['thinking process', 'analysis', 'the user wants', 'we need'];

/** The answer phrase: the last "Final answer: …"-style capture (the prompt's own template excluded), else the text's first line. */
export function extractAnswer(raw: string): string {
  let text = stripReasoning(raw);
  let extracted: string | null = null;
  for (const pattern of ANSWER_PATTERNS) {
    const captures = [...pattern.matches(text)].map((m) => pyStrip(m.groups[0] ?? '')).filter((c) => c !== '' && normalize(c) !== 'candidate answer');
    if (captures.length) {
      extracted = captures.at(-1)!;
      break;
    }
  }
  if (extracted !== null) text = extracted;
  const lines = pySplitlines(text)
    .filter((line) => pyStrip(line) !== '')
    .map(cleanCandidate)
    .filter((line) => line !== '' && normalize(line) !== 'final answer' && normalize(line) !== 'answer');
  if (!lines.length) return '';
  // Without an answer line, a reasoning preamble's conclusion is its last line.
  if (extracted === null && lines.length > 1 && PREAMBLE_STARTS.some((p) => normalize(lines[0]!).startsWith(p))) return lines.at(-1)!;
  return lines[0]!;
}

/** The two story objects, then "both of them" and "none of them", without repeats by key. */
export function candidateLabels(options: readonly string[]): string[] {
  const labels: string[] = [];
  const seen = new Set<string>();
  for (const label of [...options, BOTH_LABEL, NONE_LABEL]) {
    const key = labelKey(label);
    if (key && !seen.has(key)) {
      seen.add(key);
      labels.push(pyStrip(label));
    }
  }
  return labels;
}

/** The one label a free-text answer names, or null (nothing, or several: ambiguous). */
export function matchLabel(prediction: string, labels: readonly string[]): string | null {
  const key = labelKey(prediction);
  if (!key) return null;
  const byKey = new Map(labels.map((label) => [labelKey(label), label]));
  const values = new Set(byKey.values());
  if (byKey.has(key)) return byKey.get(key)!;
  if (BOTH_ALIASES.has(key) && values.has(BOTH_LABEL)) return byKey.get(labelKey(BOTH_LABEL))!;
  if (NONE_ALIASES.has(key) && values.has(NONE_LABEL)) return byKey.get(labelKey(NONE_LABEL))!;
  const contained = [...byKey.keys()].filter((k) => k !== '' && key.includes(k));
  // One object may be named inside the other ("a triangle in block B" in "a big blue triangle in block B"): the most specific wins.
  const hits = contained.filter((h) => !contained.some((other) => other !== h && other.includes(h)));
  return hits.length === 1 ? byKey.get(hits[0]!)! : null;
}

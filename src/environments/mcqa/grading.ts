// How mcqa reads the chosen letter out of a model's answer, mode by mode, as NeMo Gym v0.6.0 does:
// the task's own output_regex first, then the grading mode's rule. Null means "no answer found".
import { GymError } from '../../errors';
import { lastBoxedContent, peelTextWrappers } from './boxed';
import { PyRegex } from '../../python/regex';
import { collapseLower, pyIsAlpha, pyLen, pyStrip } from '../../python/str';

export const GRADING_MODES = ['strict_single_letter_boxed', 'lenient_boxed', 'lenient_answer_colon', 'lenient_answer_colon_md'] as const;
export type GradingMode = (typeof GRADING_MODES)[number];

/** `options` as tasks carry it: single-key objects, letter → option text (null = no such option). */
export type Options = readonly Record<string, string | null>[];

/** The option letters a prediction may be: single alphabetic keys with a non-null text, upper-cased. */
export function allowedLetters(options: Options | null | undefined): Set<string> {
  const letters = new Set<string>();
  for (const entry of options ?? []) {
    for (const [key, text] of Object.entries(entry)) {
      if (text !== null && pyLen(key) === 1 && pyIsAlpha(key)) letters.add(key.toUpperCase());
    }
  }
  return letters;
}

/** The letter whose option text equals `candidate`, ignoring case and spacing. */
function optionWithText(candidate: string, options: Options | null | undefined, allowed: Set<string>): string | null {
  const wanted = collapseLower(candidate);
  for (const entry of options ?? []) {
    for (const [key, text] of Object.entries(entry)) {
      if (text !== null && allowed.has(key.toUpperCase()) && collapseLower(text) === wanted) return key.toUpperCase();
    }
  }
  return null;
}

// Localised option letters (Arabic, Bengali, full-width) that MMMLU-style templates ask for.
const LOCALISED_LETTERS: [string, string][] = [
  ['أ', ' A'],
  ['ب', ' B'],
  ['ج', ' C'],
  ['د', ' D'],
  ['অ', ' A'],
  ['ব', ' B'],
  ['ড', ' C'],
  ['ঢ', ' D'],
  ['Ａ', ' A'],
  ['Ｂ', ' B'],
  ['Ｃ', ' C'],
  ['Ｄ', ' D'],
];

function normaliseLocalisedLetters(s: string): string {
  for (const [from, to] of LOCALISED_LETTERS) s = s.replaceAll(from, to);
  return pyStrip(s);
}

// --- template_metadata.output_regex ------------------------------------------------------------

/** The task's regexes are case-insensitive; the task schema refuses one that does not compile so. */
export const TEMPLATE_REGEX_FLAGS = 'i';

/**
 * The last match of the task's own regex, run under the regex deadline (a task's pattern may backtrack
 * catastrophically). A single letter is trusted even when it is not an option; otherwise the capture
 * must equal an option's text.
 */
function letterFromTemplateRegex(text: string, pattern: string, options: Options | null | undefined, allowed: Set<string>): string | null {
  const regex = new PyRegex(pattern, TEMPLATE_REGEX_FLAGS, { guarded: true });
  const matches = regex.findall(text);
  if (matches.length === 0) return null;
  const last = matches.at(-1)!;
  if (typeof last !== 'string') {
    // NeMo Gym's verify crashes on the tuple findall returns for several groups: the task is unusable.
    throw new GymError('BAD_INPUT', `mcqa output_regex ${JSON.stringify(pattern)} has ${regex.groupCount} capture groups; use at most one`);
  }
  const captured = normaliseLocalisedLetters(pyStrip(last)).toUpperCase();
  if (pyLen(captured) === 1 && pyIsAlpha(captured)) return captured;
  return optionWithText(captured, options, allowed);
}

export function letterFromTemplateRegexes(text: string, patterns: string | readonly string[], options: Options | null | undefined, allowed: Set<string>): string | null {
  for (const pattern of typeof patterns === 'string' ? [patterns] : patterns) {
    const letter = letterFromTemplateRegex(text, pattern, options, allowed);
    if (letter !== null) return letter;
  }
  return null;
}

// --- strict_single_letter_boxed and lenient_boxed ------------------------------------------------

// A box holding only a letter among non-letters ("E", "[C]", "(B)"), or a letter then a label
// delimiter ("E: …", "C) …"). Upper-case only: a lower-case letter is not an answer here.
const LETTER_ONLY = /^[^A-Za-z]*([A-Z])[^A-Za-z]*$/;
const LETTER_LABEL = new PyRegex('^\\s*([A-Z])\\s*[:).\\-]');

export function letterFromStrictBox(text: string, allowed: Set<string>): string | null {
  const inner = lastBoxedContent(text);
  if (inner === null) return null;
  const content = peelTextWrappers(pyStrip(inner));
  const letter = LETTER_ONLY.exec(content)?.[1] ?? LETTER_LABEL.search(content)?.groups[0] ?? null;
  return letter !== null && allowed.has(letter) ? letter : null;
}

/** The one option whose text appears inside the last box (raw or \text-peeled); null if 0 or ≥2 do. */
export function letterFromBoxedOptionText(text: string, options: Options | null | undefined, allowed: Set<string>): string | null {
  const inner = lastBoxedContent(text);
  if (inner === null) return null;
  const stripped = pyStrip(inner);
  const candidates = [stripped, peelTextWrappers(stripped)].map(collapseLower);
  const matched = new Set<string>();
  for (const entry of options ?? []) {
    for (const [key, optionText] of Object.entries(entry)) {
      if (optionText === null || pyLen(key) !== 1 || !allowed.has(key.toUpperCase())) continue;
      const wanted = collapseLower(optionText);
      if (wanted !== '' && candidates.some((c) => c.includes(wanted))) matched.add(key.toUpperCase());
    }
  }
  return matched.size === 1 ? [...matched][0]! : null;
}

// --- lenient_answer_colon -------------------------------------------------------------------------

const ANSWER_COLON = new PyRegex('answer\\s*:\\s*(.+)', 'i');

/** The first "Answer: …" line: a single allowed letter, or the exact text of an option. */
export function letterFromAnswerColon(text: string, options: Options | null | undefined, allowed: Set<string>): string | null {
  const m = ANSWER_COLON.search(text);
  if (!m) return null;
  const candidate = pyStrip(peelTextWrappers(m.groups[0]!));
  if (pyLen(candidate) === 1 && pyIsAlpha(candidate) && allowed.has(candidate.toUpperCase())) return candidate.toUpperCase();
  return optionWithText(candidate, options, allowed);
}

// --- lenient_answer_colon_md ----------------------------------------------------------------------

// "Answer:" with optional markdown emphasis around the word and after the colon.
const MD_ANSWER_PAYLOAD = new PyRegex('[*_]{0,2}Answer[*_]{0,2}\\s*:[*_\\s]{0,2}(.+)', 'im');
const ISOLATED_LETTER = /(?<![A-Za-z])[A-Za-z](?![A-Za-z])/g;
const LIST_SEPARATOR = new PyRegex('\\s*[/|&,;]\\s*|\\s+(?:or|and)\\s+|\\s+', 'i');
const LEADING_LETTER = /^[A-Za-z](?![A-Za-z0-9])/;
const LAST_STANDALONE_CAPITAL = new PyRegex('\\b[A-Z]\\b(?!.*\\b[A-Z]\\b)', 's');

/** "A/B", "A or B", "A, B": two different allowed letters joined only by a list separator. */
function isAmbiguousList(candidate: string, allowed: Set<string>): boolean {
  const letters = [...candidate.matchAll(ISOLATED_LETTER)].filter((m) => allowed.has(m[0].toUpperCase()));
  return letters.some((left, i) => {
    const right = letters[i + 1];
    if (!right || left[0].toUpperCase() === right[0].toUpperCase()) return false;
    return LIST_SEPARATOR.fullmatch(candidate.slice(left.index + 1, right.index)) !== null;
  });
}

function letterFromPayload(payload: string, allowed: Set<string>): string | null {
  const candidate = pyStrip(normaliseLocalisedLetters(payload), '*_` \t\n\r.,;:');
  if (isAmbiguousList(candidate, allowed)) return null;
  const letter = pyLen(candidate) === 1 ? candidate : (LEADING_LETTER.exec(candidate)?.[0] ?? LAST_STANDALONE_CAPITAL.search(candidate)?.text ?? '');
  return letter !== '' && allowed.has(letter.toUpperCase()) ? letter.toUpperCase() : null;
}

/** The last "Answer:" payload (markdown-tolerant) that yields one allowed letter. */
export function letterFromMarkdownAnswer(text: string, allowed: Set<string>): string | null {
  const payloads = MD_ANSWER_PAYLOAD.findall(text) as string[];
  for (let i = payloads.length - 1; i >= 0; i--) {
    const letter = letterFromPayload(payloads[i]!, allowed);
    if (letter !== null) return letter;
  }
  return null;
}

export function letterForMode(mode: GradingMode, text: string, options: Options | null | undefined, allowed: Set<string>): string | null {
  switch (mode) {
    case 'strict_single_letter_boxed':
      return letterFromStrictBox(text, allowed);
    case 'lenient_boxed':
      return letterFromStrictBox(text, allowed) ?? letterFromBoxedOptionText(text, options, allowed);
    case 'lenient_answer_colon':
      return letterFromAnswerColon(text, options, allowed);
    case 'lenient_answer_colon_md':
      return letterFromMarkdownAnswer(text, allowed);
  }
}

// string_match's case-insensitive grader (NeMo RL's string-match verifier): a ladder of ever looser
// normalisations, each tried on both answers; full credit on the first that makes them equal, 0.98
// when they are numerically within ~1%, else 0.
import { balancedContent } from '../mcqa/boxed';
import { PyRegex } from '../../python/regex';
import { pyLen, pyRstrip, pySplit, pyStrip } from '../../python/str';
import { pyFloat, pyFloatRepr } from '../../python/number';
import { US_STATE_ABBREVIATIONS } from './us_states';

export const NEAR_NUMERIC_REWARD = 0.98;

function stripOuterQuotes(s: string): string {
  return s.length >= 2 && s[0] === s.at(-1) && (s[0] === '"' || s[0] === "'") ? s.slice(1, -1) : s;
}

function stripTrailingPunctuation(s: string): string {
  return pyRstrip(s, '.!?') || s;
}

function asFloatText(s: string): string {
  const value = pyFloat(pyStrip(s.replaceAll('\\%', '').replaceAll('\\$', '').replaceAll('$', '')));
  return value === null ? s : pyFloatRepr(value);
}

const THOUSANDS = new PyRegex('(\\d+),(\\d+)');

function mergeThousands(s: string): string {
  return THOUSANDS.sub(s, (m) => m.groups[0]! + m.groups[1]!).replaceAll('\\%', '%');
}

const LATEX_WRAPPERS = ['\\boxed', '\\text', '\\textbf', '\\textit', '\\texttt', '\\mathrm', '\\mathbf', '\\mathit', '\\mathsf', '\\mathbb', '\\mathcal', '\\emph', '\\url'];

/** Drops every `command{` and its matching `}`, keeping the content; an unclosed one loses only `command{`. */
function unwrapCommand(command: string, s: string): string {
  const open = `${command}{`;
  for (let at = s.indexOf(open); at !== -1; at = s.indexOf(open)) {
    const rest = s.slice(at + open.length);
    const inner = balancedContent(rest, 0);
    s = s.slice(0, at) + (inner === null ? rest : inner + rest.slice(inner.length + 1));
  }
  return s;
}

function stripLatex(s: string): string {
  for (const command of LATEX_WRAPPERS) s = unwrapCommand(command, s);
  for (const token of ['\\(', '\\)', '\\[', '\\]', '$']) s = s.replaceAll(token, '');
  return pySplit(s).join(' ');
}

/** Separators and the substrings "and"/"or" become spaces, unless that removes over 10% of the text. */
function listWords(s: string): string {
  const words = s.replaceAll(',', ' ').replaceAll(';', ' ').replaceAll('and', ' ').replaceAll('or', ' ');
  return pyLen(words) < 0.9 * pyLen(s) ? s : pySplit(words).join(' ');
}

function abbreviateStates(s: string): string {
  for (const [name, abbreviation] of US_STATE_ABBREVIATIONS) s = s.replaceAll(name, abbreviation);
  return listWords(s).toLowerCase();
}

const UNICODE_MATH: [string, string][] = [
  ['°', '^\\circ'],
  ['²', '^2'],
  ['³', '^3'],
  ['⁴', '^4'],
  ['⁵', '^5'],
  ['⁶', '^6'],
  ['⁷', '^7'],
  ['⁸', '^8'],
  ['⁹', '^9'],
  ['√', '\\sqrt'],
  ['﹣', '-'],
  ['﹢', '+'],
  ['﹦', '='],
  ['﹤', '<'],
  ['﹥', '>'],
  ['：', ':'],
  ['π', '\\pi'],
];

function latexUnicodeMath(s: string): string {
  for (const [from, to] of UNICODE_MATH) s = s.replaceAll(from, to);
  return s;
}

// Degrees and metric units; note the bare "m" also deletes that letter from words.
const UNITS = new PyRegex('\\^\\{?\\\\circ\\}?|\\\\circ|°|cm[²³]?|mm|km|m[²³]?|kg');

function dropUnits(s: string): string {
  return UNITS.sub(s, () => '');
}

function numericPart(s: string): string {
  for (const ch of '$£€%,') s = s.replaceAll(ch, '');
  return pyStrip(dropUnits(latexUnicodeMath(s)).replaceAll('\\%', '').replaceAll('\\$', ''));
}

/** (1 − relative error)², clipped at 0; 0 when either side is not a number. */
function numericCloseness(expected: string, predicted: string): number {
  const p = pyFloat(numericPart(predicted));
  const g = pyFloat(numericPart(expected));
  if (p === null || g === null) return 0;
  const closeness = 1 - Math.abs(p - g) / Math.max(Math.abs(g), 1e-9);
  // Python's max(0.0, x) keeps 0.0 when x is NaN, where Math.max would give NaN.
  const clipped = closeness > 0 ? closeness : 0;
  return clipped * clipped;
}

const EQUIVALENCES: ((s: string) => string)[] = [(s) => s, asFloatText, mergeThousands, stripLatex, listWords, abbreviateStates];

export function gradeStringMatch(expected: string, predicted: string): number {
  const prepare = (s: string) => stripTrailingPunctuation(stripOuterQuotes(s.normalize('NFKC')).toLowerCase());
  const gt = prepare(expected);
  const pred = prepare(predicted);
  if (EQUIVALENCES.some((normalise) => normalise(pred) === normalise(gt))) return 1.0;
  if (numericCloseness(gt, pred) > NEAR_NUMERIC_REWARD) return NEAR_NUMERIC_REWARD;
  const bare = (s: string) => pyStrip(dropUnits(latexUnicodeMath(stripLatex(s))));
  if (bare(pred) === bare(gt)) return 1.0;
  return numericCloseness(bare(gt), bare(pred)) > NEAR_NUMERIC_REWARD ? NEAR_NUMERIC_REWARD : 0.0;
}

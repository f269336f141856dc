// NLTK's Punkt sentence tokenizer (what IFEval's number_sentences and word_tokenize use), ported
// without its trained English model: the candidate-boundary scan, token typing, realignment and
// both annotation passes follow NLTK, while the learned abbreviation, collocation and orthographic
// tables are replaced by the short hand-made lists in punkt_lists.ts. Counts therefore match NLTK
// on ordinary prose and may differ around rare abbreviations.
import { pyRstrip } from '../../../python/str';
import { pyRegExp } from '../../../python/regex';
import { ABBREVIATIONS, SENTENCE_STARTERS } from './punkt_lists';

const NON_WORD = `(?:[)";}\\]\\*:@\\'\\({\\[\\u2018\\u2019\\u201c\\u201d\\xab\\xbb!?])`;
const MULTI_CHAR = '(?:\\-{2,}|\\.{2,}|(?:\\.\\s){2,}\\.)';
const WORD_START = '[^\\(\\"\\`{\\[:;&\\#\\*@\\)}\\]\\-,]';
const WORD_TOKEN = pyRegExp(`(${MULTI_CHAR}|(?=${WORD_START})\\S+?(?=\\s|$|${NON_WORD}|${MULTI_CHAR}|,(?=$|\\s|${NON_WORD}|${MULTI_CHAR}))|\\S)`);
const PERIOD_CONTEXT = pyRegExp(`[\\.\\?!](?=(?P<after_tok>${NON_WORD}|\\s+(?P<next_tok>\\S+)))`);
const BOUNDARY_REALIGNMENT = pyRegExp('["\\\')\\]}\\u2018\\u2019\\u201c\\u201d\\xab\\xbb]+?(?:\\s+|(?=--)|$)', 'm');
const NUMERIC = /^-?[.,]?\p{Nd}[\p{Nd},.-]*\.?$/u;
const ELLIPSIS = /^\.\.+$/;
const INITIAL = /^(?!\p{Nd})[\p{L}\p{N}_]\.$/u;
const PUNCTUATION = new Set(';:,.!?');
const ASCII_WHITESPACE = new Set(' \t\n\r\x0b\x0c');

interface Token {
  tok: string;
  type: string;
  sentbreak: boolean;
  abbr: boolean;
  ellipsis: boolean;
}

function makeToken(tok: string): Token {
  return { tok, type: NUMERIC.test(tok.toLowerCase()) ? '##number##' : tok.toLowerCase(), sentbreak: false, abbr: false, ellipsis: false };
}

const periodFinal = (t: Token) => t.tok.endsWith('.');
const typeNoPeriod = (t: Token) => (t.type.length > 1 && t.type.endsWith('.') ? t.type.slice(0, -1) : t.type);
const typeNoSentperiod = (t: Token) => (t.sentbreak ? typeNoPeriod(t) : t.type);
const firstUpper = (t: Token) => /^\p{Lu}/u.test(t.tok) || /^\p{Lt}/u.test(t.tok);
const firstLower = (t: Token) => /^\p{Ll}/u.test(t.tok);

function firstPass(t: Token): void {
  const tok = t.tok;
  if (tok === '.' || tok === '?' || tok === '!') t.sentbreak = true;
  else if (ELLIPSIS.test(tok)) t.ellipsis = true;
  else if (periodFinal(t) && !tok.endsWith('..')) {
    const stem = tok.slice(0, -1).toLowerCase();
    if (ABBREVIATIONS.has(stem) || ABBREVIATIONS.has(stem.split('-').at(-1)!)) t.abbr = true;
    else t.sentbreak = true;
  }
}

/**
 * NLTK asks its learned orthographic table whether the next word starts a sentence. Without the
 * table: a lower-case word never does, a capitalised common sentence starter does, anything else
 * (names, numbers) is unknown.
 */
function orthoHeuristic(next: Token): boolean | 'unknown' {
  if (PUNCTUATION.has(next.tok)) return false;
  if (firstUpper(next) && SENTENCE_STARTERS.has(typeNoSentperiod(next))) return true;
  if (firstLower(next)) return false;
  return 'unknown';
}

function secondPass(t: Token, next: Token | undefined): void {
  if (!next || !periodFinal(t)) return;
  const isInitial = INITIAL.test(t.tok);
  if ((t.abbr || t.ellipsis) && !isInitial) {
    const starter = orthoHeuristic(next);
    if (starter === true) {
      t.sentbreak = true;
      return;
    }
    if (firstUpper(next) && SENTENCE_STARTERS.has(typeNoSentperiod(next))) {
      t.sentbreak = true;
      return;
    }
  }
  if (isInitial || typeNoPeriod(t) === '##number##') {
    const starter = orthoHeuristic(next);
    if (starter === false || (starter === 'unknown' && isInitial && firstUpper(next))) {
      t.sentbreak = false;
      t.abbr = true;
    }
  }
}

function containsSentbreak(context: string): boolean {
  const tokens = [...context.matchAll(WORD_TOKEN)].map((m) => makeToken(m[0]));
  tokens.forEach(firstPass);
  tokens.forEach((t, i) => secondPass(t, tokens[i + 1]));
  return tokens.slice(0, -1).some((t) => t.sentbreak);
}

/** NLTK's _get_last_whitespace_index: ASCII whitespace only, and 0 both for "none" and "at 0". */
function lastWhitespaceIndex(text: string): number {
  for (let i = text.length - 1; i >= 0; i--) if (ASCII_WHITESPACE.has(text[i]!)) return i;
  return 0;
}

function* potentialEnds(text: string): Generator<{ match: RegExpExecArray; context: string }> {
  let prevSlice = [0, 0] as [number, number];
  let prevMatch: RegExpExecArray | undefined;
  const contextOf = (m: RegExpExecArray, slice: [number, number]) => text.slice(...slice) + m[0] + m.groups!.after_tok!;
  for (const match of text.matchAll(PERIOD_CONTEXT)) {
    const before = text.slice(prevSlice[1], match.index);
    const ws = lastWhitespaceIndex(before);
    const start = ws ? ws + prevSlice[1] + 1 : prevSlice[0];
    const wordSlice: [number, number] = [start, match.index];
    if (prevMatch && prevSlice[1] <= wordSlice[0]) yield { match: prevMatch, context: contextOf(prevMatch, prevSlice) };
    prevMatch = match as RegExpExecArray;
    prevSlice = wordSlice;
  }
  if (prevMatch) yield { match: prevMatch, context: contextOf(prevMatch, prevSlice) };
}

function slices(text: string): [number, number][] {
  const out: [number, number][] = [];
  let lastBreak = 0;
  for (const { match, context } of potentialEnds(text)) {
    if (!containsSentbreak(context)) continue;
    const end = match.index + match[0].length;
    out.push([lastBreak, end]);
    const nextTok = match.groups!.next_tok;
    lastBreak = nextTok ? end + match.groups!.after_tok!.length - nextTok.length : end;
  }
  out.push([lastBreak, pyRstrip(text).length]);
  return out;
}

/** Closing quotes and brackets after a break belong to the sentence before it. */
function realign(text: string, raw: [number, number][]): [number, number][] {
  const out: [number, number][] = [];
  let shift = 0;
  raw.forEach(([start, stop], i) => {
    const s1: [number, number] = [start + shift, stop];
    const s2 = raw[i + 1];
    if (!s2) {
      if (s1[1] > s1[0]) out.push(s1);
      return;
    }
    BOUNDARY_REALIGNMENT.lastIndex = 0;
    const next = text.slice(...s2);
    const m = BOUNDARY_REALIGNMENT.exec(next);
    if (m && m.index === 0) {
      out.push([s1[0], s2[0] + pyRstrip(m[0]).length]);
      shift = m[0].length;
    } else {
      shift = 0;
      if (s1[1] > s1[0]) out.push(s1);
    }
  });
  return out;
}

/** nltk.sent_tokenize(text) for English. */
export function sentTokenize(text: string): string[] {
  return realign(text, slices(text)).map(([a, b]) => text.slice(a, b));
}

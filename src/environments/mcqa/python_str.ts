// Python `str` methods whose behaviour differs from JavaScript's nearest equivalents. NeMo Gym's
// graders strip, split and measure text the Python way, so ported graders must too.

/** The characters `str.isspace()` (and the regex `\s`) accept: wider than ASCII, not JS's `\s`. */
export const PY_WHITESPACE_CLASS = '\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';

const WS = new RegExp(`[${PY_WHITESPACE_CLASS}]`, 'u');
const WS_RUN = new RegExp(`[${PY_WHITESPACE_CLASS}]+`, 'u');
const LINE_BREAK = /\r\n|[\n\x0b\x0c\r\x1c\x1d\x1e\x85\u2028\u2029]/;

function stripSet(chars: string | undefined): (ch: string) => boolean {
  if (chars === undefined) return (ch) => WS.test(ch);
  const set = new Set(chars);
  return (ch) => set.has(ch);
}

/** `s.lstrip(chars)`; without chars, Unicode whitespace. */
function pyLstrip(s: string, chars?: string): string {
  const strip = stripSet(chars);
  const cps = [...s];
  let i = 0;
  while (i < cps.length && strip(cps[i]!)) i++;
  return cps.slice(i).join('');
}

/** `s.rstrip(chars)`; without chars, Unicode whitespace. */
export function pyRstrip(s: string, chars?: string): string {
  const strip = stripSet(chars);
  const cps = [...s];
  let j = cps.length;
  while (j > 0 && strip(cps[j - 1]!)) j--;
  return cps.slice(0, j).join('');
}

/** `s.strip(chars)`; without chars, Unicode whitespace. */
export function pyStrip(s: string, chars?: string): string {
  return pyRstrip(pyLstrip(s, chars), chars);
}

/** `s.split()` with no separator: runs of Unicode whitespace, no empty pieces. */
export function pySplit(s: string): string[] {
  return s.split(WS_RUN).filter((piece) => piece !== '');
}

/** `s.splitlines()`: Python also breaks on \v, \f, \x1c–\x1e, \x85 and the Unicode separators. */
export function pySplitlines(s: string): string[] {
  if (s === '') return [];
  const lines = s.split(LINE_BREAK);
  // A trailing line break does not start another line.
  if (LINE_BREAK.test(s.slice(-1))) lines.pop();
  return lines;
}

/** `len(s)`: Python counts code points, JS counts UTF-16 units. */
export function pyLen(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** `s.isalpha()`: non-empty and every code point a letter. */
export function pyIsAlpha(s: string): boolean {
  return /^\p{L}+$/u.test(s);
}

/** `" ".join(s.lower().split())`: the case- and spacing-insensitive form NeMo Gym compares texts in. */
export function collapseLower(s: string): string {
  return pySplit(s.toLowerCase()).join(' ');
}

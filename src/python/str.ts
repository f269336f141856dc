// Python `str` methods where JavaScript's nearest equivalents differ (Unicode whitespace, length and order by
// code point, case predicates, str.format): NeMo Gym's graders strip, split and compare text the Python way.

/** The characters `str.isspace()` (and the regex `\s`) accept: JS's `\s` has U+FEFF and lacks U+001C–U+001F and U+0085. */
export const PY_WHITESPACE_CLASS = '\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
/** The characters of the regex `\w`: letters, digits and numerals of any script, and "_" (combining marks are not). */
export const PY_WORD_CLASS = '\\p{L}\\p{N}_';

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

/** Python's `<` on str compares code points; JS's compares UTF-16 units. A sort comparator. */
export function compareCodePoints(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const ca = ia.next();
    const cb = ib.next();
    if (ca.done || cb.done) return ca.done && cb.done ? 0 : ca.done ? -1 : 1;
    const diff = ca.value.codePointAt(0)! - cb.value.codePointAt(0)!;
    if (diff !== 0) return diff;
  }
}

/** `s.isalpha()`: non-empty and every code point a letter. */
export function pyIsAlpha(s: string): boolean {
  return /^\p{L}+$/u.test(s);
}

/** `s.isdigit()` for decimal digits and the superscript, subscript and circled digits. */
export function pyIsDigit(s: string): boolean {
  return s !== '' && /^[\p{Nd}\u00b2\u00b3\u00b9\u2070\u2074-\u2079\u2080-\u2089\u2460-\u2468\u24f5-\u24fd\u2776-\u277e]+$/u.test(s);
}

/** `s.isupper()`: at least one cased character and no lower- or title-case one. */
export function pyIsUpper(s: string): boolean {
  return /[\p{Uppercase}\p{Lowercase}\p{Lt}]/u.test(s) && !/[\p{Lowercase}\p{Lt}]/u.test(s);
}

/** `s.islower()`: at least one cased character and no upper- or title-case one. */
export function pyIsLower(s: string): boolean {
  return /[\p{Uppercase}\p{Lowercase}\p{Lt}]/u.test(s) && !/[\p{Uppercase}\p{Lt}]/u.test(s);
}

/** `s.zfill(width)`. */
export function zfill(s: string, width: number): string {
  const sign = s.startsWith('-') || s.startsWith('+') ? s[0]! : '';
  return sign + s.slice(sign.length).padStart(width - sign.length, '0');
}

/** `" ".join(s.lower().split())`: the case- and spacing-insensitive form NeMo Gym compares texts in. */
export function collapseLower(s: string): string {
  return pySplit(s.toLowerCase()).join(' ');
}

/** `template.format(**values)` with named fields only ("{name}", "{{", "}}"): what NeMo Gym's prompt templates use. */
export function pyFormat(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{|\}\}|\{([^{}]*)\}|[{}]/g, (token, field: string | undefined) => {
    if (token === '{{') return '{';
    if (token === '}}') return '}';
    if (field === undefined) throw new Error(`single '${token}' in format string`);
    if (!(field in values)) throw new Error(`format string names unknown field {${field}}`);
    return values[field]!;
  });
}

// Translates Python `re` syntax into an equivalent JS (`u`-mode) pattern: Unicode `\d \w \s \b` as
// Python defines them, `.` `^` `$` that only know "\n", `(?P<name>)`, inline and scoped flags, verbose
// mode, Python's lenient literal braces and escapes. Rejects what Python rejects.
import { PY_WHITESPACE_CLASS } from './python_str';

/** The pattern is invalid in Python, or uses a feature JS cannot express (then treated as invalid). */
export class PythonRegexError extends Error {
  override name = 'PythonRegexError';
}

interface Flags {
  ignoreCase: boolean;
  multiline: boolean;
  dotAll: boolean;
  verbose: boolean;
  ascii: boolean;
}

const WORD = '\\p{L}\\p{N}_';
const ASCII_WORD = 'A-Za-z0-9_';
const ASCII_SPACE = '\\t-\\r ';
export const ANY = '[\\s\\S]';
// Not lookarounds like (?<![\s\S]): V8 lets those match between the halves of a surrogate pair.
const START = '^';
const END = '$';
const VERBOSE_SPACE = new Set([' ', '\t', '\n', '\r', '\x0b', '\x0c']);

interface ClassEscape {
  /** JS class contents for the escape's set. */
  positive: string;
  /** The escape means the complement of that set (\D, \W, \S). */
  negated: boolean;
}

function shorthand(letter: string, flags: Flags): ClassEscape | undefined {
  const lower = letter.toLowerCase();
  const sets: Record<string, string> = flags.ascii
    ? { d: '0-9', w: ASCII_WORD, s: ASCII_SPACE }
    : { d: '\\p{Nd}', w: WORD, s: PY_WHITESPACE_CLASS };
  const contents = sets[lower];
  return contents === undefined ? undefined : { positive: contents, negated: letter !== lower };
}

/** A code point as an escape valid anywhere in a `u`-mode pattern. */
function literal(ch: string): string {
  return `\\u{${ch.codePointAt(0)!.toString(16)}}`;
}

function isAsciiAlnum(ch: string): boolean {
  return /^[A-Za-z0-9]$/.test(ch);
}

class Translator {
  private readonly cps: string[];
  private i = 0;
  groupCount = 0;
  private readonly flagStack: Flags[] = [];
  private readonly groupNames = new Set<string>();

  constructor(
    pattern: string,
    private flags: Flags,
    private readonly groupOffset: number,
  ) {
    this.cps = [...pattern];
  }

  private fail(message: string): never {
    throw new PythonRegexError(`${message} at position ${this.i}`);
  }

  private peek(offset = 0): string | undefined {
    return this.cps[this.i + offset];
  }

  private take(): string {
    const ch = this.cps[this.i++];
    if (ch === undefined) this.fail('unexpected end of pattern');
    return ch;
  }

  private lookingAt(text: string): boolean {
    return this.cps.slice(this.i, this.i + text.length).join('') === text;
  }

  /** Leading `(?aimsux)` groups set flags for the whole pattern, as in Python 3.11+. */
  readLeadingFlags(): Flags {
    while (this.lookingAt('(?')) {
      let j = this.i + 2;
      let letters = '';
      while (j < this.cps.length && /^[aiLmsux]$/.test(this.cps[j]!)) letters += this.cps[j++];
      if (letters === '' || this.cps[j] !== ')') break;
      this.flags = applyFlagLetters(this.flags, letters, true, () => this.fail('bad inline flag'));
      this.i = j + 1;
    }
    return this.flags;
  }

  translate(): string {
    let out = '';
    let lastWasAtom = false;
    while (this.i < this.cps.length) {
      const ch = this.peek()!;
      if (this.flags.verbose && VERBOSE_SPACE.has(ch)) {
        this.i++;
        continue;
      }
      if (this.flags.verbose && ch === '#') {
        while (this.i < this.cps.length && this.peek() !== '\n') this.i++;
        continue;
      }
      if (ch === ')') {
        if (this.flagStack.length === 0) this.fail('unbalanced parenthesis');
        return out;
      }
      const quantifier = this.readQuantifier();
      if (quantifier !== undefined) {
        if (!lastWasAtom) this.fail('nothing to repeat');
        out += quantifier;
        lastWasAtom = false;
        continue;
      }
      const atom = this.readAtom();
      out += atom.text;
      lastWasAtom = atom.quantifiable;
    }
    if (this.flagStack.length > 0) this.fail('missing ), unterminated subpattern');
    return out;
  }

  private readQuantifier(): string | undefined {
    const ch = this.peek();
    let q: string | undefined;
    if (ch === '*' || ch === '+' || ch === '?') {
      this.i++;
      q = ch;
    } else if (ch === '{') {
      const m = /^\{(\d*)(?:(,)(\d*))?\}/.exec(this.cps.slice(this.i, this.i + 40).join(''));
      if (!m || m[0] === '{}') return undefined;
      const lo = m[1] === '' ? 0 : Number(m[1]);
      const hi = m[2] ? (m[3] === '' ? undefined : Number(m[3])) : lo;
      if (hi !== undefined && hi < lo) this.fail('min repeat greater than max repeat');
      this.i += m[0].length;
      q = hi === undefined ? `{${lo},}` : `{${lo},${hi}}`;
    } else {
      return undefined;
    }
    if (this.peek() === '?') {
      this.i++;
      q += '?';
    } else if (this.peek() === '+') {
      this.fail('possessive quantifiers are not supported');
    }
    return q;
  }

  private readAtom(): { text: string; quantifiable: boolean } {
    const ch = this.take();
    switch (ch) {
      case '\\':
        return this.readEscape();
      case '.':
        return { text: this.flags.dotAll ? ANY : '[^\\n]', quantifiable: true };
      case '^':
        return { text: this.flags.multiline ? `(?:${START}|(?<=\\n))` : START, quantifiable: false };
      case '$':
        return { text: this.flags.multiline ? `(?=\\n|${END})` : `(?=\\n?${END})`, quantifiable: false };
      case '[':
        return { text: this.readClass(), quantifiable: true };
      case '(':
        return this.readGroup();
      case '|':
        return { text: '|', quantifiable: false };
      case '{':
      case '}':
      case ']':
        return { text: literal(ch), quantifiable: true };
      default:
        return { text: /^[\p{L}\p{N} ]$/u.test(ch) ? ch : literal(ch), quantifiable: true };
    }
  }

  private readGroup(): { text: string; quantifiable: boolean } {
    let open = '(';
    let quantifiable = true;
    const saved = this.flags;
    if (this.peek() === '?') {
      this.i++;
      const next = this.take();
      if (next === ':') open = '(?:';
      else if (next === '=' || next === '!') {
        open = `(?${next}`;
        quantifiable = false;
      } else if (next === '<' && (this.peek() === '=' || this.peek() === '!')) {
        open = `(?<${this.take()}`;
        quantifiable = false;
      } else if (next === '#') {
        while (this.peek() !== ')') this.take();
        this.i++;
        return { text: '', quantifiable: false };
      } else if (next === 'P' && this.peek() === '<') {
        this.i++;
        const name = this.readName('>');
        if (this.groupNames.has(name)) this.fail(`redefinition of group name ${name}`);
        this.groupNames.add(name);
        this.groupCount++;
        open = `(?<${name}>`;
      } else if (next === 'P' && this.peek() === '=') {
        this.i++;
        const name = this.readName(')');
        if (!this.groupNames.has(name)) this.fail(`unknown group name ${name}`);
        return { text: `\\k<${name}>`, quantifiable: true };
      } else if (/^[aiLmsux-]$/.test(next)) {
        this.i--;
        open = this.readScopedFlags();
      } else {
        this.fail(`unsupported group extension (?${next}`);
      }
    } else {
      this.groupCount++;
    }
    this.flagStack.push(saved);
    const body = this.translate();
    this.take(); // ')'
    this.flags = this.flagStack.pop()!;
    return { text: `${open}${body})`, quantifiable };
  }

  /** `(?flags-flags:...)`: i, s, m and x are emulated here; turning i off cannot be. */
  private readScopedFlags(): string {
    let on = '';
    let off = '';
    while (/^[aiLmsux]$/.test(this.peek() ?? '')) on += this.take();
    if (this.peek() === '-') {
      this.i++;
      while (/^[aiLmsux]$/.test(this.peek() ?? '')) off += this.take();
    }
    if (this.take() !== ':') this.fail('global flags not at the start of the expression');
    if ((on.includes('i') && !this.flags.ignoreCase) || off.includes('i')) this.fail('scoped IGNORECASE changes are not supported');
    const fail = () => this.fail('bad inline flag');
    this.flags = applyFlagLetters(applyFlagLetters(this.flags, on, true, fail), off, false, fail);
    return '(?:';
  }

  private readName(terminator: string): string {
    let name = '';
    while (this.peek() !== terminator) name += this.take();
    this.i++;
    if (!/^[\p{L}_][\p{L}\p{N}_]*$/u.test(name)) this.fail(`bad character in group name ${name}`);
    return name;
  }

  private readEscape(): { text: string; quantifiable: boolean } {
    const ch = this.take();
    const sh = shorthand(ch, this.flags);
    if (sh) return { text: sh.negated ? `[^${sh.positive}]` : `[${sh.positive}]`, quantifiable: true };
    const word = this.flags.ascii ? `[${ASCII_WORD}]` : `[${WORD}]`;
    switch (ch) {
      case 'b':
        return { text: `(?:(?<=${word})(?!${word})|(?<!${word})(?=${word}))`, quantifiable: false };
      case 'B':
        // Python's \B never matches in an empty string.
        return { text: `(?:(?<=${word})(?=${word})|(?<!${word})(?!${word})(?:(?<=${ANY})|(?=${ANY})))`, quantifiable: false };
      case 'A':
        return { text: START, quantifiable: false };
      case 'Z':
        return { text: END, quantifiable: false };
    }
    if (/^[1-9]$/.test(ch)) {
      // Python reads \1..\99 as back-references, three octal digits as a character.
      const more = this.peek();
      if (more !== undefined && /^[0-7]$/.test(ch) && /^[0-7]$/.test(more) && /^[0-7]$/.test(this.peek(1) ?? '')) {
        return { text: literal(String.fromCodePoint(parseInt(ch + this.take() + this.take(), 8))), quantifiable: true };
      }
      let ref = ch;
      if (more !== undefined && /^[0-9]$/.test(more)) ref += this.take();
      if (Number(ref) > this.groupCount) this.fail(`invalid group reference ${ref}`);
      return { text: `(?:\\${Number(ref) + this.groupOffset})`, quantifiable: true };
    }
    return { text: literal(this.escapedChar(ch)), quantifiable: true };
  }

  /** Escapes that stand for one character, the same inside and outside a class. */
  private escapedChar(ch: string): string {
    const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', f: '\f', v: '\v', a: '\x07' };
    if (simple[ch] !== undefined) return simple[ch];
    if (ch === '0' || /^[0-7]$/.test(ch)) {
      let digits = ch;
      while (digits.length < 3 && /^[0-7]$/.test(this.peek() ?? '')) digits += this.take();
      const code = parseInt(digits, 8);
      if (code > 0o377) this.fail('octal escape value outside of range 0-0o377');
      return String.fromCodePoint(code);
    }
    const hexLength = ch === 'x' ? 2 : ch === 'u' ? 4 : ch === 'U' ? 8 : 0;
    if (hexLength > 0) {
      const hex = this.cps.slice(this.i, this.i + hexLength).join('');
      if (!new RegExp(`^[0-9A-Fa-f]{${hexLength}}$`).test(hex)) this.fail(`incomplete escape \\${ch}`);
      this.i += hexLength;
      const code = parseInt(hex, 16);
      if (code > 0x10ffff) this.fail(`bad escape \\${ch}${hex}`);
      return String.fromCodePoint(code);
    }
    if (isAsciiAlnum(ch)) this.fail(`bad escape \\${ch}`);
    return ch;
  }

  private readClass(): string {
    const negate = this.peek() === '^';
    if (negate) this.i++;
    let contents = '';
    const complements: string[] = [];
    let first = true;
    for (;;) {
      if (this.i >= this.cps.length) this.fail('unterminated character set');
      const ch = this.take();
      if (ch === ']' && !first) break;
      first = false;
      let low: string;
      if (ch === '\\') {
        const esc = this.take();
        const sh = shorthand(esc, this.flags);
        if (sh) {
          if (this.peek() === '-' && this.peek(1) !== ']') this.fail('bad character range');
          if (sh.negated) complements.push(sh.positive);
          else contents += sh.positive;
          continue;
        }
        low = esc === 'b' ? '\b' : this.escapedChar(esc);
      } else {
        low = ch;
      }
      if (this.peek() === '-' && this.peek(1) !== ']' && this.peek(1) !== undefined) {
        this.i++;
        let high = this.take();
        if (high === '\\') {
          const esc = this.take();
          if (shorthand(esc, this.flags)) this.fail('bad character range');
          high = esc === 'b' ? '\b' : this.escapedChar(esc);
        }
        if (high.codePointAt(0)! < low.codePointAt(0)!) this.fail('bad character range');
        contents += `${literal(low)}-${literal(high)}`;
      } else {
        contents += literal(low);
      }
    }
    if (complements.length === 0) return `[${negate ? '^' : ''}${contents}]`;
    // JS (without the `v` flag) cannot nest \W, \S or \D inside a class: spell the set out as a union.
    const parts = complements.map((c) => `[^${c}]`);
    if (!negate) return `(?:${[...(contents ? [`[${contents}]`] : []), ...parts].join('|')})`;
    const exclusions = [...(contents ? [`[${contents}]`] : []), ...parts].map((p) => `(?!${p})`).join('');
    return `(?:${exclusions}${ANY})`;
  }
}

function applyFlagLetters(flags: Flags, letters: string, value: boolean, fail: () => never): Flags {
  const next = { ...flags };
  for (const letter of letters) {
    if (letter === 'i') next.ignoreCase = value;
    else if (letter === 'm') next.multiline = value;
    else if (letter === 's') next.dotAll = value;
    else if (letter === 'x') next.verbose = value;
    else if (letter === 'a') next.ascii = value;
    else if (letter !== 'u') fail();
  }
  return next;
}

export interface TranslatedPattern {
  source: string;
  groupCount: number;
  ignoreCase: boolean;
}

/**
 * The JS source for a Python pattern compiled with `flagLetters` (any of "aimsux"); numbered
 * back-references shift by `groupOffset` for callers that put their own groups first.
 */
export function translatePattern(pattern: string, flagLetters: string, groupOffset = 0): TranslatedPattern {
  const initial: Flags = { ignoreCase: false, multiline: false, dotAll: false, verbose: false, ascii: false };
  const base = applyFlagLetters(initial, flagLetters, true, () => {
    throw new PythonRegexError(`unknown flag in "${flagLetters}"`);
  });
  const translator = new Translator(pattern, base, groupOffset);
  const flags = translator.readLeadingFlags();
  const source = translator.translate();
  return { source, groupCount: translator.groupCount, ignoreCase: flags.ignoreCase };
}

// pandas' str.contains(pattern, case=False) treats the query as a Python regular expression. This
// translates Python `re` syntax to a JS RegExp (flags "iu") and raises Python's re.error messages for
// the mistakes a search query typically makes ("(", "C**", "[abc").
import { PyError, typeName } from './python';

const SPACE = '\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const WORD = '\\p{L}\\p{N}_';
const WORD_BOUNDARY = `(?:(?<=[${WORD}])(?![${WORD}])|(?<![${WORD}])(?=[${WORD}]))`;
const NOT_WORD_BOUNDARY = `(?:(?<=[${WORD}])(?=[${WORD}])|(?<![${WORD}])(?![${WORD}]))`;
const SIMPLE_ESCAPES: Record<string, string> = { n: '\\n', t: '\\t', r: '\\r', f: '\\f', v: '\\v', a: '\\x07' };

function reError(message: string, position: number): PyError {
  return new PyError('re.error', `${message} at position ${position}`);
}

/** A character as a JS regex literal that is valid in "u" mode wherever it appears. */
function literal(ch: string): string {
  return /[\p{L}\p{N}_ ]/u.test(ch) ? ch : `\\u{${ch.codePointAt(0)!.toString(16)}}`;
}

interface Flags {
  dotAll: boolean;
  multiline: boolean;
  verbose: boolean;
}

class Translator {
  private readonly chars: string[];
  private i = 0;
  private readonly flags: Flags = { dotAll: false, multiline: false, verbose: false };

  constructor(pattern: string) {
    this.chars = [...pattern];
  }

  translate(): string {
    this.leadingFlags();
    let out = '';
    const open: number[] = [];
    let canRepeat = false;
    let afterQuantifier = false;
    while (this.i < this.chars.length) {
      const start = this.i;
      const c = this.chars[this.i]!;
      if (this.flags.verbose && /\s/.test(c)) {
        this.i++;
        continue;
      }
      if (this.flags.verbose && c === '#') {
        while (this.i < this.chars.length && this.chars[this.i] !== '\n') this.i++;
        continue;
      }
      const quantifier = this.quantifierAt(this.i);
      if (quantifier) {
        if (!canRepeat) throw reError(afterQuantifier ? 'multiple repeat' : 'nothing to repeat', start);
        this.i += quantifier.length;
        out += quantifier.js;
        if (this.chars[this.i] === '?') out += this.chars[this.i++];
        else if (this.chars[this.i] === '+') this.i++; // possessive: greedy is equivalent for a contains-test
        canRepeat = false;
        afterQuantifier = true;
        continue;
      }
      afterQuantifier = false;
      this.i++;
      if (c === '\\') {
        const { js, anchor } = this.escape(start, false);
        out += js;
        canRepeat = !anchor;
      } else if (c === '[') {
        out += this.characterClass(start);
        canRepeat = true;
      } else if (c === '(') {
        const group = this.groupOpening(start);
        out += group.js;
        if (group.opens) open.push(start);
        canRepeat = !group.opens;
      } else if (c === ')') {
        if (open.length === 0) throw reError('unbalanced parenthesis', start);
        open.pop();
        out += ')';
        canRepeat = true;
      } else if (c === '|') {
        out += '|';
        canRepeat = false;
      } else if (c === '^') {
        out += this.flags.multiline ? '(?<![^\\n])' : '(?<![\\s\\S])';
        canRepeat = false;
      } else if (c === '$') {
        // Python's $ also matches before a final newline (before any newline in MULTILINE).
        out += this.flags.multiline ? '(?=\\n|(?![\\s\\S]))' : '(?=\\n?(?![\\s\\S]))';
        canRepeat = false;
      } else if (c === '.') {
        out += this.flags.dotAll ? '[\\s\\S]' : '[^\\n]';
        canRepeat = true;
      } else {
        out += literal(c);
        canRepeat = true;
      }
    }
    if (open.length > 0) throw reError('missing ), unterminated subpattern', open.at(-1)!);
    return out;
  }

  /** Global inline flags such as (?i) or (?x) must open the pattern in Python 3.11+. */
  private leadingFlags(): void {
    for (;;) {
      const rest = this.chars.slice(this.i).join('');
      const m = /^\(\?([aiLmsux]+)\)/.exec(rest);
      if (!m) return;
      if (m[1]!.includes('s')) this.flags.dotAll = true;
      if (m[1]!.includes('m')) this.flags.multiline = true;
      if (m[1]!.includes('x')) this.flags.verbose = true;
      this.i += m[0].length;
    }
  }

  private quantifierAt(i: number): { length: number; js: string } | undefined {
    const c = this.chars[i];
    if (c === '*' || c === '+' || c === '?') return { length: 1, js: c };
    if (c !== '{') return undefined;
    const m = /^\{(\d*)(?:(,)(\d*))?\}/.exec(this.chars.slice(i, i + 40).join(''));
    if (!m || (m[1] === '' && m[2] === undefined)) return undefined;
    if (m[1] && m[3] && Number(m[1]) > Number(m[3])) throw reError('min repeat greater than max repeat', i + 1);
    return { length: m[0].length, js: `{${m[1] || '0'}${m[2] ?? ''}${m[3] ?? ''}}` };
  }

  /** After "(": the JS opening, or a complete item (back-reference, comment) that opens no group. */
  private groupOpening(start: number): { js: string; opens: boolean } {
    if (this.chars[this.i] !== '?') return { js: '(', opens: true };
    const rest = this.chars.slice(this.i).join('');
    const take = (m: RegExpExecArray) => (this.i += m[0].length);
    let m: RegExpExecArray | null;
    if ((m = /^\?P<([A-Za-z_]\w*)>/.exec(rest))) {
      take(m);
      return { js: `(?<${m[1]}>`, opens: true };
    }
    if ((m = /^\?P=([A-Za-z_]\w*)\)/.exec(rest))) {
      take(m);
      return { js: `\\k<${m[1]}>`, opens: false };
    }
    if ((m = /^\?#[^)]*\)/.exec(rest))) {
      take(m);
      return { js: '(?:)', opens: false };
    }
    if ((m = /^\?(?::|=|!|<=|<!)/.exec(rest))) {
      take(m);
      return { js: `(${m[0]}`, opens: true };
    }
    // Atomic groups and scoped flags have no JS equivalent; a plain group matches the same for a contains-test.
    if ((m = /^\?>|^\?[aiLmsux-]+:/.exec(rest))) {
      take(m);
      return { js: '(?:', opens: true };
    }
    throw reError(`unknown extension ?${rest[1] ?? ''}`, start + 1);
  }

  private escape(start: number, inClass: boolean): { js: string; anchor: boolean } {
    const c = this.chars[this.i];
    if (c === undefined) throw reError('bad escape (end of pattern)', start);
    this.i++;
    if (SIMPLE_ESCAPES[c]) return { js: SIMPLE_ESCAPES[c], anchor: false };
    switch (c) {
      case 'd':
        return { js: '\\p{Nd}', anchor: false };
      case 'D':
        return { js: inClass ? '\\D' : '\\P{Nd}', anchor: false };
      case 'w':
        return { js: inClass ? WORD : `[${WORD}]`, anchor: false };
      case 'W':
        return { js: inClass ? '\\W' : `[^${WORD}]`, anchor: false };
      case 's':
        return { js: inClass ? SPACE : `[${SPACE}]`, anchor: false };
      case 'S':
        return { js: inClass ? '\\S' : `[^${SPACE}]`, anchor: false };
      case 'b':
        return inClass ? { js: '\\x08', anchor: false } : { js: WORD_BOUNDARY, anchor: true };
      case 'B':
        return { js: NOT_WORD_BOUNDARY, anchor: true };
      case 'A':
        return { js: '(?<![\\s\\S])', anchor: true };
      case 'Z':
        return { js: '(?![\\s\\S])', anchor: true };
    }
    const hex = (n: number) => {
      const digits = this.chars.slice(this.i, this.i + n).join('');
      if (!new RegExp(`^[0-9a-fA-F]{${n}}$`).test(digits)) throw reError(`incomplete escape \\${c}${digits}`, start);
      this.i += n;
      return `\\u{${digits}}`;
    };
    if (c === 'x') return { js: hex(2), anchor: false };
    if (c === 'u') return { js: hex(4), anchor: false };
    if (c === 'U') return { js: hex(8).replace(/\{0+(?=[0-9a-fA-F])/, '{'), anchor: false };
    if (/[0-9]/.test(c)) {
      let digits = c;
      while (digits.length < 3 && /[0-7]/.test(this.chars[this.i] ?? '') && (digits.startsWith('0') || inClass)) digits += this.chars[this.i++];
      if (digits.startsWith('0') || inClass) return { js: literal(String.fromCodePoint(parseInt(digits, 8))), anchor: false };
      if (/[0-9]/.test(this.chars[this.i] ?? '')) digits += this.chars[this.i++];
      return { js: `\\${digits}`, anchor: false };
    }
    if (/[A-Za-z]/.test(c)) throw reError(`bad escape \\${c}`, start);
    return { js: literal(c), anchor: false };
  }

  private characterClass(start: number): string {
    let out = '[';
    if (this.chars[this.i] === '^') {
      out += '^';
      this.i++;
    }
    let first = true;
    for (;;) {
      const c = this.chars[this.i];
      if (c === undefined) throw reError('unterminated character set', start);
      if (c === ']' && !first) {
        this.i++;
        return `${out}]`;
      }
      first = false;
      if (c === '\\') {
        const escapeStart = this.i;
        this.i++;
        out += this.escape(escapeStart, true).js;
      } else if (c === '-' && !out.endsWith('[') && !out.endsWith('^') && this.chars[this.i + 1] !== ']') {
        const from = this.chars[this.i - 1]!;
        const to = this.chars[this.i + 1];
        if (to !== undefined && to !== '\\' && from.codePointAt(0)! > to.codePointAt(0)!) {
          throw reError(`bad character range ${from}-${to}`, this.i - 1);
        }
        out += '-';
        this.i++;
      } else {
        out += c === '-' ? '\\-' : literal(c);
        this.i++;
      }
    }
  }
}

/** re.compile(pattern, re.IGNORECASE) as a JS RegExp; raises re.error for invalid patterns. */
export function compilePythonRegex(pattern: unknown): RegExp {
  if (Array.isArray(pattern) || (pattern !== null && typeof pattern === 'object')) {
    throw new PyError('TypeError', `unhashable type: '${typeName(pattern)}'`);
  }
  if (typeof pattern !== 'string') throw new PyError('TypeError', 'first argument must be string or compiled pattern');
  const source = new Translator(pattern).translate();
  try {
    return new RegExp(source, 'iu');
  } catch (error) {
    throw new PyError('re.error', (error as Error).message);
  }
}

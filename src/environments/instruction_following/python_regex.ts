// Compiles Python `re` patterns as JS RegExps with Python's meaning. The IFEval checkers splice user
// text into patterns and rely on Python's Unicode \w, \b, \d, \s, on `.` and `$` stopping only at
// "\n", and on lenient escapes and braces that JS's `u` mode rejects.

/** Python's \s: the code points str.isspace() accepts (JS's \s differs: it has \ufeff, lacks \x1c-\x1f and \x85). */
export const PY_SPACE = '\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
/** Python's \w: letters, digits and numerals of any script, and "_" (combining marks are not word characters). */
export const PY_WORD = '\\p{L}\\p{N}_';

const W = `[${PY_WORD}]`;
const BOUNDARY = `(?:(?<=${W})(?!${W})|(?<!${W})(?=${W}))`;
const NOT_BOUNDARY = `(?:(?<=${W})(?=${W})|(?<!${W})(?!${W}))`;
const START = '(?<![\\s\\S])';
const END = '(?![\\s\\S])';
const JS_SYNTAX = new Set('^$\\.*+?()[]{}|/');

export interface PyFlags {
  ignoreCase?: boolean;
  multiline?: boolean;
  dotall?: boolean;
  /** Record group offsets (JS's `d` flag), for callers that need Python's m.span(n). */
  indices?: boolean;
}

/** Python `re.compile(pattern, flags)` as a global JS RegExp; throws where Python or JS cannot compile it. */
export function pyRegExp(pattern: string, flags: PyFlags = {}): RegExp {
  const { source, inline } = stripInlineFlags(pattern);
  const f = { ...flags, ...inline };
  return new RegExp(translate(source, f), `gu${f.ignoreCase ? 'i' : ''}${f.indices ? 'd' : ''}`);
}

/** `re.findall(pattern, text, flags)` counted: only the number of matches matters to the checkers. */
export function pyCount(pattern: string, text: string, flags: PyFlags = {}): number {
  let n = 0;
  for (const _ of text.matchAll(pyRegExp(pattern, flags))) n++;
  return n;
}

export function pySearch(pattern: string, text: string, flags: PyFlags = {}): boolean {
  return pyRegExp(pattern, flags).test(text);
}

function stripInlineFlags(pattern: string): { source: string; inline: PyFlags } {
  const m = /^\(\?([aiLmsux]+)\)/.exec(pattern);
  if (!m) return { source: pattern, inline: {} };
  if (m[1]!.includes('x')) throw new Error('verbose patterns are not supported');
  return {
    source: pattern.slice(m[0].length),
    inline: {
      ...(m[1]!.includes('i') ? { ignoreCase: true } : {}),
      ...(m[1]!.includes('m') ? { multiline: true } : {}),
      ...(m[1]!.includes('s') ? { dotall: true } : {}),
    },
  };
}

function translate(src: string, flags: PyFlags): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const ch = src[i]!;
    if (ch === '\\') {
      const next = src[i + 1];
      if (next === undefined) throw new Error('bad escape (end of pattern)');
      i++;
      out += inClass ? classEscape(next) : escape(next);
      continue;
    }
    if (inClass) {
      if (ch === ']') inClass = false;
      out += ch === '[' ? '\\[' : ch;
      continue;
    }
    if (ch === '[') {
      inClass = true;
      out += ch;
      // A "]" right after "[" or "[^" is a literal in Python, an empty class in JS.
      if (src[i + 1] === '^') out += src[++i];
      if (src[i + 1] === ']') {
        out += '\\]';
        i++;
      }
      continue;
    }
    if (ch === '(' && src.startsWith('(?#', i)) {
      const close = src.indexOf(')', i);
      if (close < 0) throw new Error('missing ), unterminated comment');
      i = close;
      continue;
    }
    if (ch === '(' && src.startsWith('(?P<', i)) {
      out += '(?<';
      i += 3;
      continue;
    }
    if (ch === '(' && src.startsWith('(?P=', i)) {
      const close = src.indexOf(')', i);
      out += `\\k<${src.slice(i + 4, close)}>`;
      i = close;
      continue;
    }
    if (ch === '{' || ch === '}') {
      const q = ch === '{' ? /^\{(\d*)(,?)(\d*)\}/.exec(src.slice(i)) : null;
      if (q && (q[1] !== '' || q[3] !== '') && out !== '') {
        out += `{${q[1] || '0'}${q[2]}${q[3]}}`;
        i += q[0].length - 1;
      } else {
        out += `\\${ch}`;
      }
      continue;
    }
    if (ch === '.') out += flags.dotall ? '[\\s\\S]' : '[^\\n]';
    else if (ch === '^') out += flags.multiline ? `(?:${START}|(?<=\\n))` : START;
    else if (ch === '$') out += flags.multiline ? `(?=\\n|${END})` : `(?=\\n?${END})`;
    else out += ch;
  }
  if (inClass) throw new Error('unterminated character set');
  return out;
}

function escape(c: string): string {
  switch (c) {
    case 'w': return `[${PY_WORD}]`;
    case 'W': return `[^${PY_WORD}]`;
    case 'd': return '\\p{Nd}';
    case 'D': return '\\P{Nd}';
    case 's': return `[${PY_SPACE}]`;
    case 'S': return `[^${PY_SPACE}]`;
    case 'b': return BOUNDARY;
    case 'B': return NOT_BOUNDARY;
    case 'A': return START;
    case 'Z': return END;
    default: return plainEscape(c);
  }
}

function classEscape(c: string): string {
  switch (c) {
    case 'w': return PY_WORD;
    case 'd': return '\\p{Nd}';
    case 'D': return '\\P{Nd}';
    case 's': return PY_SPACE;
    case 'b': return '\\x08';
    case '-': return '\\-';
    default: return plainEscape(c);
  }
}

/** Python accepts "\" before any punctuation; JS `u` mode only before syntax characters. */
function plainEscape(c: string): string {
  if (/[A-Za-z0-9]/.test(c)) return `\\${c}`;
  return JS_SYNTAX.has(c) ? `\\${c}` : c;
}

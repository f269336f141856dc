// Python `re` on JavaScript's engine (findall/search/fullmatch/sub, with Python 3.7+'s empty-match stepping), so
// task regexes, ported graders and tool searches find exactly what NeMo Gym's Python code finds.
import { PyError } from './errors';
import { execWithDeadline } from './regex-deadline';
import { ANY, translatePattern } from './regex_syntax';
import { typeName } from './values';

export interface PyMatch {
  /** Python's `m.group(0)`. */
  text: string;
  /** Python's `m.groups()`: undefined for a group that did not participate. */
  groups: (string | undefined)[];
  /** UTF-16 offsets into the searched string. */
  start: number;
  end: number;
}

export interface RegexOptions {
  /**
   * Match on the deadline worker (regex-deadline.ts), for a pattern a task row or a model supplies: one
   * that backtracks catastrophically throws REGEX_TIMEOUT instead of freezing the process. Built-in
   * patterns leave it off and match in-process, at no cost.
   */
  guarded?: boolean;
}

const execInProcess = (re: RegExp, text: string) => re.exec(text);

function compileJs(source: string, flags: string): RegExp {
  try {
    return new RegExp(source, flags);
  } catch (e) {
    throw new PyError('re.error', (e as Error).message);
  }
}

/**
 * A compiled Python pattern (`re.compile(pattern, flags)`, flags as letters from "aimsux") with its `re`
 * functions. Engine differences left as they are (no grader relies on them): JS clears the captures of a
 * repeated group on each iteration, refuses empty iterations, lets a back-reference to a group that did not
 * take part match the empty string, and folds case more widely in back-references.
 */
export class PyRegex {
  private readonly global: RegExp;
  /** Matches only non-empty text at the sticky position: Python's rule after an empty match. */
  private readonly nonEmptySticky: RegExp;
  private readonly anchored: RegExp;
  /** The JS group number of each Python group. */
  private readonly pyGroups: number[];
  /** Python's `pattern.groups`. */
  readonly groupCount: number;
  private readonly exec: (re: RegExp, text: string) => RegExpExecArray | null;

  constructor(pattern: string, flagLetters = '', options: RegexOptions = {}) {
    const { source, groupCount, pyGroups, ignoreCase } = translatePattern(pattern, flagLetters);
    const shifted = translatePattern(pattern, flagLetters, 1).source;
    this.groupCount = groupCount;
    this.pyGroups = pyGroups;
    const js = ignoreCase ? 'iu' : 'u';
    this.global = compileJs(source, `g${js}`);
    this.anchored = compileJs(`^(?:${source})$`, js);
    // Group 1 captures the rest of the text; the match fails if it ends where it started.
    this.nonEmptySticky = compileJs(`(?=(${ANY}*))(?:${shifted})(?!\\1$)`, `y${js}`);
    this.exec = options.guarded ? (re, text) => execWithDeadline(re, text, pattern) : execInProcess;
  }

  private match(m: RegExpExecArray): PyMatch {
    return { text: m[0], groups: this.pyGroups.map((j) => m[j]), start: m.index, end: m.index + m[0].length };
  }

  /** `re.finditer`: every match left to right, stepping over empty matches exactly as Python 3.7+ does. */
  *matches(text: string): Generator<PyMatch> {
    let pos = 0;
    let afterEmpty = false;
    while (pos <= text.length) {
      let m: RegExpExecArray | null = null;
      if (afterEmpty) {
        this.nonEmptySticky.lastIndex = pos;
        const sticky = this.exec(this.nonEmptySticky, text);
        if (sticky) {
          sticky.splice(1, 1);
          m = sticky;
        } else {
          pos += (text.codePointAt(pos) ?? 0) > 0xffff ? 2 : 1;
          if (pos > text.length) return;
        }
      }
      if (!m) m = this.searchFrom(text, pos);
      if (!m) return;
      const match = this.match(m);
      yield match;
      afterEmpty = match.text.length === 0;
      pos = match.end;
    }
  }

  /**
   * V8 also tries to match between the two halves of a surrogate pair when a pattern starts with a
   * lookaround; Python has no such position, so those matches are skipped.
   */
  private searchFrom(text: string, pos: number): RegExpExecArray | null {
    this.global.lastIndex = pos;
    let m = this.exec(this.global, text);
    while (m && isInsidePair(text, m.index)) {
      this.global.lastIndex = m.index + 1;
      m = this.exec(this.global, text);
    }
    return m;
  }

  /** `re.findall`: whole matches with no groups, the group with one, tuples with more. */
  findall(text: string): (string | string[])[] {
    const out: (string | string[])[] = [];
    for (const m of this.matches(text)) {
      const groups = m.groups.map((g) => g ?? '');
      out.push(this.groupCount === 0 ? m.text : this.groupCount === 1 ? groups[0]! : groups);
    }
    return out;
  }

  /** `re.search`. */
  search(text: string): PyMatch | null {
    for (const m of this.matches(text)) return m;
    return null;
  }

  /** `re.fullmatch`. */
  fullmatch(text: string): PyMatch | null {
    const m = this.exec(this.anchored, text);
    return m ? this.match(m) : null;
  }

  /** `re.sub` with a function replacement. */
  sub(text: string, replace: (m: PyMatch) => string): string {
    let out = '';
    let last = 0;
    for (const m of this.matches(text)) {
      out += text.slice(last, m.start) + replace(m);
      last = m.end;
    }
    return out + text.slice(last);
  }

  toString(): string {
    return this.global.toString();
  }
}

function isInsidePair(text: string, index: number): boolean {
  const before = text.charCodeAt(index - 1);
  const at = text.charCodeAt(index);
  return before >= 0xd800 && before <= 0xdbff && at >= 0xdc00 && at <= 0xdfff;
}

/** Compiles, or returns null where Python's `re.compile` would raise `re.error` (or JS cannot express the pattern). */
export function tryPyRegex(pattern: string, flagLetters = '', options: RegexOptions = {}): PyRegex | null {
  try {
    return new PyRegex(pattern, flagLetters, options);
  } catch (e) {
    if (e instanceof PyError) return null;
    throw e;
  }
}

/**
 * `re.compile(pattern, flags)` for a pattern of any JSON type (a tool argument): raises the TypeError
 * Python raises for a non-str (its pattern cache makes lists and dicts "unhashable"), and re.error.
 */
export function pyCompile(pattern: unknown, flagLetters = '', options: RegexOptions = {}): PyRegex {
  if (Array.isArray(pattern) || (pattern !== null && typeof pattern === 'object')) {
    throw new PyError('TypeError', `unhashable type: '${typeName(pattern)}'`);
  }
  if (typeof pattern !== 'string') throw new PyError('TypeError', 'first argument must be string or compiled pattern');
  return new PyRegex(pattern, flagLetters, options);
}

/** Why Python's `re.compile` (or the translation to JS) refuses the pattern, or null when it compiles. */
export function pyRegexError(pattern: string, flagLetters = ''): string | null {
  try {
    new PyRegex(pattern, flagLetters);
    return null;
  } catch (e) {
    if (e instanceof PyError) return `${e.kind}: ${e.message}`;
    throw e;
  }
}

/**
 * The translated pattern as a plain global JS RegExp (`d` adds match indices), for String.replace and
 * matchAll. Unlike PyRegex it steps over empty matches the JS way and leaves V8's surrogate-pair quirk:
 * use it for fixed patterns that cannot match empty text; its groups are Python's unless the pattern has
 * atomic groups or possessive repeats.
 */
export function pyRegExp(pattern: string, flagLetters = '', options: { indices?: boolean } = {}): RegExp {
  const { source, ignoreCase } = translatePattern(pattern, flagLetters);
  return compileJs(source, `gu${ignoreCase ? 'i' : ''}${options.indices ? 'd' : ''}`);
}

/** `len(re.findall(pattern, text, flags))`. */
export function pyCount(pattern: string, text: string, flagLetters = '', options: RegexOptions = {}): number {
  let n = 0;
  for (const _ of new PyRegex(pattern, flagLetters, options).matches(text)) n++;
  return n;
}

/** `re.search(pattern, text, flags) is not None`. */
export function pySearch(pattern: string, text: string, flagLetters = '', options: RegexOptions = {}): boolean {
  return new PyRegex(pattern, flagLetters, options).search(text) !== null;
}

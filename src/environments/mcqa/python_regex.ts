// Python `re` patterns run on JavaScript's engine, for task data (mcqa's `output_regex`) and the fixed
// patterns of ported graders: compiled through the syntax translator, with findall/sub stepping over
// empty matches as Python 3.7+ does, and search/fullmatch with Python's group conventions.
// Engine differences left as they are (no grader relies on them): JS clears the captures of a repeated
// group on each iteration and refuses empty iterations, and folds case more widely in back-references.
import { ANY, PythonRegexError, translatePattern } from './python_regex_syntax';

export interface PyMatch {
  /** Python's `m.group(0)`. */
  text: string;
  /** Python's `m.groups()`: undefined for a group that did not participate. */
  groups: (string | undefined)[];
  /** UTF-16 offsets into the searched string. */
  start: number;
  end: number;
}

/** A compiled Python pattern with the `re` functions NeMo Gym's graders use. */
export class PyRegex {
  private readonly global: RegExp;
  /** Matches only non-empty text at the sticky position: Python's rule after an empty match. */
  private readonly nonEmptySticky: RegExp;
  private readonly anchored: RegExp;
  readonly groupCount: number;

  constructor(pattern: string, flagLetters = '') {
    const { source, groupCount, ignoreCase } = translatePattern(pattern, flagLetters);
    const shifted = translatePattern(pattern, flagLetters, 1).source;
    this.groupCount = groupCount;
    const js = ignoreCase ? 'iu' : 'u';
    try {
      this.global = new RegExp(source, `g${js}`);
      this.anchored = new RegExp(`^(?:${source})$`, js);
      // Group 1 captures the rest of the text; the match fails if it ends where it started.
      this.nonEmptySticky = new RegExp(`(?=(${ANY}*))(?:${shifted})(?!\\1$)`, `y${js}`);
    } catch (e) {
      throw new PythonRegexError((e as Error).message);
    }
  }

  /** Every match left to right, stepping over empty matches exactly as Python 3.7+ does. */
  *matches(text: string): Generator<PyMatch> {
    let pos = 0;
    let afterEmpty = false;
    while (pos <= text.length) {
      let m: RegExpExecArray | null = null;
      if (afterEmpty) {
        this.nonEmptySticky.lastIndex = pos;
        const sticky = this.nonEmptySticky.exec(text);
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
      const end = m.index + m[0].length;
      yield { text: m[0], groups: m.slice(1, 1 + this.groupCount), start: m.index, end };
      afterEmpty = m[0].length === 0;
      pos = end;
    }
  }

  /**
   * V8 also tries to match between the two halves of a surrogate pair when a pattern starts with a
   * lookaround; Python has no such position, so those matches are skipped.
   */
  private searchFrom(text: string, pos: number): RegExpExecArray | null {
    this.global.lastIndex = pos;
    let m = this.global.exec(text);
    while (m && isInsidePair(text, m.index)) {
      this.global.lastIndex = m.index + 1;
      m = this.global.exec(text);
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
    const m = this.anchored.exec(text);
    return m ? { text: m[0], groups: m.slice(1), start: 0, end: text.length } : null;
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
}

function isInsidePair(text: string, index: number): boolean {
  const before = text.charCodeAt(index - 1);
  const at = text.charCodeAt(index);
  return before >= 0xd800 && before <= 0xdbff && at >= 0xdc00 && at <= 0xdfff;
}

/** Compiles, or returns null where Python's `re.compile` would raise `re.error`. */
export function tryPyRegex(pattern: string, flagLetters = ''): PyRegex | null {
  try {
    return new PyRegex(pattern, flagLetters);
  } catch (e) {
    if (e instanceof PythonRegexError) return null;
    throw e;
  }
}

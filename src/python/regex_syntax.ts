// Python `re` syntax read exactly as CPython 3.11's re._parser reads it (what it accepts, its error messages and
// positions) and written out as an equivalent JS `u`-mode pattern, so task data and model text keep Python's meaning.
import { PyError } from './errors';
import { pyIntFromString } from './number';
import { PY_WHITESPACE_CLASS, PY_WORD_CLASS } from './str';
import { pyRepr } from './values';

// --- flags -----------------------------------------------------------------------------------------

const TEMPLATE = 1;
const IGNORECASE = 2;
const LOCALE = 4;
const MULTILINE = 8;
const DOTALL = 16;
const UNICODE = 32;
const VERBOSE = 64;
const ASCII = 256;
const FLAGS: Record<string, number> = { i: IGNORECASE, L: LOCALE, m: MULTILINE, s: DOTALL, x: VERBOSE, a: ASCII, t: TEMPLATE, u: UNICODE };
const TYPE_FLAGS = ASCII | LOCALE | UNICODE;
const GLOBAL_FLAGS = TEMPLATE;
const MAXREPEAT = 4294967295;
const MAXWIDTH = 2 ** 64;
const MAXCODE = 2 ** 32 - 1;
const MAXGROUPS = 1073741823n;

// --- the parse tree (re._parser's opcodes) -----------------------------------------------------------

type Category = 'd' | 'D' | 's' | 'S' | 'w' | 'W';
type SetItem = { kind: 'literal'; cp: number } | { kind: 'range'; lo: number; hi: number } | { kind: 'category'; cat: Category };
type At = 'beginning' | 'end' | 'beginningString' | 'endString' | 'boundary' | 'nonBoundary';
type Seq = Node[];
type Node =
  | { op: 'literal'; cp: number }
  | { op: 'any' }
  | { op: 'in'; negate: boolean; items: SetItem[] }
  | { op: 'at'; at: At }
  | { op: 'branch'; alternatives: Seq[] }
  | { op: 'subpattern'; group: number | null; addFlags: number; delFlags: number; body: Seq }
  | { op: 'atomic'; body: Seq }
  | { op: 'repeat'; min: number; max: number; mode: 'greedy' | 'lazy' | 'possessive'; body: Seq }
  | { op: 'assert'; behind: boolean; negate: boolean; body: Seq }
  | { op: 'groupref'; group: number }
  | { op: 'groupref_exists'; group: number; yes: Seq; no: Seq | null };

const SPECIAL_CHARS = '.\\[{()*+?^$|';
const REPEAT_CHARS = '*+?{';
const DIGITS = '0123456789';
const OCTDIGITS = '01234567';
const HEXDIGITS = '0123456789abcdefABCDEF';
const WHITESPACE = new Set([' ', '\t', '\n', '\r', '\v', '\f']);
const isAsciiLetter = (c: string) => /^[A-Za-z]$/.test(c);
const isDigit = (c: string | null) => c !== null && c.length === 1 && DIGITS.includes(c);
const cpOf = (c: string) => c.codePointAt(0)!;
/** Python's len() of a token: one or two code points. */
const cpLen = (s: string) => [...s].length;

const ESCAPES: Record<string, number> = { '\\a': 7, '\\b': 8, '\\f': 12, '\\n': 10, '\\r': 13, '\\t': 9, '\\v': 11, '\\\\': 92 };
const CATEGORY_ESCAPES: Record<string, Node> = {
  '\\A': { op: 'at', at: 'beginningString' },
  '\\b': { op: 'at', at: 'boundary' },
  '\\B': { op: 'at', at: 'nonBoundary' },
  '\\Z': { op: 'at', at: 'endString' },
};
const CLASS_CATEGORIES = new Set(['d', 'D', 's', 'S', 'w', 'W']);

/** re.error(msg, pattern, pos): "at position N", plus line and column when the pattern has a newline. */
function reError(message: string, pattern: string, pos: number): PyError {
  let text = `${message} at position ${pos}`;
  const cps = [...pattern];
  if (cps.includes('\n')) {
    const before = cps.slice(0, pos);
    const line = before.filter((c) => c === '\n').length + 1;
    text += ` (line ${line}, column ${pos - before.lastIndexOf('\n')})`;
  }
  return new PyError('re.error', text);
}

/** A pattern Python compiles but JS cannot express; treated as invalid, with this message. */
function unsupported(what: string): PyError {
  return new PyError('re.error', `${what} are not supported`);
}

/** re._parser.Tokenizer on code points: "\\" and the character after it are one token. */
class Tokenizer {
  private readonly cps: string[];
  private index = 0;
  next: string | null = null;

  constructor(readonly pattern: string) {
    this.cps = [...pattern];
    this.advance();
  }

  private advance(): void {
    let index = this.index;
    if (index >= this.cps.length) {
      this.next = null;
      return;
    }
    let char = this.cps[index]!;
    if (char === '\\') {
      index++;
      if (index >= this.cps.length) throw reError('bad escape (end of pattern)', this.pattern, this.cps.length - 1);
      char += this.cps[index]!;
    }
    this.index = index + 1;
    this.next = char;
  }

  match(char: string): boolean {
    if (char === this.next) {
      this.advance();
      return true;
    }
    return false;
  }

  get(): string | null {
    const current = this.next;
    this.advance();
    return current;
  }

  getwhile(n: number, charset: string): string {
    let result = '';
    for (let k = 0; k < n; k++) {
      const c = this.next;
      if (c === null || c.length !== 1 || !charset.includes(c)) break;
      result += c;
      this.advance();
    }
    return result;
  }

  getuntil(terminator: string, name: string): string {
    let result = '';
    for (;;) {
      const c = this.next;
      this.advance();
      if (c === null) {
        if (!result) throw this.error(`missing ${name}`);
        throw this.error(`missing ${terminator}, unterminated name`, cpLen(result));
      }
      if (c === terminator) {
        if (!result) throw this.error(`missing ${name}`, 1);
        break;
      }
      result += c;
    }
    return result;
  }

  tell(): number {
    return this.index - (this.next === null ? 0 : cpLen(this.next));
  }

  seek(index: number): void {
    this.index = index;
    this.advance();
  }

  error(message: string, offset = 0): PyError {
    return reError(message, this.pattern, this.tell() - offset);
  }

  checkgroupname(name: string, offset: number): void {
    if (!/^[\p{XID_Start}_][\p{XID_Continue}]*$/u.test(name)) {
      throw this.error(`bad character in group name ${pyRepr(name)}`, cpLen(name) + offset);
    }
  }
}

/** re._parser.State: group bookkeeping, plus what this port cannot express. */
class State {
  flags = 0;
  readonly groupdict = new Map<string, number>();
  readonly groupwidths: ([number, number] | null)[] = [null];
  readonly groupNames: (string | undefined)[] = [undefined];
  lookbehindgroups: number | null = null;
  readonly grouprefpos = new Map<number, number>();
  unsupported: string | null = null;

  get groups(): number {
    return this.groupwidths.length;
  }

  opengroup(name: string | null): number {
    const gid = this.groups;
    this.groupwidths.push(null);
    this.groupNames.push(name ?? undefined);
    if (name !== null) {
      const ogid = this.groupdict.get(name);
      if (ogid !== undefined) throw new Error(`redefinition of group name ${pyRepr(name)} as group ${gid}; was group ${ogid}`);
      this.groupdict.set(name, gid);
    }
    return gid;
  }

  closegroup(gid: number, body: Seq): void {
    this.groupwidths[gid] = width(body, this);
  }

  checkgroup(gid: number): boolean {
    return gid < this.groups && this.groupwidths[gid] !== null;
  }

  checklookbehindgroup(gid: number, source: Tokenizer): void {
    if (this.lookbehindgroups !== null) {
      if (!this.checkgroup(gid)) throw source.error('cannot refer to an open group');
      if (gid >= this.lookbehindgroups) throw source.error('cannot refer to group defined in the same lookbehind subpattern');
    }
  }

  markUnsupported(what: string): void {
    this.unsupported ??= what;
  }
}

/** SubPattern.getwidth(): the least and most code points a sequence can match. */
function width(seq: Seq, state: State): [number, number] {
  let lo = 0;
  let hi = 0;
  for (const node of seq) {
    let i = 0;
    let j = 0;
    switch (node.op) {
      case 'branch':
        i = MAXWIDTH;
        for (const alternative of node.alternatives) {
          const [l, h] = width(alternative, state);
          i = Math.min(i, l);
          j = Math.max(j, h);
        }
        break;
      case 'atomic':
      case 'subpattern':
        [i, j] = width(node.body, state);
        break;
      case 'repeat': {
        const [l, h] = width(node.body, state);
        i = l * node.min;
        j = node.max === MAXREPEAT && h ? MAXWIDTH : h * node.max;
        break;
      }
      case 'literal':
      case 'any':
      case 'in':
        i = j = 1;
        break;
      case 'groupref':
        [i, j] = state.groupwidths[node.group] ?? [0, 0];
        break;
      case 'groupref_exists': {
        [i, j] = width(node.yes, state);
        if (node.no !== null) {
          const [l, h] = width(node.no, state);
          i = Math.min(i, l);
          j = Math.max(j, h);
        } else {
          i = 0;
        }
        break;
      }
    }
    lo += i;
    hi += j;
  }
  return [Math.min(lo, MAXWIDTH), Math.min(hi, MAXWIDTH)];
}

// --- the parser (re._parser._parse_sub, _parse, _escape, _class_escape, _parse_flags) --------------------

/** The hexadecimal, \u, \U and \N escapes shared by both escape readers; undefined for other letters. */
function numericEscape(source: Tokenizer, state: State, escape: string): number | undefined {
  const c = escape.slice(1);
  const hexLength = c === 'x' ? 2 : c === 'u' ? 4 : c === 'U' ? 8 : 0;
  if (hexLength > 0) {
    escape += source.getwhile(hexLength, HEXDIGITS);
    if (escape.length !== hexLength + 2) throw source.error(`incomplete escape ${escape}`, escape.length);
    const code = parseInt(escape.slice(2), 16);
    if (code > 0x10ffff) throw source.error(`bad escape ${escape}`, escape.length);
    return code;
  }
  if (c === 'N') {
    if (!source.match('{')) throw source.error('missing {');
    source.getuntil('}', 'character name');
    // Python looks the name up in unicodedata, which JS does not have.
    state.markUnsupported('named Unicode escapes (\\N{...})');
    return 0xfffd;
  }
  return undefined;
}

function classEscape(source: Tokenizer, state: State, escape: string): SetItem {
  const code = ESCAPES[escape];
  if (code !== undefined) return { kind: 'literal', cp: code };
  const c = escape.slice(1);
  if (CLASS_CATEGORIES.has(c)) return { kind: 'category', cat: c as Category };
  const numeric = numericEscape(source, state, escape);
  if (numeric !== undefined) return { kind: 'literal', cp: numeric };
  if (OCTDIGITS.includes(c)) {
    escape += source.getwhile(2, OCTDIGITS);
    const value = parseInt(escape.slice(1), 8);
    if (value > 0o377) throw source.error(`octal escape value ${escape} outside of range 0-0o377`, escape.length);
    return { kind: 'literal', cp: value };
  }
  if (cpLen(escape) === 2 && !DIGITS.includes(c) && !isAsciiLetter(c)) return { kind: 'literal', cp: cpOf(c) };
  throw source.error(`bad escape ${escape}`, cpLen(escape));
}

function escapeNode(source: Tokenizer, state: State, escape: string): Node {
  const category = CATEGORY_ESCAPES[escape];
  if (category) return category;
  const c = escape.slice(1);
  if (CLASS_CATEGORIES.has(c)) return { op: 'in', negate: false, items: [{ kind: 'category', cat: c as Category }] };
  const code = ESCAPES[escape];
  if (code !== undefined) return { op: 'literal', cp: code };
  const numeric = numericEscape(source, state, escape);
  if (numeric !== undefined) return { op: 'literal', cp: numeric };
  if (c === '0') {
    escape += source.getwhile(2, OCTDIGITS);
    return { op: 'literal', cp: parseInt(escape.slice(1), 8) };
  }
  if (DIGITS.includes(c)) {
    // An octal escape (three octal digits) or a group reference.
    if (isDigit(source.next)) {
      escape += source.get();
      if (OCTDIGITS.includes(escape[1]!) && OCTDIGITS.includes(escape[2]!) && source.next !== null && source.next.length === 1 && OCTDIGITS.includes(source.next)) {
        escape += source.get();
        const value = parseInt(escape.slice(1), 8);
        if (value > 0o377) throw source.error(`octal escape value ${escape} outside of range 0-0o377`, escape.length);
        return { op: 'literal', cp: value };
      }
    }
    const group = Number(escape.slice(1));
    if (group < state.groups) {
      if (!state.checkgroup(group)) throw source.error('cannot refer to an open group', escape.length);
      state.checklookbehindgroup(group, source);
      return { op: 'groupref', group };
    }
    throw source.error(`invalid group reference ${group}`, escape.length - 1);
  }
  if (cpLen(escape) === 2 && !isAsciiLetter(c)) return { op: 'literal', cp: cpOf(c) };
  throw source.error(`bad escape ${escape}`, cpLen(escape));
}

function parseSub(source: Tokenizer, state: State, verbose: boolean, nested: number): Seq {
  const items: Seq[] = [];
  for (;;) {
    items.push(parse(source, state, verbose, nested + 1, nested === 0 && items.length === 0));
    if (!source.match('|')) break;
    if (nested === 0) verbose = (state.flags & VERBOSE) !== 0;
  }
  return items.length === 1 ? items[0]! : [{ op: 'branch', alternatives: items }];
}

function parse(source: Tokenizer, state: State, verbose: boolean, nested: number, first = false): Seq {
  const subpattern: Seq = [];
  for (;;) {
    let current = source.next;
    if (current === null || current === '|' || current === ')') break;
    source.get();
    if (verbose) {
      if (WHITESPACE.has(current)) continue;
      if (current === '#') {
        do current = source.get();
        while (current !== null && current !== '\n');
        continue;
      }
    }
    if (current[0] === '\\') {
      subpattern.push(escapeNode(source, state, current));
    } else if (!SPECIAL_CHARS.includes(current)) {
      subpattern.push({ op: 'literal', cp: cpOf(current) });
    } else if (current === '[') {
      subpattern.push(parseSet(source, state));
    } else if (REPEAT_CHARS.includes(current)) {
      parseRepeat(source, subpattern, current);
    } else if (current === '.') {
      subpattern.push({ op: 'any' });
    } else if (current === '(') {
      const node = parseGroup(source, state, verbose, nested, first && subpattern.length === 0);
      if (node === 'global-flags') verbose = (state.flags & VERBOSE) !== 0;
      else if (node !== null) subpattern.push(node);
    } else if (current === '^') {
      subpattern.push({ op: 'at', at: 'beginning' });
    } else if (current === '$') {
      subpattern.push({ op: 'at', at: 'end' });
    }
  }
  // Unpack non-capturing groups without flags, as Python does.
  return subpattern.flatMap((node) => (node.op === 'subpattern' && node.group === null && !node.addFlags && !node.delFlags ? node.body : [node]));
}

function parseSet(source: Tokenizer, state: State): Node {
  const here = source.tell() - 1;
  const items: SetItem[] = [];
  const negate = source.match('^');
  for (;;) {
    const current = source.get();
    if (current === null) throw source.error('unterminated character set', source.tell() - here);
    if (current === ']' && items.length > 0) break;
    const code1: SetItem = current[0] === '\\' ? classEscape(source, state, current) : { kind: 'literal', cp: cpOf(current) };
    if (source.match('-')) {
      const that = source.get();
      if (that === null) throw source.error('unterminated character set', source.tell() - here);
      if (that === ']') {
        items.push(code1, { kind: 'literal', cp: 0x2d });
        break;
      }
      const code2: SetItem = that[0] === '\\' ? classEscape(source, state, that) : { kind: 'literal', cp: cpOf(that) };
      if (code1.kind !== 'literal' || code2.kind !== 'literal' || code2.cp < code1.cp) {
        throw source.error(`bad character range ${current}-${that}`, cpLen(current) + 1 + cpLen(that));
      }
      items.push({ kind: 'range', lo: code1.cp, hi: code2.cp });
    } else {
      items.push(code1);
    }
  }
  return { op: 'in', negate, items };
}

/** Applies a repeat to the last item, or adds a literal "{" where one is not a repeat. */
function parseRepeat(source: Tokenizer, subpattern: Seq, current: string): void {
  const here = source.tell();
  let min = 0;
  let max = MAXREPEAT;
  if (current === '?') max = 1;
  else if (current === '+') min = 1;
  else if (current === '{') {
    if (source.next === '}') {
      subpattern.push({ op: 'literal', cp: 0x7b });
      return;
    }
    let lo = '';
    let hi = '';
    while (isDigit(source.next)) lo += source.get();
    if (source.match(',')) {
      while (isDigit(source.next)) hi += source.get();
    } else {
      hi = lo;
    }
    if (!source.match('}')) {
      subpattern.push({ op: 'literal', cp: 0x7b });
      source.seek(here);
      return;
    }
    if (lo) {
      min = Number(lo);
      if (min >= MAXREPEAT) throw new PyError('OverflowError', 'the repetition number is too large');
    }
    if (hi) {
      max = Number(hi);
      if (max >= MAXREPEAT) throw new PyError('OverflowError', 'the repetition number is too large');
      if (max < min) throw source.error('min repeat greater than max repeat', source.tell() - here);
    }
  }
  const last = subpattern.at(-1);
  if (!last || last.op === 'at') throw source.error('nothing to repeat', source.tell() - here + current.length);
  if (last.op === 'repeat') throw source.error('multiple repeat', source.tell() - here + current.length);
  const body = last.op === 'subpattern' && last.group === null && !last.addFlags && !last.delFlags ? last.body : [last];
  const mode = source.match('?') ? 'lazy' : source.match('+') ? 'possessive' : 'greedy';
  subpattern[subpattern.length - 1] = { op: 'repeat', min, max, mode, body };
}

/** After "(": a node, null for a comment, or 'global-flags' for leading "(?flags)". */
function parseGroup(source: Tokenizer, state: State, verbose: boolean, nested: number, atStart: boolean): Node | null | 'global-flags' {
  const start = source.tell() - 1;
  let capture = true;
  let atomic = false;
  let name: string | null = null;
  let addFlags = 0;
  let delFlags = 0;
  if (source.match('?')) {
    let char = source.get();
    if (char === null) throw source.error('unexpected end of pattern');
    if (char === 'P') {
      if (source.match('<')) {
        name = source.getuntil('>', 'group name');
        source.checkgroupname(name, 1);
      } else if (source.match('=')) {
        const ref = source.getuntil(')', 'group name');
        source.checkgroupname(ref, 1);
        const gid = state.groupdict.get(ref);
        if (gid === undefined) throw source.error(`unknown group name ${pyRepr(ref)}`, cpLen(ref) + 1);
        if (!state.checkgroup(gid)) throw source.error('cannot refer to an open group', cpLen(ref) + 1);
        state.checklookbehindgroup(gid, source);
        return { op: 'groupref', group: gid };
      } else {
        const next = source.get();
        if (next === null) throw source.error('unexpected end of pattern');
        throw source.error(`unknown extension ?P${next}`, cpLen(next) + 2);
      }
    } else if (char === ':') {
      capture = false;
    } else if (char === '#') {
      for (;;) {
        if (source.next === null) throw source.error('missing ), unterminated comment', source.tell() - start);
        if (source.get() === ')') break;
      }
      return null;
    } else if (char === '=' || char === '!' || char === '<') {
      let behind = false;
      let outerLookbehind: number | null = null;
      if (char === '<') {
        char = source.get();
        if (char === null) throw source.error('unexpected end of pattern');
        if (char !== '=' && char !== '!') throw source.error(`unknown extension ?<${char}`, cpLen(char) + 2);
        behind = true;
        outerLookbehind = state.lookbehindgroups;
        if (outerLookbehind === null) state.lookbehindgroups = state.groups;
      }
      const body = parseSub(source, state, verbose, nested + 1);
      if (behind && outerLookbehind === null) state.lookbehindgroups = null;
      if (!source.match(')')) throw source.error('missing ), unterminated subpattern', source.tell() - start);
      return { op: 'assert', behind, negate: char === '!', body };
    } else if (char === '(') {
      return parseConditional(source, state, verbose, nested, start);
    } else if (char === '>') {
      capture = false;
      atomic = true;
    } else if (Object.hasOwn(FLAGS, char) || char === '-') {
      const flags = parseFlags(source, state, char);
      if (flags === null) {
        if (!atStart) throw source.error('global flags not at the start of the expression', source.tell() - start);
        return 'global-flags';
      }
      [addFlags, delFlags] = flags;
      capture = false;
    } else {
      throw source.error(`unknown extension ?${char}`, cpLen(char) + 1);
    }
  }
  let group: number | null = null;
  if (capture) {
    try {
      group = state.opengroup(name);
    } catch (e) {
      throw source.error((e as Error).message, cpLen(name ?? '') + 1);
    }
  }
  const subVerbose = (verbose || (addFlags & VERBOSE) !== 0) && (delFlags & VERBOSE) === 0;
  const body = parseSub(source, state, subVerbose, nested + 1);
  if (!source.match(')')) throw source.error('missing ), unterminated subpattern', source.tell() - start);
  if (group !== null) state.closegroup(group, body);
  return atomic ? { op: 'atomic', body } : { op: 'subpattern', group, addFlags, delFlags, body };
}

/** `(?(id)yes|no)`: parsed for Python's errors, then refused (JS cannot test whether a group took part). */
function parseConditional(source: Tokenizer, state: State, verbose: boolean, nested: number, start: number): Node {
  const condname = source.getuntil(')', 'group name');
  let condgroup: number;
  if (/^[\p{XID_Start}_][\p{XID_Continue}]*$/u.test(condname)) {
    const gid = state.groupdict.get(condname);
    if (gid === undefined) throw source.error(`unknown group name ${pyRepr(condname)}`, cpLen(condname) + 1);
    condgroup = gid;
  } else {
    // Python reads the id with int(): surrounding spaces, a sign, "_" and any script's digits pass.
    const id = pyIntFromString(condname);
    if (id === null || id < 0n) throw source.error(`bad character in group name ${pyRepr(condname)}`, cpLen(condname) + 1);
    if (id === 0n) throw source.error('bad group number', cpLen(condname) + 1);
    if (id >= MAXGROUPS) throw source.error(`invalid group reference ${id}`, cpLen(condname) + 1);
    condgroup = Number(id);
    if (!state.grouprefpos.has(condgroup)) state.grouprefpos.set(condgroup, source.tell() - cpLen(condname) - 1);
  }
  state.checklookbehindgroup(condgroup, source);
  const yes = parse(source, state, verbose, nested + 1);
  let no: Seq | null = null;
  if (source.match('|')) {
    no = parse(source, state, verbose, nested + 1);
    if (source.next === '|') throw source.error('conditional backref with more than two branches');
  }
  if (!source.match(')')) throw source.error('missing ), unterminated subpattern', source.tell() - start);
  state.markUnsupported('conditional groups (?(id)yes|no)');
  return { op: 'groupref_exists', group: condgroup, yes, no };
}

/** `(?aiLmsux)` (global, returns null) or `(?aimsux-imsx:` (scoped, returns the flags turned on and off). */
function parseFlags(source: Tokenizer, state: State, first: string): [number, number] | null {
  let char: string | null = first;
  let addFlags = 0;
  let delFlags = 0;
  if (char !== '-') {
    for (;;) {
      const flag = FLAGS[char!]!;
      if (char === 'L') throw source.error("bad inline flags: cannot use 'L' flag with a str pattern");
      addFlags |= flag;
      if (flag & TYPE_FLAGS && (addFlags & TYPE_FLAGS) !== flag) throw source.error("bad inline flags: flags 'a', 'u' and 'L' are incompatible");
      char = source.get();
      if (char === null) throw source.error('missing -, : or )');
      if (char === ')' || char === '-' || char === ':') break;
      if (!Object.hasOwn(FLAGS, char)) throw source.error(/^\p{L}$/u.test(char) ? 'unknown flag' : 'missing -, : or )', cpLen(char));
    }
  }
  if (char === ')') {
    state.flags |= addFlags;
    return null;
  }
  if (addFlags & GLOBAL_FLAGS) throw source.error('bad inline flags: cannot turn on global flag', 1);
  if (char === '-') {
    char = source.get();
    if (char === null) throw source.error('missing flag');
    if (!Object.hasOwn(FLAGS, char)) throw source.error(/^\p{L}$/u.test(char) ? 'unknown flag' : 'missing flag', cpLen(char));
    for (;;) {
      const flag = FLAGS[char]!;
      if (flag & TYPE_FLAGS) throw source.error("bad inline flags: cannot turn off flags 'a', 'u' and 'L'");
      delFlags |= flag;
      char = source.get();
      if (char === null) throw source.error('missing :');
      if (char === ':') break;
      if (!Object.hasOwn(FLAGS, char)) throw source.error(/^\p{L}$/u.test(char) ? 'unknown flag' : 'missing :', cpLen(char));
    }
  }
  if (delFlags & GLOBAL_FLAGS) throw source.error('bad inline flags: cannot turn off global flag', 1);
  if (addFlags & delFlags) throw source.error('bad inline flags: flag turned on and off', 1);
  return [addFlags, delFlags];
}

/** re._compiler's look-behind check, in the order it compiles (outer assertions first). */
function checkLookbehinds(seq: Seq, state: State): void {
  for (const node of seq) {
    if (node.op === 'assert' && node.behind) {
      const [lo, hi] = width(node.body, state);
      if (lo > MAXCODE) throw new PyError('re.error', 'looks too much behind');
      if (lo !== hi) throw new PyError('re.error', 'look-behind requires fixed-width pattern');
    }
    if (node.op === 'branch') node.alternatives.forEach((a) => checkLookbehinds(a, state));
    else if (node.op === 'groupref_exists') [node.yes, node.no ?? []].forEach((a) => checkLookbehinds(a, state));
    else if ('body' in node) checkLookbehinds(node.body, state);
  }
}

// --- JS output ---------------------------------------------------------------------------------------

export const ANY = '[\\s\\S]';
const ASCII_WORD = 'A-Za-z0-9_';
const ASCII_SPACE = '\\t-\\r ';
// Placeholders for capturing groups and references, numbered once the whole pattern is written: hidden
// groups (for atomic groups) sit between Python's, so JS numbers differ from Python's.
const OPEN_PY = '\uE000';
const OPEN_HIDDEN = '\uE001';
const REF_PY = '\uE002';
const REF_HIDDEN = '\uE003';
const END = '\uE004';

interface Context {
  ignoreCase: boolean;
  multiline: boolean;
  dotAll: boolean;
  ascii: boolean;
  /** Inside a look-behind, which JS matches right to left. */
  backward: boolean;
}

class Writer {
  private hiddenGroups = 0;

  constructor(private readonly state: State) {}

  seq(seq: Seq, ctx: Context): string {
    return seq.map((node) => this.node(node, ctx)).join('');
  }

  private node(node: Node, ctx: Context): string {
    switch (node.op) {
      case 'literal':
        return literal(node.cp);
      case 'any':
        return ctx.dotAll ? ANY : '[^\\n]';
      case 'in':
        return charClass(node.negate, node.items, ctx);
      case 'at':
        return anchor(node.at, ctx);
      case 'branch':
        return `(?:${node.alternatives.map((a) => this.seq(a, ctx)).join('|')})`;
      case 'subpattern': {
        const inner = scoped(ctx, node.addFlags, node.delFlags);
        // JS has one case mode per pattern (no (?i:...) modifiers before V8 12.5).
        if (inner.ignoreCase !== ctx.ignoreCase && caseMatters(node.body)) throw unsupported('scoped IGNORECASE changes');
        const body = this.seq(node.body, { ...inner, ignoreCase: ctx.ignoreCase });
        if (node.group === null) return `(?:${body})`;
        return `${OPEN_PY}${node.group}${END}${body})`;
      }
      case 'atomic':
        return this.atomic(`(?:${this.seq(node.body, ctx)})`, ctx);
      case 'repeat': {
        const body = `(?:${this.seq(node.body, ctx)})`;
        const q = node.max === MAXREPEAT ? `{${node.min},}` : `{${node.min},${node.max}}`;
        if (node.mode === 'possessive') return this.atomic(`${body}${q}`, ctx);
        return `${body}${q}${node.mode === 'lazy' ? '?' : ''}`;
      }
      case 'assert': {
        const open = `(?${node.behind ? '<' : ''}${node.negate ? '!' : '='}`;
        return `${open}${this.seq(node.body, { ...ctx, backward: node.behind })})`;
      }
      case 'groupref':
        return `${REF_PY}${node.group}${END}`;
      case 'groupref_exists':
        return '';
    }
  }

  /** An atomic group: a look-around captures the first way the body matches, a back-reference consumes it. */
  private atomic(body: string, ctx: Context): string {
    const id = ++this.hiddenGroups;
    const group = `${OPEN_HIDDEN}${id}${END}${body})`;
    const ref = `${REF_HIDDEN}${id}${END}`;
    return ctx.backward ? `${ref}(?<=${group})` : `(?=${group})${ref}`;
  }

  /** Replaces the placeholders with JS group syntax and numbers; returns each Python group's JS number. */
  finish(source: string, groupOffset: number): { source: string; pyGroups: number[] } {
    const pyGroups: number[] = [];
    const hidden: number[] = [];
    let next = groupOffset;
    const opens = new RegExp(`([${OPEN_PY}${OPEN_HIDDEN}])(\\d+)${END}`, 'g');
    for (const m of source.matchAll(opens)) (m[1] === OPEN_PY ? pyGroups : hidden)[Number(m[2])] = ++next;
    const named = source.replace(opens, (_, kind: string, n: string) => {
      const name = kind === OPEN_PY ? this.state.groupNames[Number(n)] : undefined;
      return name === undefined ? '(' : `(?<${name}>`;
    });
    const refs = new RegExp(`([${REF_PY}${REF_HIDDEN}])(\\d+)${END}`, 'g');
    const done = named.replace(refs, (_, kind: string, n: string) => `(?:\\${(kind === REF_PY ? pyGroups : hidden)[Number(n)]})`);
    return { source: done, pyGroups: pyGroups.slice(1) };
  }
}

/** The flags inside `(?flags-flags:...)`. */
function scoped(ctx: Context, addFlags: number, delFlags: number): Context {
  const on = (flag: number, current: boolean) => (addFlags & flag ? true : delFlags & flag ? false : current);
  return {
    ...ctx,
    ignoreCase: on(IGNORECASE, ctx.ignoreCase),
    multiline: on(MULTILINE, ctx.multiline),
    dotAll: on(DOTALL, ctx.dotAll),
    ascii: addFlags & ASCII ? true : addFlags & UNICODE ? false : ctx.ascii,
  };
}

/** Whether case-insensitivity could change what the sequence matches (conservatively: any cased character). */
function caseMatters(seq: Seq): boolean {
  const cased = (cp: number) => {
    const ch = String.fromCodePoint(cp);
    return ch.toLowerCase() !== ch || ch.toUpperCase() !== ch;
  };
  return seq.some((node) => {
    switch (node.op) {
      case 'literal':
        return cased(node.cp);
      case 'in':
        return node.items.some((item) => {
          if (item.kind === 'literal') return cased(item.cp);
          if (item.kind !== 'range') return false;
          if (item.hi - item.lo > 1000) return true;
          for (let cp = item.lo; cp <= item.hi; cp++) if (cased(cp)) return true;
          return false;
        });
      case 'groupref':
        return true;
      case 'branch':
        return node.alternatives.some(caseMatters);
      case 'groupref_exists':
        return caseMatters(node.yes) || (node.no !== null && caseMatters(node.no));
      case 'any':
      case 'at':
        return false;
      default:
        return caseMatters(node.body);
    }
  });
}

/** A code point as an escape valid anywhere in a `u`-mode pattern. */
function literal(cp: number): string {
  const ch = String.fromCodePoint(cp);
  return /^[\p{L}\p{N} ]$/u.test(ch) ? ch : `\\u{${cp.toString(16)}}`;
}

function categorySet(cat: Category, ctx: Context): { positive: string; negated: boolean } {
  const lower = cat.toLowerCase();
  const sets: Record<string, string> = ctx.ascii ? { d: '0-9', w: ASCII_WORD, s: ASCII_SPACE } : { d: '\\p{Nd}', w: PY_WORD_CLASS, s: PY_WHITESPACE_CLASS };
  return { positive: sets[lower]!, negated: cat !== lower };
}

function charClass(negate: boolean, items: SetItem[], ctx: Context): string {
  let contents = '';
  const complements: string[] = [];
  for (const item of items) {
    if (item.kind === 'literal') contents += literal(item.cp);
    else if (item.kind === 'range') contents += `${literal(item.lo)}-${literal(item.hi)}`;
    else {
      const set = categorySet(item.cat, ctx);
      if (set.negated) complements.push(set.positive);
      else contents += set.positive;
    }
  }
  if (complements.length === 0) return `[${negate ? '^' : ''}${contents}]`;
  // JS (without the `v` flag) cannot nest \W, \S or \D inside a class: spell the set out as a union.
  const parts = [...(contents ? [`[${contents}]`] : []), ...complements.map((c) => `[^${c}]`)];
  if (!negate) return `(?:${parts.join('|')})`;
  return `(?:${parts.map((p) => `(?!${p})`).join('')}${ANY})`;
}

function anchor(at: At, ctx: Context): string {
  // `^` and `$` rather than look-arounds such as (?<![\s\S]): V8 lets those match between the halves of a
  // surrogate pair. The JS `m` flag is never set, so they always mean the ends of the text.
  const word = ctx.ascii ? `[${ASCII_WORD}]` : `[${PY_WORD_CLASS}]`;
  switch (at) {
    case 'beginning':
      return ctx.multiline ? '(?:^|(?<=\\n))' : '^';
    case 'end':
      return ctx.multiline ? '(?=\\n|$)' : '(?=\\n?$)';
    case 'beginningString':
      return '^';
    case 'endString':
      return '$';
    case 'boundary':
      return `(?:(?<=${word})(?!${word})|(?<!${word})(?=${word}))`;
    case 'nonBoundary':
      // Python's \B never matches in an empty string.
      return `(?:(?<=${word})(?=${word})|(?<!${word})(?!${word})(?:(?<=${ANY})|(?=${ANY})))`;
  }
}

// --- entry point -------------------------------------------------------------------------------------

export interface TranslatedPattern {
  /** JS source for a `u`-mode RegExp (add `i` when `ignoreCase`). */
  source: string;
  /** Python's `re.compile(...).groups`. */
  groupCount: number;
  /** The JS group number of each Python group (1…groupCount); equal unless the pattern has atomic groups. */
  pyGroups: number[];
  ignoreCase: boolean;
}

/** Python flag letters ("aimsux") as re flags; unknown letters throw. */
function flagValue(letters: string): number {
  let value = 0;
  for (const letter of letters) {
    const flag = FLAGS[letter];
    if (flag === undefined || flag === LOCALE || flag === TEMPLATE) throw new Error(`unknown regex flag ${JSON.stringify(letter)}`);
    value |= flag;
  }
  return value;
}

/**
 * `re.compile(pattern, flags)` as JS source; raises re.error (a PyError) with Python's message where Python
 * does, and for the few constructs JS cannot express. Back-references shift by `groupOffset` for callers
 * that put their own groups first.
 */
export function translatePattern(pattern: string, flagLetters = '', groupOffset = 0): TranslatedPattern {
  const source = new Tokenizer(pattern);
  const state = new State();
  state.flags = flagValue(flagLetters);
  const tree = parseSub(source, state, (state.flags & VERBOSE) !== 0, 0);
  if (state.flags & ASCII && state.flags & UNICODE) throw new PyError('ValueError', 'ASCII and UNICODE flags are incompatible');
  if (source.next !== null) throw source.error('unbalanced parenthesis');
  for (const [group, pos] of state.grouprefpos) {
    if (group >= state.groups) throw reError(`invalid group reference ${group}`, pattern, pos);
  }
  checkLookbehinds(tree, state);
  if (state.unsupported !== null) throw unsupported(state.unsupported);
  const ctx: Context = {
    ignoreCase: (state.flags & IGNORECASE) !== 0,
    multiline: (state.flags & MULTILINE) !== 0,
    dotAll: (state.flags & DOTALL) !== 0,
    ascii: (state.flags & ASCII) !== 0,
    backward: false,
  };
  const writer = new Writer(state);
  const { source: js, pyGroups } = writer.finish(writer.seq(tree, ctx), groupOffset);
  return { source: js, groupCount: state.groups - 1, pyGroups, ignoreCase: ctx.ignoreCase };
}

// Python's json module: loads keeps int (bigint) and float apart, reads NaN/Infinity and fails with CPython's
// messages; dumps writes ensure_ascii text with Python's separators. Graders parse answers and prompts with it.
import { PyError } from './errors';
import { pyFloatRepr } from './number';
import { compareCodePoints } from './str';
import { pyStr } from './values';

/** A json.loads result: ints are bigint, floats are number, objects are Maps (key order kept). */
export type PyJson = null | boolean | string | bigint | number | PyJson[] | Map<string, PyJson>;

const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;
const LITERALS: [string, PyJson][] = [
  ['null', null],
  ['true', true],
  ['false', false],
  ['NaN', Number.NaN],
  ['Infinity', Number.POSITIVE_INFINITY],
  ['-Infinity', Number.NEGATIVE_INFINITY],
];
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
const SPACE = new Set([' ', '\t', '\n', '\r']);

/** CPython's C scanner (json.decoder.scanstring, scan_once) with its error messages and positions. */
class Parser {
  private i = 0;
  constructor(private readonly s: string) {}

  /** JSONDecodeError(message, doc, pos): positions, lines and columns count code points. */
  private fail(message: string, at = this.i): never {
    const before = [...this.s.slice(0, at)];
    const pos = before.length;
    const lastNewline = before.lastIndexOf('\n');
    const line = before.filter((ch) => ch === '\n').length + 1;
    throw new PyError('JSONDecodeError', `${message}: line ${line} column ${pos - lastNewline} (char ${pos})`);
  }

  private skipSpace(): void {
    while (SPACE.has(this.s[this.i]!)) this.i++;
  }

  document(): PyJson {
    if (this.s.startsWith('\ufeff')) this.fail('Unexpected UTF-8 BOM (decode using utf-8-sig)', 0);
    this.skipSpace();
    const value = this.value();
    this.skipSpace();
    if (this.i !== this.s.length) this.fail('Extra data');
    return value;
  }

  private value(): PyJson {
    const ch = this.s[this.i];
    if (ch === '"') return this.string();
    if (ch === '{') return this.object();
    if (ch === '[') return this.array();
    for (const [word, value] of LITERALS) {
      if (this.s.startsWith(word, this.i)) {
        this.i += word.length;
        return value;
      }
    }
    NUMBER.lastIndex = this.i;
    const m = NUMBER.exec(this.s);
    if (!m) this.fail('Expecting value');
    this.i += m[0].length;
    return m[1] === undefined && m[2] === undefined ? BigInt(m[0]) : Number(m[0]);
  }

  private string(): string {
    const begin = this.i;
    let out = '';
    this.i++;
    for (;;) {
      const ch = this.s[this.i];
      if (ch === undefined) this.fail('Unterminated string starting at', begin);
      if (ch === '"') {
        this.i++;
        return out;
      }
      if (ch < ' ') this.fail('Invalid control character at');
      if (ch !== '\\') {
        out += ch;
        this.i++;
        continue;
      }
      const esc = this.s[this.i + 1];
      if (esc === undefined) this.fail('Unterminated string starting at', begin);
      if (esc === 'u') {
        // The C scanner wants a character after the four digits, even a valid string's closing quote.
        const hex = this.s.slice(this.i + 2, this.i + 6);
        if (this.i + 6 >= this.s.length || !/^[0-9A-Fa-f]{4}$/.test(hex)) this.fail('Invalid \\uXXXX escape', this.i + 1);
        out += String.fromCharCode(parseInt(hex, 16));
        this.i += 6;
      } else if (ESCAPES[esc] !== undefined) {
        out += ESCAPES[esc];
        this.i += 2;
      } else {
        this.fail('Invalid \\escape');
      }
    }
  }

  /** The items of a `[…]` or `{…}` after its opening bracket, each read by `item`, separated by commas. */
  private delimited(close: string, item: () => void): void {
    this.i++;
    this.skipSpace();
    if (this.s[this.i] === close) {
      this.i++;
      return;
    }
    for (;;) {
      item();
      this.skipSpace();
      const ch = this.s[this.i++];
      if (ch === close) return;
      if (ch !== ',') this.fail("Expecting ',' delimiter", this.i - 1);
      this.skipSpace();
    }
  }

  private array(): PyJson[] {
    const items: PyJson[] = [];
    this.delimited(']', () => items.push(this.value()));
    return items;
  }

  private object(): Map<string, PyJson> {
    const entries = new Map<string, PyJson>();
    this.delimited('}', () => {
      if (this.s[this.i] !== '"') this.fail('Expecting property name enclosed in double quotes');
      const key = this.string();
      this.skipSpace();
      if (this.s[this.i] !== ':') this.fail("Expecting ':' delimiter");
      this.i++;
      this.skipSpace();
      entries.set(key, this.value());
    });
    return entries;
  }
}

/** `json.loads(text)`; raises a JSONDecodeError PyError, with Python's message, where Python does. */
export function jsonLoads(text: string): PyJson {
  return new Parser(text).document();
}

/** `json.loads(text)` as plain JS values (ints become numbers, dicts plain objects), for JSON-shaped consumers. */
export function jsonLoadsPlain(text: string): unknown {
  return toPlainJson(jsonLoads(text));
}

/** A JSON.parse value (a task field) as a PyJson; its numbers count as floats. */
export function fromPlainJson(v: unknown): PyJson {
  if (Array.isArray(v)) return v.map(fromPlainJson);
  if (v !== null && typeof v === 'object') return new Map(Object.entries(v).map(([k, x]) => [k, fromPlainJson(x)]));
  return v as PyJson;
}

/** Back to a JSON-serialisable value: ints become numbers, dicts plain objects. */
export function toPlainJson(v: PyJson): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map(toPlainJson);
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [k, toPlainJson(x)]));
  return v;
}

export interface DumpsOptions {
  /** `sort_keys=True`: keys in code-point order. */
  sortKeys?: boolean;
  /** The value is a PyJson (ints are bigint), so every JS number is a float; else an integral number is an int. */
  numbersAreFloats?: boolean;
  /** `indent=n`: one item per line, nested n spaces deeper, with "," and ": " separators. */
  indent?: number;
  /** `ensure_ascii=False`: only control characters, quotes and backslashes are escaped. Default true. */
  ensureAscii?: boolean;
}

/** `json.dumps(value, ensure_ascii=?, sort_keys=?)` with Python's default ", " and ": " separators. */
export function jsonDumps(value: unknown, options: DumpsOptions = {}): string {
  return dumps(value, options, 0);
}

function dumps(value: unknown, options: DumpsOptions, depth: number): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'bigint') return String(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : value < 0 ? '-Infinity' : 'NaN';
    return options.numbersAreFloats ? pyFloatRepr(value) : pyStr(value);
  }
  if (typeof value === 'string') return jsonString(value, options.ensureAscii);
  const entries: [string, unknown][] | null = Array.isArray(value) ? null : value instanceof Map ? [...value] : Object.entries(value as object);
  if (entries && options.sortKeys) entries.sort(([a], [b]) => compareCodePoints(a, b));
  const items = Array.isArray(value) ? value.map((v) => dumps(v, options, depth + 1)) : entries!.map(([k, v]) => `${jsonString(k, options.ensureAscii)}: ${dumps(v, options, depth + 1)}`);
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  if (options.indent === undefined || !items.length) return `${open}${items.join(', ')}${close}`;
  const pad = (n: number) => '\n' + ' '.repeat(options.indent! * n);
  return `${open}${pad(depth + 1)}${items.join(',' + pad(depth + 1))}${pad(depth)}${close}`;
}

const SHORT_ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' };

function jsonString(text: string, ensureAscii = true): string {
  let out = '"';
  // UTF-16 units, because ensure_ascii writes astral characters as surrogate pairs too.
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    const code = text.charCodeAt(i);
    if (SHORT_ESCAPES[ch]) out += SHORT_ESCAPES[ch];
    else if (code < 0x20 || (ensureAscii && code > 0x7e)) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

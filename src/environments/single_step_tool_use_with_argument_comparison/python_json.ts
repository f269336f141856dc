// Python's json.loads and `==` for tool-call arguments. Python keeps 1 (int) and 1.0 (float) apart, reads
// NaN/Infinity, and has True == 1; NeMo Gym's argument checks depend on all three, JSON.parse on none.

/** A parsed Python JSON value: ints are bigint, floats are number, objects are Maps (key order kept). */
export type PyJson = null | boolean | string | bigint | number | PyJson[] | Map<string, PyJson>;

export class PyJsonError extends Error {
  override name = 'PyJsonError';
}

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

class Parser {
  private i = 0;
  constructor(private readonly s: string) {}

  private fail(message: string): never {
    throw new PyJsonError(`${message}: char ${this.i}`);
  }

  private skipSpace(): void {
    while (' \t\n\r'.includes(this.s[this.i] ?? 'x')) this.i++;
  }

  document(): PyJson {
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
    let out = '';
    this.i++;
    for (;;) {
      const ch = this.s[this.i++];
      if (ch === undefined) this.fail('Unterminated string');
      if (ch === '"') return out;
      if (ch < ' ') this.fail('Invalid control character');
      if (ch !== '\\') {
        out += ch;
        continue;
      }
      const esc = this.s[this.i++];
      if (esc === 'u') {
        const hex = this.s.slice(this.i, this.i + 4);
        if (!/^[0-9A-Fa-f]{4}$/.test(hex)) this.fail('Invalid \\uXXXX escape');
        out += String.fromCharCode(parseInt(hex, 16));
        this.i += 4;
      } else if (esc !== undefined && ESCAPES[esc] !== undefined) {
        out += ESCAPES[esc];
      } else {
        this.fail('Invalid \\escape');
      }
    }
  }

  private array(): PyJson[] {
    const items: PyJson[] = [];
    this.i++;
    this.skipSpace();
    if (this.s[this.i] === ']') {
      this.i++;
      return items;
    }
    for (;;) {
      this.skipSpace();
      items.push(this.value());
      this.skipSpace();
      const ch = this.s[this.i++];
      if (ch === ']') return items;
      if (ch !== ',') this.fail("Expecting ',' delimiter");
    }
  }

  private object(): Map<string, PyJson> {
    const entries = new Map<string, PyJson>();
    this.i++;
    this.skipSpace();
    if (this.s[this.i] === '}') {
      this.i++;
      return entries;
    }
    for (;;) {
      this.skipSpace();
      if (this.s[this.i] !== '"') this.fail('Expecting property name enclosed in double quotes');
      const key = this.string();
      this.skipSpace();
      if (this.s[this.i++] !== ':') this.fail("Expecting ':' delimiter");
      this.skipSpace();
      entries.set(key, this.value());
      this.skipSpace();
      const ch = this.s[this.i++];
      if (ch === '}') return entries;
      if (ch !== ',') this.fail("Expecting ',' delimiter");
    }
  }
}

/** `json.loads(text)`; throws PyJsonError where Python raises JSONDecodeError. */
export function loadsPython(text: string): PyJson {
  return new Parser(text).document();
}

/** Python's `type(v).__name__` for a parsed value. */
export function pyTypeName(v: PyJson): 'dict' | 'list' | 'str' | 'float' | 'int' | 'bool' | 'NoneType' {
  if (v === null) return 'NoneType';
  if (v instanceof Map) return 'dict';
  if (Array.isArray(v)) return 'list';
  if (typeof v === 'string') return 'str';
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'boolean') return 'bool';
  return 'float';
}

function asNumber(v: PyJson): number | bigint | undefined {
  if (typeof v === 'boolean') return v ? 1n : 0n;
  return typeof v === 'number' || typeof v === 'bigint' ? v : undefined;
}

/** Python `a == b`: numbers compare by value across bool/int/float, containers element-wise. */
export function pyEquals(a: PyJson, b: PyJson): boolean {
  const x = asNumber(a);
  const y = asNumber(b);
  // Loose equality compares a bigint and a number by exact mathematical value, like Python.
  if (x !== undefined || y !== undefined) return x !== undefined && y !== undefined && x == y;
  if (a instanceof Map || b instanceof Map) {
    if (!(a instanceof Map && b instanceof Map) || a.size !== b.size) return false;
    for (const [key, value] of a) if (!b.has(key) || !pyEquals(value, b.get(key)!)) return false;
    return true;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => pyEquals(v, b[i]!));
  }
  return a === b;
}

/** A JSON value from JSON.parse (a task field) as a PyJson; its numbers count as floats. */
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

// Python semantics the workplace tools depend on: truthiness, str()/repr(), comparisons, int(), and
// exceptions whose messages reach the model verbatim ("Error executing tool '…': <message>").

/** A Python exception raised inside a tool; `kind` decides which `except` clauses catch it. */
export class PyError extends Error {
  constructor(
    readonly kind: 'TypeError' | 'ValueError' | 'AttributeError' | 'ZeroDivisionError' | 'OverflowError' | 're.error',
    message: string,
  ) {
    super(message);
    this.name = kind;
  }
}

/** Characters Python's str.split()/strip() treat as whitespace (JS's \s differs: it has U+FEFF, lacks U+001C–U+001F and U+0085). */
const WHITESPACE = '\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const WHITESPACE_RUN = new RegExp(`[${WHITESPACE}]+`);
const EDGE_WHITESPACE = new RegExp(`^[${WHITESPACE}]+|[${WHITESPACE}]+$`, 'g');

export function pySplit(text: string): string[] {
  return text.split(WHITESPACE_RUN).filter((word) => word !== '');
}

export function pyStrip(text: string): string {
  return text.replace(EDGE_WHITESPACE, '');
}

export function truthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

/** JSON numbers arrive without Python's int/float distinction; integral ones are taken as int. */
export function typeName(value: unknown): string {
  if (value === null || value === undefined) return 'NoneType';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (typeof value === 'string') return 'str';
  if (Array.isArray(value)) return 'list';
  return 'dict';
}

function floatRepr(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  const exponent = Math.floor(Math.log10(Math.abs(value)));
  if (value !== 0 && (exponent < -4 || exponent >= 16)) {
    const [mantissa, exp] = value.toExponential().split('e') as [string, string];
    const sign = exp.startsWith('-') ? '-' : '+';
    return `${mantissa}e${sign}${exp.replace(/^[+-]/, '').padStart(2, '0')}`;
  }
  return String(value);
}

function strRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return quote + out + quote;
}

export function pyRepr(value: unknown): string {
  if (typeof value === 'string') return strRepr(value);
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value).map(([k, v]) => `${strRepr(k)}: ${pyRepr(v)}`).join(', ')}}`;
  }
  return pyStr(value);
}

/** Python's str(): what an f-string shows. */
export function pyStr(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : floatRepr(value);
  return pyRepr(value);
}

export function pyEq(a: unknown, b: unknown): boolean {
  const num = (v: unknown) => (typeof v === 'boolean' ? Number(v) : v);
  if ((typeof a === 'number' || typeof a === 'boolean') && (typeof b === 'number' || typeof b === 'boolean')) return num(a) === num(b);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => pyEq(v, b[i]));
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => k in b && pyEq((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return a === b || (a == null && b == null);
}

/** Python's str ordering is by code point; JS's `<` compares UTF-16 units. */
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

type Op = '<' | '<=' | '>' | '>=';

/** Python's rich comparison of two JSON values; mixed types raise TypeError with Python's message. */
export function pyCompare(a: unknown, op: Op, b: unknown): boolean {
  let order: number;
  const numeric = (v: unknown) => typeof v === 'number' || typeof v === 'boolean';
  if (numeric(a) && numeric(b)) order = Number(a) - Number(b);
  else if (typeof a === 'string' && typeof b === 'string') order = compareCodePoints(a, b);
  else throw new PyError('TypeError', `'${op}' not supported between instances of '${typeName(a)}' and '${typeName(b)}'`);
  return op === '<' ? order < 0 : op === '<=' ? order <= 0 : op === '>' ? order > 0 : order >= 0;
}

/** Python's min(a, b): the first argument unless the second is smaller (returns the original object). */
export function pyMin(a: unknown, b: unknown): unknown {
  return pyCompare(b, '<', a) ? b : a;
}

/** Python's max(a, b). */
export function pyMax(a: unknown, b: unknown): unknown {
  return pyCompare(b, '>', a) ? b : a;
}

// Python also accepts non-ASCII decimal digits here; ids and durations never use them.
const INT_LITERAL = /^[+-]?[0-9]+(?:_[0-9]+)*$/;

/** Python's int(x) for JSON values, as a bigint (ids may be updated to arbitrarily long digit strings). */
export function pyInt(value: unknown): bigint {
  if (typeof value === 'boolean') return value ? 1n : 0n;
  if (typeof value === 'number') {
    if (Number.isNaN(value)) throw new PyError('ValueError', 'cannot convert float NaN to integer');
    if (!Number.isFinite(value)) throw new PyError('OverflowError', 'cannot convert float infinity to integer');
    return BigInt(Math.trunc(value));
  }
  if (typeof value === 'string') {
    const text = pyStrip(value);
    if (!INT_LITERAL.test(text)) throw new PyError('ValueError', `invalid literal for int() with base 10: ${pyRepr(value)}`);
    return BigInt(text.replace(/_/g, ''));
  }
  throw new PyError('TypeError', `int() argument must be a string, a bytes-like object or a real number, not '${typeName(value)}'`);
}

/** Python's str.isdigit for the characters an id can hold: decimal digits and the superscript/circled digits. */
export function pyIsDigit(text: string): boolean {
  return text !== '' && /^[\p{Nd}\u00b2\u00b3\u00b9\u2070\u2074-\u2079\u2080-\u2089\u2460-\u2468\u24f5-\u24fd\u2776-\u277e]+$/u.test(text);
}

/** Python's len(str): code points. */
export function pyLen(text: string): number {
  return [...text].length;
}

/** Python's str.zfill. */
export function zfill(text: string, width: number): string {
  const sign = text.startsWith('-') || text.startsWith('+') ? text[0]! : '';
  return sign + text.slice(sign.length).padStart(width - sign.length, '0');
}

/** `value.lower()` on a JSON value: only str has the method. */
export function callLower(value: unknown): string {
  if (typeof value !== 'string') throw new PyError('AttributeError', `'${typeName(value)}' object has no attribute 'lower'`);
  return value.toLowerCase();
}

/** Python's `needle in container` for JSON values. */
export function pyIn(needle: unknown, container: unknown): boolean {
  if (typeof container === 'string') {
    if (typeof needle !== 'string') throw new PyError('TypeError', `'in <string>' requires string as left operand, not ${typeName(needle)}`);
    return container.includes(needle);
  }
  if (Array.isArray(container)) return container.some((item) => pyEq(item, needle));
  if (container !== null && typeof container === 'object') {
    if (needle !== null && typeof needle === 'object') throw new PyError('TypeError', `unhashable type: '${typeName(needle)}'`);
    return typeof needle === 'string' && Object.hasOwn(container, needle);
  }
  throw new PyError('TypeError', `argument of type '${typeName(container)}' is not iterable`);
}

/** Python's floor division and slicing, which pagination relies on (page sizes may be zero or negative). */
export function floorDiv(a: number, b: number): number {
  if (b === 0) throw new PyError('ZeroDivisionError', 'integer division or modulo by zero');
  return Math.floor(a / b);
}

export function pySlice<T>(items: readonly T[], start: number, end: number): T[] {
  const clamp = (i: number) => (i < 0 ? Math.max(0, items.length + i) : Math.min(i, items.length));
  return items.slice(clamp(start), Math.max(clamp(start), clamp(end)));
}

/** Arithmetic operands of pagination must be numbers (bool counts as int in Python). */
export function pyNumber(value: unknown, other: unknown, op: '+' | '-' | '*'): number {
  if (typeof value === 'number' || typeof value === 'boolean') return Number(value);
  throw new PyError('TypeError', `unsupported operand type(s) for ${op}: '${typeName(other)}' and '${typeName(value)}'`);
}

/** Slice bounds computed from these operands are Python floats (refused as indices) if any operand is one. */
export function requireIntegerOperands(...operands: unknown[]): void {
  if (operands.some((v) => typeof v === 'number' && !Number.isInteger(v))) {
    throw new PyError('TypeError', 'slice indices must be integers or None or have an __index__ method');
  }
}

// Python's builtins on JSON-shaped values: truthiness, type names, str()/repr(), ==, ordering, `in` and int(),
// raising the TypeError/ValueError Python would, with its messages (tools show them to the model verbatim).
import { PyError } from './errors';
import { pyFloatRepr, pyIntFromString } from './number';
import { compareCodePoints } from './str';

export type PyTypeName = 'NoneType' | 'bool' | 'int' | 'float' | 'str' | 'list' | 'dict';

/** `bool(value)`. */
export function truthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === 0n || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (value instanceof Map) return value.size > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

/**
 * `type(value).__name__`. JSON.parse loses Python's int/float distinction, so there an integral number
 * counts as an int; json.loads results (ints as bigint, see json.ts) pass `numbersAreFloats`.
 */
export function typeName(value: unknown, numbersAreFloats = false): PyTypeName {
  if (value === null || value === undefined) return 'NoneType';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'bigint') return 'int';
  if (typeof value === 'number') return !numbersAreFloats && Number.isInteger(value) ? 'int' : 'float';
  if (typeof value === 'string') return 'str';
  if (Array.isArray(value)) return 'list';
  return 'dict';
}

const PRINTABLE_EXCEPTIONS = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

/** `repr(s)`: Python's quote choice, and escapes for what `str.isprintable()` rejects. */
function strRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch !== ' ' && PRINTABLE_EXCEPTIONS.test(ch)) {
      const hex = code.toString(16);
      out += code <= 0xff ? `\\x${hex.padStart(2, '0')}` : code <= 0xffff ? `\\u${hex.padStart(4, '0')}` : `\\U${hex.padStart(8, '0')}`;
    } else out += ch;
  }
  return quote + out + quote;
}

/** `repr(value)`. */
export function pyRepr(value: unknown): string {
  if (typeof value === 'string') return strRepr(value);
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(', ')}]`;
  if (value instanceof Map) return `{${[...value].map(([k, v]) => `${pyRepr(k)}: ${pyRepr(v)}`).join(', ')}}`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([k, v]) => `${strRepr(k)}: ${pyRepr(v)}`)
      .join(', ')}}`;
  }
  return pyStr(value);
}

/** `str(value)`: what an f-string shows. An integral JS number prints as an int. */
export function pyStr(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'bigint') return String(value);
  if (typeof value === 'number') return Number.isInteger(value) ? String(BigInt(value)) : pyFloatRepr(value);
  return pyRepr(value);
}

function asNumber(value: unknown): number | bigint | undefined {
  if (typeof value === 'boolean') return value ? 1 : 0;
  return typeof value === 'number' || typeof value === 'bigint' ? value : undefined;
}

/** `a == b`: numbers by value across bool/int/float (bigint or number), containers element-wise. */
export function pyEq(a: unknown, b: unknown): boolean {
  const x = asNumber(a);
  const y = asNumber(b);
  // Loose equality compares a bigint and a number by exact mathematical value, like Python.
  if (x !== undefined || y !== undefined) return x !== undefined && y !== undefined && x == y;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => pyEq(v, b[i]));
  }
  if (a instanceof Map || b instanceof Map) {
    if (!(a instanceof Map && b instanceof Map) || a.size !== b.size) return false;
    for (const [key, value] of a) if (!b.has(key) || !pyEq(value, b.get(key))) return false;
    return true;
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => k in b && pyEq((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return a === b || (a == null && b == null);
}

export type ComparisonOp = '<' | '<=' | '>' | '>=';

/** `a < b` and friends: numbers by value, strs by code point; other mixes raise TypeError. */
export function pyCompare(a: unknown, op: ComparisonOp, b: unknown): boolean {
  let order: number;
  const numeric = (v: unknown) => typeof v === 'number' || typeof v === 'boolean';
  if (numeric(a) && numeric(b)) order = Number(a) - Number(b);
  else if (typeof a === 'string' && typeof b === 'string') order = compareCodePoints(a, b);
  else throw new PyError('TypeError', `'${op}' not supported between instances of '${typeName(a)}' and '${typeName(b)}'`);
  return op === '<' ? order < 0 : op === '<=' ? order <= 0 : op === '>' ? order > 0 : order >= 0;
}

/** `min(a, b)`: the first argument unless the second is smaller (the original object, not a copy). */
export function pyMin(a: unknown, b: unknown): unknown {
  return pyCompare(b, '<', a) ? b : a;
}

/** `max(a, b)`. */
export function pyMax(a: unknown, b: unknown): unknown {
  return pyCompare(b, '>', a) ? b : a;
}

/** `needle in container` for a str, list or dict container. */
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

/** `int(value)` as a bigint (ids may be updated to arbitrarily long digit strings). */
export function pyInt(value: unknown): bigint {
  if (typeof value === 'boolean') return value ? 1n : 0n;
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') {
    if (Number.isNaN(value)) throw new PyError('ValueError', 'cannot convert float NaN to integer');
    if (!Number.isFinite(value)) throw new PyError('OverflowError', 'cannot convert float infinity to integer');
    return BigInt(Math.trunc(value));
  }
  if (typeof value === 'string') {
    const parsed = pyIntFromString(value);
    if (parsed === null) throw new PyError('ValueError', `invalid literal for int() with base 10: ${pyRepr(value)}`);
    return parsed;
  }
  throw new PyError('TypeError', `int() argument must be a string, a bytes-like object or a real number, not '${typeName(value)}'`);
}

/** `a // b` on ints. */
export function floorDiv(a: number, b: number): number {
  if (b === 0) throw new PyError('ZeroDivisionError', 'integer division or modulo by zero');
  return Math.floor(a / b);
}

/** `value.lower()`: only a str has the method. */
export function callLower(value: unknown): string {
  if (typeof value !== 'string') throw new PyError('AttributeError', `'${typeName(value)}' object has no attribute 'lower'`);
  return value.toLowerCase();
}

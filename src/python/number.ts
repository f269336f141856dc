// Python's int(str), float(str) and repr(float), which graders compare answers through: Python accepts "1_000",
// " inf " and any script's decimal digits, and prints floats with shortest round-trip digits in its own style.
import { pyStrip } from './str';

const FLOAT = /^[+-]?(?:(?:\d(?:_?\d)*)?\.\d(?:_?\d)*|\d(?:_?\d)*\.?)(?:[eE][+-]?\d(?:_?\d)*)?$/;
const SPECIAL = /^([+-]?)(inf|infinity|nan)$/i;
const INT = /^([+-]?)(\p{Nd}+(?:_\p{Nd}+)*)$/u;

/** The value 0–9 of a Unicode decimal digit: Nd digits come in runs of ten that start at zero. */
function digitValue(cp: number): number {
  let start = cp;
  while (/\p{Nd}/u.test(String.fromCodePoint(start - 1))) start--;
  return (cp - start) % 10;
}

/** Every script's decimal digits as ASCII ones. */
export function asciiDigits(s: string): string {
  let out = '';
  for (const ch of s) out += /\p{Nd}/u.test(ch) ? String(digitValue(ch.codePointAt(0)!)) : ch;
  return out;
}

/** `float(s)`, or null where Python raises ValueError. */
export function pyFloat(s: string): number | null {
  const text = asciiDigits(pyStrip(s));
  const special = SPECIAL.exec(text);
  if (special) {
    const value = special[2]!.toLowerCase() === 'nan' ? Number.NaN : Number.POSITIVE_INFINITY;
    return special[1] === '-' ? -value : value;
  }
  if (!FLOAT.test(text)) return null;
  return Number(text.replaceAll('_', ''));
}

/** `int(s)` (base 10) as a bigint, or null where Python raises ValueError. */
export function pyIntFromString(s: string): bigint | null {
  const m = INT.exec(pyStrip(s));
  if (!m) return null;
  const magnitude = BigInt(asciiDigits(m[2]!.replaceAll('_', '')));
  return m[1] === '-' ? -magnitude : magnitude;
}

/** `repr(x)` (= `str(x)`): shortest round-trip digits, exponent form outside 1e-4 ≤ |x| < 1e16. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const sign = x < 0 ? '-' : '';
  const [mantissa, exponent] = Math.abs(x).toExponential().split('e') as [string, string];
  const digits = mantissa.replace('.', '');
  const exp = Number(exponent);
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  if (digits.length <= exp + 1) return `${sign}${digits}${'0'.repeat(exp + 1 - digits.length)}.0`;
  return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}

// Python's float(str) and repr(float). NeMo Gym compares numeric answers as `str(float(x))`, so the
// port must accept what Python accepts ("1_000", " inf ", Arabic-Indic digits) and print as it prints.
import { pyStrip } from '../mcqa/python_str';

const NUMBER = /^[+-]?(?:(?:\d(?:_?\d)*)?\.\d(?:_?\d)*|\d(?:_?\d)*\.?)(?:[eE][+-]?\d(?:_?\d)*)?$/;
const SPECIAL = /^([+-]?)(inf|infinity|nan)$/i;

/** The value 0–9 of a Unicode decimal digit: Nd digits come in runs of ten that start at zero. */
function digitValue(cp: number): number {
  let start = cp;
  while (/\p{Nd}/u.test(String.fromCodePoint(start - 1))) start--;
  return (cp - start) % 10;
}

function asciiDigits(s: string): string {
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
  if (!NUMBER.test(text)) return null;
  return Number(text.replaceAll('_', ''));
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

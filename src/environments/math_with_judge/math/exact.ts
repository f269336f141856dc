// Exact rational arithmetic for answers built only from numbers, + − × ÷ and integer powers, so that
// 2^200 + 1 and 2^200 differ even where 64-digit evaluation cannot tell them apart.
import type { Expr } from './ast';

export type Fraction = readonly [p: bigint, q: bigint];

const MAX_DIGITS = 20_000;

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b) [a, b] = [b, a % b];
  return a;
}

function reduce(p: bigint, q: bigint): Fraction | undefined {
  if (q === 0n) return undefined;
  if (q < 0n) [p, q] = [-p, -q];
  const g = gcd(p, q) || 1n;
  const out: Fraction = [p / g, q / g];
  return out[0].toString().length + out[1].toString().length > MAX_DIGITS ? undefined : out;
}

function decimalText(text: string): Fraction | undefined {
  const m = /^(-?)(\d*)\.?(\d*)$/.exec(text);
  if (!m) return undefined;
  return reduce(BigInt(`${m[1]}${m[2] || '0'}${m[3]}`), 10n ** BigInt(m[3]!.length));
}

function pow([p, q]: Fraction, n: bigint): Fraction | undefined {
  const magnitude = n < 0n ? -n : n;
  if (magnitude * BigInt(Math.max(p.toString().length, q.toString().length)) > BigInt(MAX_DIGITS)) return undefined;
  const [a, b] = n < 0n ? [q, p] : [p, q];
  return reduce(a ** magnitude, b ** magnitude);
}

/** The exact value, or undefined when the expression is not plainly rational (or too large). */
export function exactValue(e: Expr): Fraction | undefined {
  switch (e.k) {
    case 'int':
      return [e.v, 1n];
    case 'rat':
      return [e.p, e.q];
    case 'float':
      return decimalText(e.text);
    case 'pct': {
      const v = exactValue(e.arg);
      return v && reduce(v[0], v[1] * 100n);
    }
    case 'add':
    case 'mul': {
      let acc: Fraction | undefined = e.k === 'add' ? [0n, 1n] : [1n, 1n];
      for (const arg of e.args) {
        const v = exactValue(arg);
        if (!v || !acc) return undefined;
        acc = e.k === 'add' ? reduce(acc[0] * v[1] + v[0] * acc[1], acc[1] * v[1]) : reduce(acc[0] * v[0], acc[1] * v[1]);
      }
      return acc;
    }
    case 'pow': {
      const base = exactValue(e.base);
      const exp = exactValue(e.exp);
      if (!base || !exp || exp[1] !== 1n || (base[0] === 0n && exp[0] < 0n)) return undefined;
      return pow(base, exp[0]);
    }
    default:
      return undefined;
  }
}

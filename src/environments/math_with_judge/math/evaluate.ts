// Numeric evaluation of answer expressions with 64 significant digits and an exponent range wide enough
// for answers like (2+√3)^2016, standing in for SymPy's evalf when math-verify compares values.
import Decimal from 'decimal.js';
import type { Expr } from './ast';

const D = Decimal.clone({ precision: 64, rounding: Decimal.ROUND_HALF_EVEN, minE: -9e15, maxE: 9e15 });
export type Dec = InstanceType<typeof D>;
export const Dec = D;

/** Thrown where SymPy would not produce a real number (division by zero, √-1, 0.5!, …). */
export class NotReal extends Error {}

function check(x: Dec): Dec {
  if (x.isNaN()) throw new NotReal('not a real number');
  return x;
}

const PI = D.acos(-1);
const EULER = D.exp(1);

function factorial(n: Dec): Dec {
  if (!n.isInteger() || n.isNeg() || n.gt(5000)) throw new NotReal('factorial of a non-integer or huge value');
  let out = new D(1);
  for (let i = 2; i <= n.toNumber(); i++) out = out.mul(i);
  return out;
}

const FUNCS: Record<string, (x: Dec) => Dec> = {
  sqrt: (x) => {
    if (x.isNeg()) throw new NotReal('square root of a negative number');
    return x.sqrt();
  },
  sin: (x) => x.sin(),
  cos: (x) => x.cos(),
  tan: (x) => x.tan(),
  cot: (x) => new D(1).div(x.tan()),
  sec: (x) => new D(1).div(x.cos()),
  csc: (x) => new D(1).div(x.sin()),
  asin: (x) => x.asin(),
  acos: (x) => x.acos(),
  atan: (x) => x.atan(),
  sinh: (x) => x.sinh(),
  cosh: (x) => x.cosh(),
  tanh: (x) => x.tanh(),
  Abs: (x) => x.abs(),
  factorial,
  floor: (x) => x.floor(),
  ceiling: (x) => x.ceil(),
};

function power(base: Dec, exp: Dec): Dec {
  if (base.isNeg() && !exp.isInteger()) throw new NotReal('fractional power of a negative number');
  if (base.isZero() && exp.isNeg()) throw new NotReal('division by zero');
  return base.pow(exp);
}

/** The value of a constant expression, with `vars` giving each symbol's value; throws if it has none. */
export function evaluate(e: Expr, vars: Record<string, Dec> = {}): Dec {
  switch (e.k) {
    case 'int':
      return new D(e.v.toString());
    case 'rat':
      return new D(e.p.toString()).div(e.q.toString());
    case 'float':
      return new D(e.text);
    case 'sym': {
      const v = vars[e.name];
      if (!v) throw new NotReal(`free symbol ${e.name}`);
      return v;
    }
    case 'const':
      return e.name === 'pi' ? PI : e.name === 'E' ? EULER : new D(Infinity);
    case 'add':
      return check(e.args.reduce((acc, a) => acc.add(evaluate(a, vars)), new D(0)));
    case 'mul':
      return check(e.args.reduce((acc, a) => acc.mul(evaluate(a, vars)), new D(1)));
    case 'pow':
      return check(power(evaluate(e.base, vars), evaluate(e.exp, vars)));
    case 'pct':
      return evaluate(e.arg, vars).div(100);
    case 'fn': {
      const args = e.args.map((a) => evaluate(a, vars));
      if (e.name === 'log') {
        if (args.some((a) => !a.isPos())) throw new NotReal('logarithm of a non-positive number');
        return check(args.length === 2 ? args[0]!.ln().div(args[1]!.ln()) : args[0]!.ln());
      }
      if (e.name === 'binomial') {
        const [n, k] = args as [Dec, Dec];
        return check(factorial(n).div(factorial(k).mul(factorial(n.sub(k)))));
      }
      const f = FUNCS[e.name];
      if (!f) throw new NotReal(`no value for ${e.name}`);
      return check(f(args[0]!));
    }
    default:
      throw new NotReal(`${e.k} has no single value`);
  }
}

/** A float approximation when the expression is a constant, else undefined. */
export function approxNumber(e: Expr): number | undefined {
  try {
    return evaluate(e).toNumber();
  } catch {
    return undefined;
  }
}

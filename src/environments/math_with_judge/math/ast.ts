// The expression tree parsed answers become: close to the SymPy objects latex2sympy builds, including
// the distinctions math-verify's comparison cares about (Integer/Rational/Float atoms, sets vs tuples).

export type RelOp = '=' | '<' | '<=' | '>' | '>=' | '!=';

export type Expr =
  | { k: 'int'; v: bigint }
  /** An atomic Rational, as latex2sympy makes from \frac of two integers or a/b of integers. */
  | { k: 'rat'; p: bigint; q: bigint }
  /** A decimal literal (a SymPy Float), kept as written. */
  | { k: 'float'; text: string }
  | { k: 'sym'; name: string }
  | { k: 'const'; name: 'pi' | 'E' | 'oo' }
  | { k: 'add'; args: Expr[] }
  | { k: 'mul'; args: Expr[] }
  | { k: 'pow'; base: Expr; exp: Expr }
  /** sqrt, sin, cos, …, log (args [x] natural or [x, base]), Abs, factorial, binomial, exp. */
  | { k: 'fn'; name: string; args: Expr[] }
  /** x%: SymPy's x*(1/100). */
  | { k: 'pct'; arg: Expr }
  | { k: 'rel'; op: RelOp; lhs: Expr; rhs: Expr }
  /** A chain such as 1 < x < 2. */
  | { k: 'and'; rels: Expr[] }
  | { k: 'set'; items: Expr[] }
  | { k: 'tuple'; items: Expr[] }
  | { k: 'interval'; lo: Expr; hi: Expr; lopen: boolean; ropen: boolean }
  | { k: 'union'; parts: Expr[] };

export const int = (v: bigint | number): Expr => ({ k: 'int', v: BigInt(v) });
export const MINUS_ONE = int(-1);

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b) [a, b] = [b, a % b];
  return a;
}

/** SymPy's Rational(p, q): reduced, sign on the numerator, an Integer when q divides p. */
export function rational(p: bigint, q: bigint): Expr {
  if (q === 0n) throw new Error('division by zero');
  if (q < 0n) [p, q] = [-p, -q];
  const g = gcd(p, q) || 1n;
  return q / g === 1n ? int(p / g) : { k: 'rat', p: p / g, q: q / g };
}

export function negate(e: Expr): Expr {
  if (e.k === 'int') return int(-e.v);
  if (e.k === 'rat') return { k: 'rat', p: -e.p, q: e.q };
  if (e.k === 'float') return { k: 'float', text: e.text.startsWith('-') ? e.text.slice(1) : `-${e.text}` };
  return { k: 'mul', args: [MINUS_ONE, e] };
}

export const sub = (a: Expr, b: Expr): Expr => ({ k: 'add', args: [a, negate(b)] });

export function isNumberAtom(e: Expr): boolean {
  return e.k === 'int' || e.k === 'rat' || e.k === 'float' || (e.k === 'pct' && isNumberAtom(e.arg));
}

export function isFloatAtom(e: Expr): boolean {
  return e.k === 'float' || (e.k === 'pct' && e.arg.k === 'float');
}

export const isRelation = (e: Expr) => e.k === 'rel' || (e.k === 'and' && e.rels.length > 0 && e.rels.every((r) => r.k === 'rel'));
export const isEquation = (e: Expr) => (e.k === 'rel' && e.op === '=') || (e.k === 'and' && e.rels.length > 0 && e.rels.every((r) => r.k === 'rel' && r.op === '='));
export const isSetLike = (e: Expr) => e.k === 'set' || e.k === 'tuple' || e.k === 'interval' || e.k === 'union';

/** latex2sympy's is_expr_of_only_symbols: symbols combined by any operation, no numbers. */
export function onlySymbols(e: Expr): boolean {
  if (e.k === 'sym') return true;
  if (e.k === 'pow') return onlySymbols(e.base) && (onlySymbols(e.exp) || (e.exp.k === 'int' && e.exp.v === -1n));
  if (e.k === 'add' || e.k === 'mul') return e.args.every(onlySymbols);
  return false;
}

export function freeSymbols(e: Expr, out = new Set<string>()): Set<string> {
  switch (e.k) {
    case 'sym':
      out.add(e.name);
      break;
    case 'add':
    case 'mul':
      e.args.forEach((a) => freeSymbols(a, out));
      break;
    case 'pow':
      freeSymbols(e.base, out);
      freeSymbols(e.exp, out);
      break;
    case 'fn':
      e.args.forEach((a) => freeSymbols(a, out));
      break;
    case 'pct':
      freeSymbols(e.arg, out);
      break;
    case 'rel':
      freeSymbols(e.lhs, out);
      freeSymbols(e.rhs, out);
      break;
    case 'and':
      e.rels.forEach((a) => freeSymbols(a, out));
      break;
    case 'set':
    case 'tuple':
      e.items.forEach((a) => freeSymbols(a, out));
      break;
    case 'interval':
      freeSymbols(e.lo, out);
      freeSymbols(e.hi, out);
      break;
    case 'union':
      e.parts.forEach((a) => freeSymbols(a, out));
      break;
  }
  return out;
}

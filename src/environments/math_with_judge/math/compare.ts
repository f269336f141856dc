// math-verify's grader.verify, gold against prediction (not symmetric): equations are unwrapped to
// their values when only one side is an equation, sets compare element-wise, a decimal on either side
// compares to 6 places, and everything else is "mathematically equal" — SymPy's simplify(a - b) == 0,
// decided here by evaluation at high precision (at several points when there are free symbols).
import { freeSymbols, isEquation, isFloatAtom, isNumberAtom, isRelation, isSetLike, onlySymbols, sub, type Expr, type RelOp } from './ast';
import { Dec, evaluate, NotReal, type Dec as DecT } from './evaluate';
import { exactValue } from './exact';
import { sympyStr } from './print';

const FLOAT_PLACES = 6;
// Symbol values for identity testing: away from 0 and 1, positive (so roots and logs are defined).
const SAMPLES = ['1.3137', '2.7093', '0.6421', '4.1876', '1.9582'];

function lastRel(e: Expr): Extract<Expr, { k: 'rel' }> {
  return (e.k === 'and' ? lastRel(e.rels.at(-1)!) : e) as Extract<Expr, { k: 'rel' }>;
}
function firstRel(e: Expr): Extract<Expr, { k: 'rel' }> {
  return (e.k === 'and' ? e.rels[0]! : e) as Extract<Expr, { k: 'rel' }>;
}

/** "x = 1" (or x = y = 1): an equation whose left side is only symbols. */
function isAssignment(e: Expr): boolean {
  if (e.k === 'rel') return e.op === '=' && onlySymbols(e.lhs);
  return isEquation(e) && e.k === 'and' && onlySymbols(firstRel(e).lhs);
}

function close(a: DecT, b: DecT): boolean {
  if (!a.isFinite() || !b.isFinite()) return a.eq(b);
  const diff = a.sub(b).abs();
  return diff.lte(new Dec('1e-40')) || diff.lte(Dec.max(a.abs(), b.abs()).mul('1e-40'));
}

/** Equal as numbers, or as functions of their free symbols at every sample point both can evaluate. */
function mathEqual(a: Expr, b: Expr): boolean {
  const names = [...new Set([...freeSymbols(a), ...freeSymbols(b)])].sort();
  if (names.length === 0) {
    const x = exactValue(a);
    const y = exactValue(b);
    if (x && y) return x[0] === y[0] && x[1] === y[1];
    try {
      return close(evaluate(a), evaluate(b));
    } catch (err) {
      if (err instanceof NotReal) return false;
      throw err;
    }
  }
  let agreed = 0;
  for (let s = 0; s < SAMPLES.length; s++) {
    const vars = Object.fromEntries(names.map((name, i) => [name, new Dec(SAMPLES[(s + i) % SAMPLES.length]!).add(i)]));
    let x: DecT;
    let y: DecT;
    try {
      x = evaluate(a, vars);
      y = evaluate(b, vars);
    } catch (err) {
      if (err instanceof NotReal) continue;
      throw err;
    }
    if (!close(x, y)) return false;
    agreed++;
  }
  return agreed >= 2;
}

/**
 * sympy_numeric_eq then sympy_symbolic_eq. With a decimal on either side, numbers agree when both
 * round to the same 6 places, except that an Integer never equals a rounded Float in SymPy (so 1 vs
 * 0.9999999 is false while 1000 vs 1000.0 is exactly equal).
 */
function numericEqual(a: Expr, b: Expr): boolean {
  if ((isNumberAtom(a) || isNumberAtom(b)) && (isFloatAtom(a) || isFloatAtom(b)) && a.k !== 'int' && b.k !== 'int') {
    try {
      const round = (x: DecT) => x.toDecimalPlaces(FLOAT_PLACES, Dec.ROUND_HALF_EVEN);
      if (round(evaluate(a)).eq(round(evaluate(b)))) return true;
    } catch (err) {
      if (!(err instanceof NotReal)) throw err;
    }
  }
  return mathEqual(a, b);
}

const INVERSE: Record<RelOp, RelOp> = { '<': '>', '>': '<', '<=': '>=', '>=': '<=', '=': '=', '!=': '!=' };

function relationsEqual(gold: Expr, pred: Expr): boolean {
  if (gold.k === 'and' && pred.k === 'and') {
    return gold.rels.length === pred.rels.length && gold.rels.every((g, i) => relationsEqual(g, pred.rels[i]!));
  }
  if (gold.k !== 'rel' || pred.k !== 'rel') return false;
  const g = sub(gold.lhs, gold.rhs);
  if (gold.op === pred.op && exprEqual(g, sub(pred.lhs, pred.rhs))) return true;
  return INVERSE[gold.op] === pred.op && exprEqual(g, sub(pred.rhs, pred.lhs));
}

const NEG_INF: Expr = {
  k: 'mul',
  args: [
    { k: 'int', v: -1n },
    { k: 'const', name: 'oo' },
  ],
};
const POS_INF: Expr = { k: 'const', name: 'oo' };

/** One bound on the only variable: "x < 3", "3 >= x". */
function bound(rel: Expr): { lo?: Expr; hi?: Expr; open: boolean; eq?: Expr } | undefined {
  if (rel.k !== 'rel' || rel.op === '!=') return undefined;
  const flip: Record<string, RelOp> = { '<': '>', '>': '<', '<=': '>=', '>=': '<=', '=': '=' };
  const [op, value] = rel.lhs.k === 'sym' && freeSymbols(rel.rhs).size === 0 ? [rel.op, rel.rhs] : rel.rhs.k === 'sym' && freeSymbols(rel.lhs).size === 0 ? [flip[rel.op]!, rel.lhs] : [];
  if (!op || !value) return undefined;
  if (op === '=') return { eq: value, open: false };
  return op === '<' || op === '<=' ? { hi: value, open: op === '<' } : { lo: value, open: op === '>' };
}

/** SymPy's as_set() for a relation in one variable, which math-verify applies when the prediction is a set. */
function relationAsSet(e: Expr): Expr | undefined {
  if (freeSymbols(e).size !== 1) return undefined;
  const rels = e.k === 'and' ? e.rels : [e];
  if (rels.length > 2) return undefined;
  const bounds = rels.map(bound);
  if (bounds.some((b) => !b)) return undefined;
  if (bounds.length === 1 && bounds[0]!.eq) return { k: 'set', items: [bounds[0]!.eq] };
  const lower = bounds.find((b) => b!.lo);
  const upper = bounds.find((b) => b!.hi);
  if (bounds.some((b) => b!.eq) || (bounds.length === 2 && (!lower || !upper))) return undefined;
  return { k: 'interval', lo: lower?.lo ?? NEG_INF, hi: upper?.hi ?? POS_INF, lopen: lower ? lower.open : true, ropen: upper ? upper.open : true };
}

function sortKey(e: Expr): number | string {
  const inner = isAssignment(e) ? lastRel(e).rhs : e.k === 'interval' ? e.lo : e;
  try {
    return evaluate(inner).toNumber();
  } catch {
    return sympyStr(inner);
  }
}

function sorted(items: Expr[]): Expr[] {
  return [...items].sort((a, b) => {
    const x = sortKey(a);
    const y = sortKey(b);
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    if (typeof x === 'number') return -1;
    if (typeof y === 'number') return 1;
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

function elementsEqual(gold: Expr, pred: Expr): boolean {
  const goldItems = gold.k === 'set' || gold.k === 'tuple' ? gold.items : [];
  const predItems = pred.k === 'set' || pred.k === 'tuple' ? pred.items : [];
  if (goldItems.length !== predItems.length) return false;
  // A gold set ignores order on both sides; a gold tuple keeps the order the prediction was written in.
  const [g, p] =
    gold.k === 'set'
      ? [sorted(goldItems), sorted(predItems)]
      : gold.k === 'tuple' && pred.k === 'set'
        ? [goldItems, predItems]
        : pred.k === 'set'
          ? [goldItems, sorted(predItems)]
          : [goldItems, predItems];
  return g.every((item, i) => exprEqual(item, p[i]!));
}

function setsEqual(gold: Expr, pred: Expr): boolean {
  const a: Expr = isSetLike(gold) ? gold : { k: 'set', items: [gold] };
  const b: Expr = isSetLike(pred) ? pred : { k: 'set', items: [pred] };
  if (a.k === 'interval' && b.k === 'interval') {
    return a.lopen === b.lopen && a.ropen === b.ropen && exprEqual(a.lo, b.lo) && exprEqual(a.hi, b.hi);
  }
  if (sympyStr(a) === sympyStr(b)) return true;
  if (a.k === 'union' || b.k === 'union') {
    return a.k === 'union' && b.k === 'union' && a.parts.length === b.parts.length && sorted(a.parts).every((part, i) => setsEqual(part, sorted(b.parts)[i]!));
  }
  if (a.k !== 'interval' && b.k !== 'interval') return elementsEqual(a, b);
  // "(1, 2)" reads as an open interval, so it may be meant as the pair 1, 2.
  if (a.k === 'interval' && a.lopen && a.ropen && b.k !== 'interval' && b.items.length === 2) return elementsEqual({ k: 'tuple', items: [a.lo, a.hi] }, b);
  if (b.k === 'interval' && b.lopen && b.ropen && a.k !== 'interval' && a.items.length === 2) return elementsEqual(a, { k: 'tuple', items: [b.lo, b.hi] });
  return false;
}

function symbolsEqual(gold: Expr, pred: Expr): boolean {
  const isE = (e: Expr) => e.k === 'const' && e.name === 'E';
  if ((gold.k === 'sym' && gold.name.toLowerCase() === 'e' && isE(pred)) || (pred.k === 'sym' && pred.name.toLowerCase() === 'e' && isE(gold))) return true;
  // "abc" parses as a·b·c while \text{abc} is one symbol.
  const spelled = (e: Expr) => (e.k === 'mul' && e.args.every((a) => a.k === 'sym' || isE(a)) ? e.args.map((a) => (a.k === 'sym' ? a.name : 'e')).join('') : undefined);
  if (gold.k === 'sym' && spelled(pred) !== undefined) return gold.name.toLowerCase() === spelled(pred)!.toLowerCase();
  if (pred.k === 'sym' && spelled(gold) !== undefined) return pred.name.toLowerCase() === spelled(gold)!.toLowerCase();
  if (gold.k === 'sym' && pred.k === 'sym') return gold.name === pred.name;
  return false;
}

/** sympy_expr_eq: is the prediction the gold answer? */
export function exprEqual(gold: Expr, pred: Expr): boolean {
  const goldAssignment = isAssignment(gold);
  const predEquation = isEquation(pred);
  const goldEquation = isEquation(gold);
  if (goldAssignment) gold = { k: 'rel', op: '=', lhs: firstRel(gold).lhs, rhs: lastRel(gold).rhs };
  if (isAssignment(pred)) pred = { k: 'rel', op: '=', lhs: firstRel(pred).lhs, rhs: lastRel(pred).rhs };
  // Follow the gold's form: "x = 3" answers "3", and "3" answers "x = 3".
  if (predEquation && !goldEquation) pred = lastRel(pred).rhs;
  else if (goldAssignment && !predEquation) gold = lastRel(gold).rhs;

  if (isRelation(gold) && (pred.k === 'set' || pred.k === 'interval' || pred.k === 'union')) gold = relationAsSet(gold) ?? gold;

  if (sympyStr(gold) === sympyStr(pred)) return true;
  if (isRelation(gold) && isRelation(pred)) return relationsEqual(gold, pred);
  if (isRelation(gold) || isRelation(pred)) return false;
  if (isSetLike(gold) || isSetLike(pred)) return setsEqual(gold, pred);
  if (gold.k === 'sym' || pred.k === 'sym') return symbolsEqual(gold, pred);
  return numericEqual(gold, pred);
}

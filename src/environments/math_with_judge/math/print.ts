// SymPy-style text for parsed answers ("83/499", "sqrt(2)", "2*x + 1", "Eq(x, 3)", "{1, 2}"), which
// is what NeMo Gym records as extracted_answer. It follows SymPy's printer for common shapes only:
// term order in long sums and some parenthesisation can differ.
import { freeSymbols, type Expr } from './ast';
import { approxNumber, Dec } from './evaluate';

/**
 * SymPy prints a Float alone with all 15 significant digits ("2.50000000000000") but inside a larger
 * expression without trailing zeros ("0.5*x"); far from 1 it switches to exponent notation.
 */
function floatText(text: string, full: boolean): string {
  const x = new Dec(text);
  if (x.isZero()) return full ? '0.0' : '0';
  const exponent = x.abs().log(10).floor().toNumber();
  const strip = (digits: string) => (full ? digits : digits.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '.0'));
  if (exponent > -5) return strip(x.toFixed(Math.max(1, 14 - exponent)));
  const [mantissa, exp] = x.toExponential(14).split('e') as [string, string];
  return `${strip(mantissa)}e${exp}`;
}

const isAtom = (e: Expr) => e.k === 'sym' || e.k === 'const' || e.k === 'fn' || (e.k === 'int' && e.v >= 0n) || (e.k === 'float' && !e.text.startsWith('-'));

function negativeCoefficient(e: Expr): boolean {
  if (e.k === 'int') return e.v < 0n;
  if (e.k === 'rat') return e.p < 0n;
  if (e.k === 'float') return e.text.startsWith('-');
  return e.k === 'mul' && e.args.length > 0 && negativeCoefficient(e.args[0]!);
}

function degree(e: Expr): number {
  if (e.k === 'sym') return 1;
  if (e.k === 'pow' && e.exp.k === 'int') return degree(e.base) * Number(e.exp.v);
  if (e.k === 'mul') return e.args.reduce((d, a) => d + degree(a), 0);
  return 0;
}

const hasSymbol = (e: Expr) => freeSymbols(e).size > 0;

/** SymPy's term order, roughly: falling degree, then name; among constants, plain numbers first. */
function orderTerms(args: Expr[]): Expr[] {
  const literal = (a: Expr) => a.k === 'int' || a.k === 'rat' || a.k === 'float';
  const rank = (a: Expr) => (hasSymbol(a) || literal(a) ? 0 : 1);
  return [...args].sort((a, b) => degree(b) - degree(a) || rank(a) - rank(b) || (a.k === 'sym' && b.k === 'sym' ? a.name.localeCompare(b.name) : 0));
}

function printAdd(args: Expr[]): string {
  let out = '';
  const terms = orderTerms(args);
  // SymPy writes "1 - x" rather than "-x + 1", but "-1 + sqrt(5)" as is.
  const firstPositive = terms.findIndex((t) => !negativeCoefficient(t));
  if (firstPositive > 0 && hasSymbol(terms[0]!)) terms.unshift(...terms.splice(firstPositive, 1));
  terms.forEach((term, i) => {
    if (i === 0) out = str(term);
    else if (negativeCoefficient(term)) out += ` - ${str(negateForPrint(term))}`;
    else out += ` + ${str(term)}`;
  });
  return out;
}

function negateForPrint(e: Expr): Expr {
  if (e.k === 'int') return { k: 'int', v: -e.v };
  if (e.k === 'rat') return { k: 'rat', p: -e.p, q: e.q };
  if (e.k === 'float') return { k: 'float', text: e.text.slice(1) };
  if (e.k === 'mul') {
    const [head, ...rest] = e.args;
    const flipped = negateForPrint(head!);
    return flipped.k === 'int' && flipped.v === 1n && rest.length ? (rest.length === 1 ? rest[0]! : { k: 'mul', args: rest }) : { k: 'mul', args: [flipped, ...rest] };
  }
  return e;
}

function factorText(e: Expr): string {
  return e.k === 'add' || e.k === 'rat' || e.k === 'rel' || e.k === 'pct' ? `(${str(e)})` : str(e);
}

function printMul(args: Expr[]): string {
  if (args[0]?.k === 'int' && args[0].v === -1n && args.length > 1) {
    const rest = printMul(args.slice(1));
    return args.length === 2 && args[1]!.k === 'add' ? `-(${rest})` : `-${rest}`;
  }
  const numerator: Expr[] = [];
  const denominator: Expr[] = [];
  for (const a of args) {
    if (a.k === 'pow' && a.exp.k === 'int' && a.exp.v === -1n) denominator.push(a.base);
    else if (a.k === 'rat' && a.p === 1n && args.length > 1) denominator.push({ k: 'int', v: a.q });
    else numerator.push(a);
  }
  const top = numerator.length ? numerator.map(factorText).join('*') : '1';
  if (!denominator.length) return top;
  const single = denominator.length === 1 ? denominator[0]! : undefined;
  const bottom = single ? (isAtom(single) && single.k !== 'fn' ? str(single) : `(${str(single)})`) : `(${denominator.map(factorText).join('*')})`;
  return `${top}/${bottom}`;
}

function printPow(base: Expr, exp: Expr): string {
  if (base.k === 'const' && base.name === 'E') return `exp(${str(exp)})`;
  if (exp.k === 'rat' && exp.p === 1n && exp.q === 2n) return `sqrt(${str(base)})`;
  const b = isAtom(base) && base.k !== 'fn' ? str(base) : base.k === 'fn' ? str(base) : `(${str(base)})`;
  const x = isAtom(exp) ? str(exp) : `(${str(exp)})`;
  return `${b}**${x}`;
}

const REL_TEXT: Record<string, string> = { '<': '<', '<=': '<=', '>': '>', '>=': '>=' };

/** FiniteSet prints its numbers in ascending order. */
function sortedItems(items: Expr[]): Expr[] {
  const withValue = items.map((item) => ({ item, value: approxNumber(item) }));
  return withValue.sort((a, b) => (a.value === undefined || b.value === undefined ? 0 : a.value - b.value)).map((x) => x.item);
}

/** SymPy's str() of a parsed answer. */
export function sympyStr(e: Expr): string {
  return e.k === 'float' ? floatText(e.text, true) : str(e);
}

function str(e: Expr): string {
  switch (e.k) {
    case 'int':
      return e.v.toString();
    case 'rat':
      return `${e.p}/${e.q}`;
    case 'float':
      return floatText(e.text, false);
    case 'sym':
      return e.name;
    case 'const':
      return e.name;
    case 'add':
      return printAdd(e.args);
    case 'mul':
      return printMul(e.args);
    case 'pow':
      return printPow(e.base, e.exp);
    case 'fn':
      return `${e.name}(${e.args.map(str).join(', ')})`;
    case 'pct':
      return `${factorText(e.arg)}*(1/100)`;
    case 'rel':
      if (e.op === '=') return `Eq(${str(e.lhs)}, ${str(e.rhs)})`;
      if (e.op === '!=') return `Ne(${str(e.lhs)}, ${str(e.rhs)})`;
      return `${str(e.lhs)} ${REL_TEXT[e.op]} ${str(e.rhs)}`;
    case 'and':
      return e.rels.map((r) => `(${str(r)})`).join(' & ');
    case 'set':
      return e.items.length ? `{${sortedItems(e.items).map(str).join(', ')}}` : 'EmptySet';
    case 'tuple':
      return `(${e.items.map(str).join(', ')})`;
    case 'union':
      return `Union(${e.parts.map(str).join(', ')})`;
    case 'interval': {
      const loInfinite = approxNumber(e.lo) === -Infinity;
      const hiInfinite = approxNumber(e.hi) === Infinity;
      const plain = (loInfinite && (hiInfinite || !e.ropen)) || (hiInfinite && !e.lopen) || (!e.lopen && !e.ropen);
      const kind = plain ? '' : e.lopen && e.ropen ? '.open' : e.lopen ? '.Lopen' : '.Ropen';
      return `Interval${kind}(${str(e.lo)}, ${str(e.hi)})`;
    }
  }
}

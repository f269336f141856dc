// A LaTeX math parser for final answers, following latex2sympy2_extended's readings where they are not
// obvious: implicit products bind tighter than "/" (1/2x = 1/(2x)), "2\frac{1}{2}" is a mixed number,
// "(a,b)" is an interval (a tuple when b ≤ a), top-level commas make a set, symbols are lower-cased,
// \log is base 10, e is Euler's number, ^\circ is dropped. Anything else it cannot read throws.
import { int, MINUS_ONE, negate, onlySymbols, rational, type Expr, type RelOp } from './ast';
import { approxNumber } from './evaluate';

type Token = { t: 'num' | 'letter' | 'cmd' | 'op'; text: string };

const SPACING = new Set(['\\,', '\\;', '\\:', '\\!', '\\ ', '\\quad', '\\qquad', '\\left', '\\right', '\\displaystyle', '\\limits']);
const UNICODE_OPS: Record<string, string> = { '×': '*', '÷': '/', '·': '*', '≤': '\\le', '≥': '\\ge', '≠': '\\ne', '∞': '\\infty', π: '\\pi', '−': '-' };

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (/\s/.test(ch)) i++;
    else if (/[0-9]/.test(ch) || (ch === '.' && /[0-9]/.test(text[i + 1] ?? ''))) {
      const m = /^\d*\.?\d+|^\d+/.exec(text.slice(i))!;
      tokens.push({ t: 'num', text: m[0] });
      i += m[0].length;
    } else if (/[a-zA-Z]/.test(ch)) {
      tokens.push({ t: 'letter', text: ch });
      i++;
    } else if (ch === '\\') {
      const m = /^\\(?:[a-zA-Z]+|.)/s.exec(text.slice(i))!;
      i += m[0].length;
      if (!SPACING.has(m[0])) tokens.push({ t: 'cmd', text: m[0] });
      if ((m[0] === '\\left' || m[0] === '\\right') && text[i] === '.') i++;
    } else if (UNICODE_OPS[ch]) {
      const mapped = UNICODE_OPS[ch]!;
      tokens.push({ t: mapped.startsWith('\\') ? 'cmd' : 'op', text: mapped });
      i++;
    } else if ("+-*/^_()[]{}|,;=<>!'%:&~°".includes(ch)) {
      if (ch !== '~' && ch !== '&') tokens.push({ t: 'op', text: ch });
      i++;
    } else throw new Error(`cannot read "${ch}"`);
  }
  return tokens;
}

const FUNCTIONS: Record<string, string> = {
  '\\sin': 'sin',
  '\\cos': 'cos',
  '\\tan': 'tan',
  '\\cot': 'cot',
  '\\sec': 'sec',
  '\\csc': 'csc',
  '\\arcsin': 'asin',
  '\\arccos': 'acos',
  '\\arctan': 'atan',
  '\\sinh': 'sinh',
  '\\cosh': 'cosh',
  '\\tanh': 'tanh',
  '\\ln': 'ln',
  '\\log': 'log',
  '\\exp': 'exp',
};
const INVERSE: Record<string, string> = { sin: 'asin', cos: 'acos', tan: 'atan' };
const GREEK = new Set([
  'alpha',
  'beta',
  'gamma',
  'delta',
  'epsilon',
  'varepsilon',
  'zeta',
  'eta',
  'theta',
  'vartheta',
  'iota',
  'kappa',
  'lambda',
  'mu',
  'nu',
  'xi',
  'rho',
  'sigma',
  'tau',
  'upsilon',
  'phi',
  'varphi',
  'chi',
  'psi',
  'omega',
  'Gamma',
  'Delta',
  'Theta',
  'Lambda',
  'Xi',
  'Sigma',
  'Phi',
  'Psi',
  'Omega',
]);
const RELATIONS: Record<string, RelOp | 'approx' | 'in'> = {
  '=': '=',
  '<': '<',
  '>': '>',
  '\\le': '<=',
  '\\leq': '<=',
  '\\leqslant': '<=',
  '\\ge': '>=',
  '\\geq': '>=',
  '\\geqslant': '>=',
  '\\lt': '<',
  '\\gt': '>',
  '\\ne': '!=',
  '\\neq': '!=',
  '\\approx': 'approx',
  '\\in': 'in',
};
const ATOM_COMMANDS = new Set([
  '\\frac',
  '\\sqrt',
  '\\binom',
  '\\dbinom',
  '\\tbinom',
  '\\pi',
  '\\infty',
  '\\text',
  '\\textrm',
  '\\mbox',
  '\\operatorname',
  '\\{',
  '\\lbrace',
  '\\emptyset',
  '\\varnothing',
  '\\lfloor',
  '\\lceil',
  '\\vert',
  '\\lvert',
]);

/** Flattened product, as latex2sympy's mul_flat. */
function mulFlat(a: Expr, b: Expr): Expr {
  const args = [...(a.k === 'mul' ? a.args : [a]), ...(b.k === 'mul' ? b.args : [b])];
  return { k: 'mul', args };
}

function addFlat(a: Expr, b: Expr): Expr {
  return { k: 'add', args: [...(a.k === 'add' ? a.args : [a]), ...(b.k === 'add' ? b.args : [b])] };
}

/** Integer ÷ integer is an exact Rational; anything else stays an unevaluated a·b⁻¹. */
function divide(a: Expr, b: Expr): Expr {
  if (a.k === 'int' && b.k === 'int') return rational(a.v, b.v);
  return mulFlat(a, { k: 'pow', base: b, exp: MINUS_ONE });
}

/** FiniteSet semantics: duplicates collapse. */
export function finiteSet(items: Expr[]): Expr {
  const key = (e: Expr) => JSON.stringify(e, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
  const unique = new Map<string, Expr>();
  for (const item of items) if (!unique.has(key(item))) unique.set(key(item), item);
  return { k: 'set', items: [...unique.values()] };
}

class Parser {
  private i = 0;
  private absDepth = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(offset = 0): Token | undefined {
    return this.tokens[this.i + offset];
  }
  private is(text: string): boolean {
    return this.peek()?.text === text && this.peek()?.t !== 'num' && this.peek()?.t !== 'letter';
  }
  private next(): Token {
    const token = this.tokens[this.i++];
    if (!token) throw new Error('unexpected end of input');
    return token;
  }
  private expect(text: string): void {
    const token = this.next();
    if (token.text !== text) throw new Error(`expected "${text}", found "${token.text}"`);
  }
  done(): boolean {
    return this.i >= this.tokens.length;
  }

  /** Comma- or semicolon-separated elements, each possibly doubled by ±. */
  elements(closers: string[]): Expr[] {
    const items: Expr[] = [];
    for (;;) {
      items.push(...this.element());
      if (this.is(',') || this.is(';')) this.next();
      else if (this.done() || closers.some((c) => this.is(c))) return items;
      else throw new Error(`unexpected "${this.peek()!.text}"`);
    }
  }

  element(): Expr[] {
    const first = this.additive();
    if (first.length > 1) return first;
    let lhs = first[0]!;
    if (this.is('\\cup')) {
      const parts = [lhs];
      while (this.is('\\cup')) {
        this.next();
        parts.push(...this.additive());
      }
      return [{ k: 'union', parts }];
    }
    const rels: Expr[] = [];
    while (this.peek() && RELATIONS[this.peek()!.text] && this.peek()!.t !== 'letter') {
      const op = RELATIONS[this.next().text]!;
      const [rhs] = this.additive();
      if (op === 'approx') {
        // "x ≈ 3" names a value; "3.14 ≈ 3.1" keeps the exact side.
        lhs = onlySymbols(lhs) ? rhs! : lhs;
        continue;
      }
      const rel: Expr = { k: 'rel', op: op === 'in' ? '=' : op, lhs: rels.length ? (rels.at(-1) as { rhs: Expr }).rhs : lhs, rhs: rhs! };
      rels.push(rel);
    }
    if (rels.length === 0) return [lhs];
    return [rels.length === 1 ? rels[0]! : { k: 'and', rels }];
  }

  /** Sums; a ± yields both alternatives. */
  additive(): Expr[] {
    let plusMinus: { before: Expr | undefined; term: Expr } | undefined;
    let sum: Expr | undefined;
    if (this.is('\\pm')) {
      this.next();
      plusMinus = { before: undefined, term: this.multiplicative() };
    } else sum = this.multiplicative();
    for (;;) {
      if (this.is('+')) {
        this.next();
        sum = sum ? addFlat(sum, this.multiplicative()) : this.multiplicative();
      } else if (this.is('-')) {
        this.next();
        const term = this.multiplicative();
        const negated = term.k === 'int' || term.k === 'rat' || term.k === 'float' ? negate(term) : mulFlat(MINUS_ONE, term);
        sum = sum ? addFlat(sum, negated) : negated;
      } else if (this.is('\\pm') || this.is('\\mp')) {
        if (plusMinus) throw new Error('more than one ±');
        this.next();
        plusMinus = { before: sum, term: this.multiplicative() };
        sum = undefined;
      } else break;
    }
    if (!plusMinus) return [sum!];
    const tail = (e: Expr) => (sum ? addFlat(e, sum) : e);
    const { before, term } = plusMinus;
    if (!before) return [tail(negate(term)), tail(term)];
    return [tail(addFlat(before, term)), tail(addFlat(before, negate(term)))];
  }

  /** Explicit *, \cdot, \times, / and \div, left to right. */
  multiplicative(): Expr {
    let left = this.unary();
    for (;;) {
      if (this.is('*') || this.is('\\cdot') || this.is('\\times')) {
        this.next();
        left = mulFlat(left, this.unary());
      } else if (this.is('/') || this.is('\\div') || this.is(':')) {
        this.next();
        left = divide(left, this.unary());
      } else return left;
    }
  }

  unary(): Expr {
    if (this.is('-')) {
      this.next();
      const inner = this.unary();
      return inner.k === 'int' || inner.k === 'rat' || inner.k === 'float' ? negate(inner) : mulFlat(MINUS_ONE, inner);
    }
    if (this.is('+')) {
      this.next();
      return this.unary();
    }
    const factors = [this.postfix()];
    while (this.startsAtom()) factors.push(this.postfix());
    return this.implicitProduct(factors, 0);
  }

  /**
   * Right-nested like latex2sympy, whose mixed-number rule reads an integer followed by a positive
   * rational as their sum: "2\frac{1}{2}" is 5/2, and so (its quirk) "2 3" and "2(3)" are 5.
   */
  private implicitProduct(factors: Expr[], i: number): Expr {
    const head = factors[i]!;
    if (i === factors.length - 1) return head;
    const rest = this.implicitProduct(factors, i + 1);
    if (head.k === 'int' && rest.k === 'rat' && rest.p > 0n) return rational(head.v * rest.q + (head.v < 0n ? -rest.p : rest.p), rest.q);
    if (head.k === 'int' && rest.k === 'int' && rest.v > 0n) return int(head.v < 0n ? head.v - rest.v : head.v + rest.v);
    return mulFlat(head, rest);
  }

  private startsAtom(): boolean {
    const token = this.peek();
    if (!token) return false;
    if (token.t === 'num' || token.t === 'letter') return true;
    if (token.t === 'op') return token.text === '(' || token.text === '[' || token.text === '{' || (token.text === '|' && this.absDepth === 0);
    return ATOM_COMMANDS.has(token.text) || token.text in FUNCTIONS || GREEK.has(token.text.slice(1));
  }

  private postfix(): Expr {
    let e = this.power();
    for (;;) {
      if (this.is('!')) {
        this.next();
        e = { k: 'fn', name: 'factorial', args: [e] };
      } else if (this.is('\\%') || this.is('%')) {
        this.next();
        e = { k: 'pct', arg: e };
      } else if (this.is('°') || this.is('\\circ') || this.is('\\degree')) {
        this.next();
      } else return e;
    }
  }

  private power(): Expr {
    let base = this.atom();
    while (this.is('^')) {
      this.next();
      const exponent = this.exponent();
      if (exponent) base = { k: 'pow', base, exp: exponent };
    }
    return base;
  }

  /** The exponent after ^; undefined for a degree sign (^\circ), which latex2sympy drops. */
  private exponent(): Expr | undefined {
    if (this.is('{') && (this.peek(1)?.text === '\\circ' || this.peek(1)?.text === '°') && this.peek(2)?.text === '}') {
      this.i += 3;
      return undefined;
    }
    if (this.is('\\circ') || this.is('°')) {
      this.next();
      return undefined;
    }
    if (this.is('{')) return this.braced();
    return this.atom();
  }

  private braced(): Expr {
    this.expect('{');
    const items = this.elements(['}']);
    this.expect('}');
    return items.length === 1 ? items[0]! : finiteSet(items);
  }

  /** A \frac/\sqrt argument: a {group} or one token. */
  private argument(): Expr {
    if (this.is('{')) return this.braced();
    return this.atom();
  }

  private atom(): Expr {
    const token = this.next();
    if (token.t === 'num') return /\./.test(token.text) ? { k: 'float', text: token.text } : int(BigInt(token.text));
    if (token.t === 'letter') return this.letter(token.text);
    if (token.t === 'op') return this.group(token.text);
    return this.command(token.text);
  }

  private letter(ch: string): Expr {
    let name = ch.toLowerCase();
    if (this.is('_')) {
      this.next();
      const sub = this.is('{') ? this.rawGroup() : this.next().text;
      name += sub.length > 1 ? `_{${sub}}` : `_${sub}`;
      return { k: 'sym', name };
    }
    // Lower-case e is Euler's number; capital E is a variable (then lower-cased) as in latex2sympy.
    return ch === 'e' ? { k: 'const', name: 'E' } : { k: 'sym', name };
  }

  /** The source text of a {…} group, unparsed (subscripts, \text). */
  private rawGroup(): string {
    this.expect('{');
    let depth = 1;
    let text = '';
    for (;;) {
      const token = this.next();
      if (token.text === '{') depth++;
      if (token.text === '}' && --depth === 0) return text;
      text += token.text;
    }
  }

  private group(open: string): Expr {
    if (open === '{') {
      this.i--;
      return this.braced();
    }
    if (open === '|') {
      this.absDepth++;
      const [inner] = this.additive();
      this.expect('|');
      this.absDepth--;
      return { k: 'fn', name: 'Abs', args: [inner!] };
    }
    if (open !== '(' && open !== '[') throw new Error(`unexpected "${open}"`);
    const saved = this.absDepth;
    this.absDepth = 0;
    const items = this.elements([')', ']']);
    this.absDepth = saved;
    const close = this.next().text;
    if (close !== ')' && close !== ']') throw new Error(`unclosed "${open}"`);
    if (items.length === 1) return items[0]!;
    if (items.length === 2) return interval(items[0]!, items[1]!, open === '(', close === ')');
    return { k: 'tuple', items };
  }

  private command(name: string): Expr {
    if (name === '\\frac') {
      const num = this.argument();
      return divide(num, this.argument());
    }
    if (name === '\\sqrt') {
      let index: Expr | undefined;
      if (this.is('[')) {
        this.next();
        [index] = this.additive();
        this.expect(']');
      }
      const radicand = this.argument();
      if (!index) return { k: 'fn', name: 'sqrt', args: [radicand] };
      return { k: 'pow', base: radicand, exp: index.k === 'int' ? rational(1n, index.v) : { k: 'pow', base: index, exp: MINUS_ONE } };
    }
    if (name === '\\binom' || name === '\\dbinom' || name === '\\tbinom') {
      const n = this.argument();
      return { k: 'fn', name: 'binomial', args: [n, this.argument()] };
    }
    if (name in FUNCTIONS) return this.func(FUNCTIONS[name]!);
    if (name === '\\pi') return { k: 'const', name: 'pi' };
    if (name === '\\infty') return { k: 'const', name: 'oo' };
    if (GREEK.has(name.slice(1))) return { k: 'sym', name: name.slice(1).toLowerCase() };
    if (name === '\\text' || name === '\\textrm' || name === '\\mbox' || name === '\\operatorname') {
      // \text{…} is one symbol named by its content (spaces and parentheses dropped), as latex2sympy reads it.
      const content = this.rawGroup()
        .replace(/[\s()]/g, '')
        .toLowerCase();
      if (!content) throw new Error('empty \\text');
      return { k: 'sym', name: content };
    }
    if (name === '\\{' || name === '\\lbrace') {
      if (this.is('\\}') || this.is('\\rbrace')) {
        this.next();
        return { k: 'set', items: [] };
      }
      const items = this.elements(['\\}', '\\rbrace']);
      this.next();
      return finiteSet(items);
    }
    if (name === '\\emptyset' || name === '\\varnothing') return { k: 'set', items: [] };
    if (name === '\\lfloor' || name === '\\lceil') {
      const [inner] = this.additive();
      this.expect(name === '\\lfloor' ? '\\rfloor' : '\\rceil');
      return { k: 'fn', name: name === '\\lfloor' ? 'floor' : 'ceiling', args: [inner!] };
    }
    if (name === '\\vert' || name === '\\lvert') {
      const [inner] = this.additive();
      this.next();
      return { k: 'fn', name: 'Abs', args: [inner!] };
    }
    throw new Error(`unsupported command ${name}`);
  }

  /** \sin^2 x, \log_2 8, \ln(x+1): an optional power and base, then the argument. \log is base 10. */
  private func(fn: string): Expr {
    let power: Expr | undefined;
    let base: Expr | undefined = fn === 'log' ? int(10) : fn === 'ln' ? { k: 'const', name: 'E' } : undefined;
    if (fn === 'ln') fn = 'log';
    for (;;) {
      if (this.is('^')) {
        this.next();
        power = this.exponent();
      } else if (this.is('_') && fn === 'log') {
        this.next();
        base = this.argument();
      } else break;
    }
    let arg: Expr;
    if (this.is('(')) {
      this.next();
      [arg] = this.additive() as [Expr];
      this.expect(')');
    } else if (this.is('{')) arg = this.braced();
    else {
      // Without parentheses the argument is the following product, up to the next function.
      const factors = [this.postfix()];
      while (this.startsAtom() && !(this.peek()!.text in FUNCTIONS)) factors.push(this.postfix());
      arg = this.implicitProduct(factors, 0);
    }
    if (power && power.k === 'int' && power.v === -1n && INVERSE[fn]) return { k: 'fn', name: INVERSE[fn]!, args: [arg] };
    if (fn === 'exp') return power ? { k: 'pow', base: { k: 'pow', base: { k: 'const', name: 'E' }, exp: arg }, exp: power } : { k: 'pow', base: { k: 'const', name: 'E' }, exp: arg };
    const call: Expr = { k: 'fn', name: fn, args: fn === 'log' && base ? [arg, base] : [arg] };
    return power ? { k: 'pow', base: call, exp: power } : call;
  }
}

/** (a, b) with b ≤ a (or [a, b] with b < a) is a pair, not an empty interval. */
function interval(lo: Expr, hi: Expr, lopen: boolean, ropen: boolean): Expr {
  const a = approxNumber(lo);
  const b = approxNumber(hi);
  if (a !== undefined && b !== undefined && ((lopen && ropen && b <= a) || (!lopen && !ropen && b < a))) return { k: 'tuple', items: [lo, hi] };
  // SymPy never includes an infinite endpoint.
  return { k: 'interval', lo, hi, lopen: lopen || a === -Infinity, ropen: ropen || b === Infinity };
}

const THOUSANDS = /^\s*-?\d{1,3}(,\d{3})+(\.\d+)?\s*$/;

/** Parses a normalised LaTeX answer; throws when it cannot. */
export function parseLatex(latex: string): Expr {
  if (THOUSANDS.test(latex)) {
    const plain = latex.replaceAll(',', '').trim();
    return plain.includes('.') ? { k: 'float', text: plain } : int(BigInt(plain));
  }
  const parser = new Parser(tokenize(latex));
  const items = parser.elements([]);
  if (!parser.done()) throw new Error('trailing input');
  return items.length === 1 ? items[0]! : finiteSet(items);
}

// Aviary's GSM8K calculator: a Python arithmetic expression (numbers, + - * / // % **, unary signs,
// abs/round/min/max/sum) evaluated as its SafeMathEvaluator does; anything else is an error.
// Numbers are doubles: integer results beyond 2**53 are not exact as Python's big integers are.
import { roundHalfEven } from '../../util/round';

export class CalculatorError extends Error {}

type Token = { kind: 'num'; value: number } | { kind: 'name'; value: string } | { kind: 'op'; value: string };

const NUMBER = /^(?:0[xX](?:_?[0-9a-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+|(?:(?:[0-9](?:_?[0-9])*)?\.[0-9](?:_?[0-9])*|[0-9](?:_?[0-9])*\.?)(?:[eE][+-]?[0-9](?:_?[0-9])*)?)[jJ]?/;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;
const OPERATORS = ['**', '//', '+', '-', '*', '/', '%', '(', ')', ','];

function tokenize(expr: string): Token[] {
  const tokens: Token[] = [];
  let rest = expr;
  while ((rest = rest.replace(/^[ \t\f]+/, '')) !== '') {
    const num = NUMBER.exec(rest);
    if (num && !/^[.]$/.test(num[0])) {
      const text = num[0];
      if (/[jJ]$/.test(text)) throw new CalculatorError("Unsupported constant type: <class 'complex'>");
      tokens.push({ kind: 'num', value: parseNumber(text.replaceAll('_', '')) });
      rest = rest.slice(text.length);
      continue;
    }
    const name = NAME.exec(rest);
    if (name) {
      tokens.push({ kind: 'name', value: name[0] });
      rest = rest.slice(name[0].length);
      continue;
    }
    const op = OPERATORS.find((o) => rest.startsWith(o));
    if (!op) throw new CalculatorError('Invalid mathematical expression: invalid syntax');
    tokens.push({ kind: 'op', value: op });
    rest = rest.slice(op.length);
  }
  return tokens;
}

function parseNumber(text: string): number {
  if (/^0[xXoObB]/.test(text)) return Number(text.toLowerCase());
  return Number(text);
}

const FUNCTIONS: Record<string, (args: number[]) => number> = {
  abs: ([x, ...more]) => (x === undefined || more.length ? typeError() : Math.abs(x)),
  round: (args) => (args.length === 1 ? roundHalfEven(args[0]!) : args.length === 2 ? roundTo(args[0]!, args[1]!) : typeError()),
  min: (args) => (args.length < 2 ? typeError() : Math.min(...args)),
  max: (args) => (args.length < 2 ? typeError() : Math.max(...args)),
  // sum() takes an iterable, which no expression here can make.
  sum: () => typeError(),
};

/** Vals's finance calculator: abs/min/max as above, and sqrt/log/log10 (math domain errors are errors). */
export const FINANCE_FUNCTIONS: Record<string, (args: number[]) => number> = {
  abs: FUNCTIONS.abs!,
  min: FUNCTIONS.min!,
  max: FUNCTIONS.max!,
  sqrt: ([x, ...more]) => (x === undefined || more.length || x < 0 ? typeError() : Math.sqrt(x)),
  log: ([x, base, ...more]) =>
    x === undefined || more.length || x <= 0 || (base !== undefined && (base <= 0 || base === 1)) ? typeError() : base === undefined ? Math.log(x) : Math.log(x) / Math.log(base),
  log10: ([x, ...more]) => (x === undefined || more.length || x <= 0 ? typeError() : Math.log10(x)),
};

function typeError(): never {
  throw new CalculatorError('Invalid mathematical expression');
}

function roundTo(x: number, digits: number): number {
  const scale = 10 ** digits;
  return roundHalfEven(x * scale) / scale;
}

function checkedDivisor(b: number): number {
  if (b === 0) throw new CalculatorError('Division by zero is not allowed');
  return b;
}

function pyMod(a: number, b: number): number {
  const r = a % checkedDivisor(b);
  return r !== 0 && r < 0 !== b < 0 ? r + b : r;
}

function pyPow(a: number, b: number): number {
  if (a === 0 && b < 0) throw new CalculatorError('Division by zero is not allowed');
  // A negative base to a fractional power is complex in Python, which the calculator cannot return.
  if (a < 0 && !Number.isInteger(b)) throw new CalculatorError('Invalid mathematical expression');
  return a ** b;
}

/** Python's grammar for this subset: sum of terms, terms of factors, unary signs, then ** (right-associative, above unary on its left). */
class Parser {
  private at = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly functions: Record<string, (args: number[]) => number>,
  ) {}

  parse(): number {
    if (!this.tokens.length) throw new CalculatorError('Invalid mathematical expression: invalid syntax');
    const value = this.sum();
    if (this.at < this.tokens.length) throw new CalculatorError('Invalid mathematical expression: invalid syntax');
    return value;
  }

  private peek(value: string): boolean {
    const t = this.tokens[this.at];
    return t?.kind === 'op' && t.value === value;
  }

  private sum(): number {
    let value = this.term();
    while (this.peek('+') || this.peek('-')) {
      const op = this.tokens[this.at++]!.value;
      const right = this.term();
      value = op === '+' ? value + right : value - right;
    }
    return value;
  }

  private term(): number {
    let value = this.unary();
    while (this.peek('*') || this.peek('/') || this.peek('//') || this.peek('%')) {
      const op = this.tokens[this.at++]!.value;
      const right = this.unary();
      if (op === '*') value *= right;
      else if (op === '/') value /= checkedDivisor(right);
      else if (op === '//') value = Math.floor(value / checkedDivisor(right));
      else value = pyMod(value, right);
    }
    return value;
  }

  private unary(): number {
    if (this.peek('-')) {
      this.at++;
      return -this.unary();
    }
    if (this.peek('+')) {
      this.at++;
      return this.unary();
    }
    return this.power();
  }

  private power(): number {
    const base = this.atom();
    if (!this.peek('**')) return base;
    this.at++;
    return pyPow(base, this.unary());
  }

  private atom(): number {
    const t = this.tokens[this.at++];
    if (!t) throw new CalculatorError('Invalid mathematical expression: invalid syntax');
    if (t.kind === 'num') return t.value;
    if (t.kind === 'op' && t.value === '(') {
      const value = this.sum();
      if (!this.peek(')')) throw new CalculatorError('Invalid mathematical expression: invalid syntax');
      this.at++;
      return value;
    }
    if (t.kind === 'name') {
      if (t.value === 'True' || t.value === 'False') return t.value === 'True' ? 1 : 0;
      if (!this.peek('(')) throw new CalculatorError("Unsupported AST node type: <class 'ast.Name'>");
      this.at++;
      const args: number[] = [];
      while (!this.peek(')')) {
        args.push(this.sum());
        if (!this.peek(',')) break;
        this.at++;
      }
      if (!this.peek(')')) throw new CalculatorError('Invalid mathematical expression: invalid syntax');
      this.at++;
      const fn = Object.hasOwn(this.functions, t.value) ? this.functions[t.value] : undefined;
      if (!fn) throw new CalculatorError(`Unsupported function: ${t.value}`);
      return fn(args);
    }
    throw new CalculatorError('Invalid mathematical expression: invalid syntax');
  }
}

/** The value of the expression, or a CalculatorError; `functions` are the names it may call (Aviary's by default). */
export function evaluate(expr: string, functions = FUNCTIONS): number {
  const value = new Parser(tokenize(expr.trim()), functions).parse();
  if (!Number.isFinite(value)) throw new CalculatorError('Invalid mathematical expression');
  return value;
}

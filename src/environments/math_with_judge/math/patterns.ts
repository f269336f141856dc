// math-verify's answer-finding regexes, as JS: plain numbers/expressions (ExprExtractionConfig) and
// LaTeX environments (LatexExtractionConfig), each with its priority (lower is tried first).

export interface Pattern {
  regex: RegExp;
  priority: number;
  target: 'expr' | 'latex';
}

/** Node 20 has no (?i:…) groups: spell each letter as a two-case class. */
const ci = (words: string) => words.replace(/[a-z]/gi, (c) => `[${c.toLowerCase()}${c.toUpperCase()}]`);
/** Python's non-multiline $ also matches before a final newline. */
const END = '(?=\\n?$)';

function exprPatterns(): Pattern[] {
  const number =
    '(?<!\\d)(?:' +
    '(?<integer1>-?[1-9]\\d{0,2}(?:[ ,]\\d{3})+)(?<decimal1>\\.\\d+)?|' +
    '(?<integer2>-?\\d+)(?<decimal2>[.,]\\d+)|' +
    '(?<decimal3>\\.\\d+)|' +
    '(?<integer3>-?\\d+)' +
    ')(?<percent>\\s*(?:%|[Pp]ercent|\\s*[Pp]ercentage|\\s*[Pp]ct))?';
  const ops = '\\+\\-\\*\\×\\/\\^\\(\\)\\÷';
  const chars = `[\\d\\.\\s${ops}]`;
  const expr = `(?<expr>-?\\(?-?\\d${chars}*[${ops}]${chars}+\\)?)`;
  const currency = '\\$€£¥₹₽₪₩₫฿₡₢₣₤₥₦₧₨₩₪₫₭₮₯₰₱₲₳₴₵₶₷₸₹₺₻₼₽₾₿';
  const prefix = '(?:^|\\s|\\=)(?:\\*\\*)?';
  const suffix = `(?:\\*\\*)?(?:\\.|,|:|\\s|\\)|\\$|${END})`;
  const exprAnchored = `(?:${prefix}${expr}${suffix})`;
  const numberAnchored = `(?:${prefix}[${currency}]?${number})`;
  const either = `(?:${exprAnchored}|${numberAnchored})`;
  const answer = ci('answer');
  const sources: [string, number][] = [
    [`${ci('final answer is')}\\:?\\s*${either}\\.?\\s?I hope`, 0],
    [`${ci('final answer')}.{0,100}?\\s+is\\:?${either}`, 50],
    [`${answer}:(?:.{0,100}=\\s*|.{0,50}?)${either}(?!\\s*=)`, 100],
    [`${answer}(?:.{0,100}=\\s*|.{0,50}?)${either}(?!\\s*=)`, 200],
    [exprAnchored, 300],
    [numberAnchored, 300],
  ];
  return sources.map(([source, priority]) => ({ regex: new RegExp(source, 'g'), priority, target: 'expr' as const }));
}

/** One LaTeX math environment ($…$, $$…$$, \(…\), \[…\], [ … ], bare \frac{1}{2}) with an optional percent. */
function latexEnv(prefix: string, boxed: boolean): string {
  const percent = `(?<${prefix}percent>(?:\\\\?%|[Pp]ercent|[Pp]ercentage|[Pp]ct))`;
  const bases = {
    displayDollar: '(?:[^$]|\\$(?!\\$))',
    displayBracket: '(?:[^\\\\]|\\\\(?!\\]))',
    inlineDollar: '(?:\\\\[$]|[^\\n$])',
    inlineParen: '(?:[^\\\\\\n]|\\\\(?!\\)))',
    inlineBracket: '[^\\n\\]\\[]',
  };
  const body = (base: string) => (boxed ? `${base}*?\\\\boxed\\{${base}+?\\}${base}*?` : `${base}+?`);
  const patterns = [
    `(?<!\\\\)\\$\\$(?<${prefix}latexDisplayDollar>${body(bases.displayDollar)})(?<!\\\\)\\$\\$`,
    `(?<!\\\\)\\\\\\[(?<${prefix}latexDisplayBracket>${body(bases.displayBracket)})(?<!\\\\)\\\\\\]`,
    `(?<!\\\\|\\d)\\$(?<${prefix}latexInlineDollar>${body(bases.inlineDollar)})(?<!\\\\)\\$`,
    `(?<!\\\\)\\\\\\((?<${prefix}latexInlineParenthesis>${body(bases.inlineParen)})(?<!\\\\)\\\\\\)`,
    `\\s\\[(?<${prefix}latexInlineBracket>${body(bases.inlineBracket)})\\]\\s`,
  ];
  if (!boxed) {
    const n = '-?\\d+(?:[.,]\\d+)?';
    patterns.push(`(?<${prefix}latexFraction>-?\\\\frac\\{${n}\\}\\{${n}\\})`);
  }
  return `(?:(?:${patterns.join('|')})\\s*${percent}?)`;
}

/** Up to six environments joined by "and", "or" or commas: "$x=1$ and $x=2$". */
function latexList(boxed: boolean): string {
  let source = latexEnv('first_', boxed);
  for (let i = 1; i <= 5; i++) source += `${boxed ? '\\s*' : ''}(?:\\s*(?:,?and|,?or|,)\\s*${latexEnv(`next${i}_`, boxed)})?`;
  return boxed ? source : `(?:${source})`;
}

function latexPatterns(boxedPriority: number): Pattern[] {
  const list = latexList(false);
  const answer = ci('answer');
  const sources: [string, number][] = [
    [`${ci('final answer is')}\\:?\\s*${list}\\.?\\s?I hope`, 0],
    [`${ci('final answer')}.{0,100}?\\s+is\\:?\\s*${list}`, 50],
    [`${answer}:.{0,50}?${list}`, 100],
    [`${answer}.{0,50}?${list}`, 200],
    [list, 300],
    [latexList(true), boxedPriority],
    // A bare \boxed{…} runs to the last "}" here; normalisation finds its real end.
    ['(?<first_latexBoxed>\\\\boxed\\{.+\\})', boxedPriority],
  ];
  return sources.map(([source, priority]) => ({ regex: new RegExp(source, 'gs'), priority, target: 'latex' as const }));
}

/** The prediction's patterns (expressions, then LaTeX, as NeMo Gym lists them) and the gold's (LaTeX only). */
export const PRED_PATTERNS: readonly Pattern[] = [...exprPatterns(), ...latexPatterns(50)];
export const GOLD_PATTERNS: readonly Pattern[] = latexPatterns(50);

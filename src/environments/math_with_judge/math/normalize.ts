// LaTeX clean-up before parsing, with the rules latex2sympy2_extended 1.10.2 (the version math-verify
// 0.8.0 pins) applies in normalize_latex under math-verify's extraction config: \boxed content, \left/\right, \text units, "and"/"or" lists,
// percent words, malformed \frac12 / \sqrt2 / a/b.
import { pyStrip } from '../../../python/str';

const LEFT = /\\m?left(\\\{|\{|\\\||\||\[|\(|\\rbracl|\\lgroup|\\lbrace|\\lbrack|\\vert|\\lvert|\\lceil|\\lfloor|\\langle|\\llcorner|\\ulcorner)/g;
const RIGHT = /\\m?right(\\\}|\}|\\\||\||\]|\)|\\rbrack|\\rgroup|\\rbrace|\\vert|\\rvert|\\rceil|\\rfloor|\\rangle|\\lrcorner|\\urcorner)/g;

// The unit words latex2sympy strips from the end of an answer ("integer" "point" is one word there too).
const UNITS = [
  'integerpoint',
  'feet',
  'sue',
  'digit',
  'pound',
  'meal',
  'edge',
  'student',
  'children ticket',
  'multiple',
  'east',
  'degree',
  'mph',
  'kmph',
  'ft',
  'm square',
  ' m east',
  'sq m',
  'deg',
  'mile',
  'q .',
  'monkey',
  'prime',
  'ratio',
  'profit of rs',
  'rd',
  'o',
  'gm',
  'p . m',
  'lb',
  'tile',
  'per',
  'dm',
  'lt',
  'gain',
  'ab',
  'way',
  'west',
  'a .',
  'b .',
  'c .',
  'd .',
  'e .',
  'f .',
  'g .',
  'h .',
  't',
  'h',
  'no change',
  'men',
  'soldier',
  'pie',
  'bc',
  'excess',
  'st',
  'inches',
  'noon',
  'cent',
  'by',
  'gal',
  'kmh',
  'c',
  'acre',
  'rise',
  'a . m',
  'th',
  'π r 2',
  'sq',
  'mark',
  'l',
  'toy',
  'coin',
  'sq . m',
  'gallon',
  '° f',
  'profit',
  'minw',
  'yr',
  'women',
  'am',
  'pm',
  'hr',
  'cu cm',
  'square',
  'v â € ™',
  'are',
  'rupee',
  'rounds',
  'cubic',
  'cc',
  'mtr',
  's',
  'ohm',
  'number',
  'kmph',
  'day',
  'hour',
  'minute',
  'min',
  'second',
  'man',
  'woman',
  'sec',
  'cube',
  'mt',
  'sq inch',
  'mp',
  '∏ cm ³',
  'hectare',
  'more',
  'sec',
  'unit',
  'cu . m',
  'cm 2',
  'rs .',
  'rs',
  'kg',
  'g',
  'month',
  'km',
  'm',
  'cm',
  'mm',
  'apple',
  'liter',
  'loss',
  'yard',
  'pure',
  'year',
  'increase',
  'decrease',
  'd',
  'less',
  'Surface',
  'litre',
  'pi sq m',
  's .',
  'metre',
  'meter',
  'inch',
];
// The words are regex source as in Python (so "q ." has a wildcard dot).
const UNIT_AT_END = new RegExp(`(\\d|\\}|\\s)\\s*(?:(?:${UNITS.join('|')})(?:s|es)?)\\s*$`);
const TEXT_AT_END = /(\\(?:text|mbox)\{.*?\})(\^\d|\{\^\d\})?$/;

const TO_REMOVE = /\\mathrm\{th\}|\\!\s*|\\text\s*\{\s*\}|\\\$|\$|(?<!\\)["']|\\displaystyle/g;

// One alternation, tried left to right like Python's: [pattern, replacement].
const REPLACEMENTS: [string, string][] = [
  ['\\\\math(?:rm|it|bf)', '\\text'],
  ['\\\\text(?:normal|bf|it|rm)', '\\text'],
  ['\\\\(?:d|t|c)frac', '\\frac'],
  ['\\s\\.', ' 0.'],
  ['\\{\\.', '{0.'],
  ['~=', '\\approx'],
  ['\\s*\\{\\s*,\\s*\\}', ','],
  ['(?<![a-zA-Z])(?:,?\\s*(?:and|or))(?![a-zA-Z])', ','],
  ['(?:,?\\s*\\\\text\\{\\s*(?:and|or)\\s*\\})', ','],
  ['(?<!\\\\)\\\\\\s', ' '],
  ['infinity', '\\infty'],
  [',?(?:\\\\ldots)', ' '],
  ['\\s*percentage', '\\%'],
  ['\\\\text\\{percentage\\}', '\\%'],
  ['\\s*percent', '\\%'],
  ['\\\\text\\{percent\\}', '\\%'],
  ['\\s*pct', '\\%'],
  ['\\\\text\\{pct\\}', '\\%'],
  ['(?:(?<!\\\\)inf(?!inity))', '\\infty'],
  [' sqrt', '\\sqrt'],
];
const REPLACE = new RegExp(REPLACEMENTS.map(([p], i) => `(?<r${i}>${p})`).join('|'), 'g');

function replaceCommands(text: string): string {
  return text.replace(REPLACE, (...args) => {
    const groups = args.at(-1) as Record<string, string | undefined>;
    const i = REPLACEMENTS.findIndex((_, j) => groups[`r${j}`] !== undefined);
    return REPLACEMENTS[i]![1];
  });
}

const MALFORMED: [RegExp, (...g: string[]) => string][] = [
  [/\^\s?\((.*?)\)/g, (_m, a) => `^{${a}}`],
  [/sqrt\s?\((.*?)\)/g, (_m, a) => `\\sqrt{${a}}`],
  [/\\frac\s?(\d)\s?(\d+)/g, (_m, a, b) => `\\frac{${a}}{${b}}`],
  [/\\log_\s?(\d)\s?(\d+)/g, (_m, a, b) => `\\log_{${a}}{${b}}`],
  [/\\frac\s?\{(.*?)\}\s?(\d)/g, (_m, a, b) => `\\frac{${a}}{${b}}`],
  [/\\frac\s?(\d)\s?\{(.*?)\}/g, (_m, a, b) => `\\frac{${a}}{${b}}`],
  [/\\sqrt\s?(\d)/g, (_m, a) => `\\sqrt{${a}}`],
];

/** \sqrt3 → \sqrt{3}: a bare token after \sqrt becomes its argument. */
function fixSqrt(text: string): string {
  if (!text.includes('\\sqrt')) return text;
  const [head, ...rest] = text.split('\\sqrt');
  return (
    head +
    rest
      .map((part) => {
        const s = part.replace(/^\s+/, '');
        return s.length > 0 && s[0] !== '{' && s[0] !== '[' ? `\\sqrt{${s[0]}}${s.slice(1)}` : `\\sqrt${s}`;
      })
      .join('')
  );
}

/** \frac12 → \frac{1}{2}, \frac1{2} → \frac{1}{2} (the MATH dataset's fixer). */
function fixFracs(text: string): string {
  const [head, ...rest] = text.split('\\frac');
  let out = head!;
  for (const raw of rest) {
    const s = raw.replace(/^\s+/, '');
    out += '\\frac';
    if (s.length > 0 && s[0] === '{') out += s;
    else if (s.length < 2) return text;
    else if (s[1] !== '{') out += `{${s[0]}}{${s[1]}}${s.slice(2)}`;
    else out += `{${s[0]}}${s[1]}${s.slice(2)}`;
  }
  return out;
}

/** "3/4" (the whole answer, integers only) → \frac{3}{4}. */
function fixSlash(text: string): string {
  const parts = text.split('/');
  if (parts.length !== 2 || !/^[+-]?\d+$/.test(parts[0]!.trim()) || !/^[+-]?\d+$/.test(parts[1]!.trim())) return text;
  const [a, b] = parts.map((p) => BigInt(p.trim()));
  return text === `${a}/${b}` ? `\\frac{${a}}{${b}}` : text;
}

export type BoxedMode = 'all' | 'last';

/**
 * The content of \boxed{…} / \fbox{…}, searched from the right. "last" keeps earlier boxes only when
 * they are close to the next one or separated from it by "and", "or", "," or ";" (as substrings);
 * "all" keeps every box. Several boxes come back joined by ",". No box → the text unchanged.
 */
function boxedContent(text: string, mode: BoxedMode): string {
  const results: string[] = [];
  let current = text.length;
  let maxPos = text.length;
  let lastBoxedStart: number | undefined;
  for (;;) {
    const boxed = text.lastIndexOf('\\boxed', current - 1);
    const fbox = text.lastIndexOf('\\fbox', current - 1);
    if (boxed < 0 && fbox < 0) break;
    const start = Math.max(boxed, fbox);
    let brace = start + (boxed > fbox ? 6 : 5);
    while (brace < maxPos && /\s/.test(text[brace]!)) brace++;
    if (brace >= maxPos) break;
    if (text[brace] !== '{') {
      if (results.length === 0) results.push(text.slice(brace));
      break;
    }
    const end = matchingBrace(text, brace, maxPos);
    if (end === undefined) {
      if (results.length === 0) results.push(text.slice(brace));
      break;
    }
    const content = pyStrip(text.slice(brace + 1, end));
    if (mode === 'last' && lastBoxedStart !== undefined && !keepsEarlierBox(text, content, results.at(-1) ?? '', end, lastBoxedStart)) break;
    results.push(content);
    lastBoxedStart = start;
    maxPos = start;
    current = start;
  }
  return results.length === 0 ? text : results.reverse().join(',');
}

function matchingBrace(text: string, open: number, maxPos: number): number | undefined {
  let depth = 1;
  for (let i = open + 1; i < maxPos; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return i;
  }
  return undefined;
}

function keepsEarlierBox(text: string, content: string, nextContent: string, end: number, nextStart: number): boolean {
  const between = text.slice(end + 1, nextStart);
  if (between.length < 10) return true;
  return nextContent !== content && between.length < 70 && /and|or|,|;/.test(between);
}

/** normalize_latex with math-verify's LatexExtractionConfig settings (units, malformed operators, nits). */
export function normalizeLatex(input: string, boxed: BoxedMode): string {
  let text = boxedContent(input, boxed);
  text = text.replaceAll('\\mathrm{T}', 'T').replaceAll('\\mathrm{d}', 'd').replaceAll('{\\rm d}', 'd');
  text = text.replaceAll('\\left[\\begin{matrix}', '\\begin{bmatrix}').replaceAll('\\end{matrix}\\right]', '\\end{bmatrix}');
  text = text.replace(LEFT, '$1').replace(RIGHT, '$1');
  text = text.replace(/\(([a-zA-Z0-9+\-*/\\ ]+?)\)_\{([a-zA-Z0-9+\-*/\\ ]+?)\}/g, (_m, n: string, k: string) => `\\frac{(${n})!}{((${n})-(${k}))!}`);
  text = text.replace(TO_REMOVE, '');
  text = replaceCommands(text);
  text = text.replaceAll('\n', ' ').replaceAll('\t', ' ');
  if (!text.includes('matrix')) text = text.replace(/\\\\(?=[a-zA-Z])/g, '\\');

  const withoutText = pyStrip(text.replace(TEXT_AT_END, ''));
  if (withoutText !== '' && withoutText !== text) text = withoutText;
  for (let i = 0; i < 2; i++) {
    const withoutUnit = text.replace(UNIT_AT_END, '$1');
    if (withoutUnit !== '' && withoutUnit !== text) text = withoutUnit;
  }

  if (text.startsWith('.')) text = `0${text}`;
  if (text === '0.5') text = '\\frac{1}{2}';

  for (const [pattern, replace] of MALFORMED) text = text.replace(pattern, replace as (...a: string[]) => string);
  text = text.replaceAll(' sqrt', '\\sqrt');
  text = fixSlash(fixFracs(fixSqrt(text)));
  return pyStrip(text);
}

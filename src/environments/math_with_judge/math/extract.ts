// math-verify's parse(): try the answer patterns by priority; within a priority the match ending last
// wins; the first match that parses is the answer. Also kept: the first matched text as a string
// fallback, which math-verify compares as a string when parsing fails.
import { pyStrip } from '../../../python/str';
import type { Expr } from './ast';
import { finiteSet, parseLatex } from './latex_parser';
import { normalizeLatex } from './normalize';
import type { Pattern } from './patterns';

export interface Extraction {
  /** The parsed answer, when one parsed. */
  parsed?: Expr;
  /** The first matched answer text, parsed or not. */
  fallback?: string;
}

const pct = (e: Expr): Expr => ({ k: 'pct', arg: e });

/** A number or plain expression match (ExprExtractionConfig). */
function fromExprMatch(groups: Record<string, string | undefined>): [Expr | undefined, string] {
  const integer = ['integer1', 'integer2', 'integer3'].map((g) => groups[g]).find(Boolean) ?? '';
  const decimal = ['decimal1', 'decimal2', 'decimal3'].map((g) => groups[g]).find(Boolean) ?? '';
  if (integer || decimal) {
    const digits = integer.replace(/[, ]/g, '').replace(/^0+/, '') || '0';
    const text = `${digits}${decimal.replace(',', '.')}`;
    // Number("-0012") keeps its sign; "0" + ".5" is a Float.
    const value: Expr = decimal ? { k: 'float', text } : { k: 'int', v: BigInt(text) };
    return [groups.percent ? pct(value) : value, text];
  }
  const expr = groups.expr ?? '';
  if (!expr) return [undefined, expr];
  try {
    return [parseLatex(expr.replaceAll('\n', ' ').replaceAll('**', '^')), expr];
  } catch {
    return [undefined, expr];
  }
}

/** latex2sympy on one normalised environment, falling back to the last "=" part of a chain. */
function parseNormalized(latex: string): Expr {
  try {
    return parseLatex(latex);
  } catch (err) {
    if (latex.includes(',') || latex.includes(';')) throw err;
    const parts = latex.split(/(?<![\\<!>])=/);
    if (parts.length <= 2) throw err;
    return parseLatex(parts.at(-1)!);
  }
}

/** A LaTeX match (LatexExtractionConfig): every environment in it; several parsed ones form a set. */
function fromLatexMatch(groups: Record<string, string | undefined>): [Expr | undefined, string] {
  const prefixes = ['first', 'next1', 'next2', 'next3', 'next4', 'next5'];
  const parsed: (Expr | undefined)[] = [];
  const texts: string[] = [];
  for (const prefix of prefixes) {
    const entry = Object.entries(groups).find(([name, value]) => name.startsWith(`${prefix}_latex`) && value);
    if (!entry) continue;
    const [name, latex] = entry as [string, string];
    const normalized = normalizeLatex(latex, name === 'first_latexBoxed' ? 'last' : 'all');
    texts.push(normalized);
    try {
      const value = parseNormalized(normalized);
      parsed.push(groups[`${prefix}_percent`] ? pct(value) : value);
    } catch {
      parsed.push(undefined);
    }
  }
  if (parsed.length === 0) return [undefined, ''];
  if (parsed.length > 1 && parsed.every((p) => p !== undefined)) {
    const items = (parsed as Expr[]).flatMap((p) => (p.k === 'set' ? p.items : [p]));
    return [finiteSet(items), texts.join(' and ')];
  }
  return [parsed[0], texts[0]!];
}

interface Match {
  groups: Record<string, string | undefined>;
  start: number;
  end: number;
  target: Pattern['target'];
}

export function extractAnswer(text: string, patterns: readonly Pattern[]): Extraction {
  const priorities = [...new Set(patterns.map((p) => p.priority))].sort((a, b) => a - b);
  const fallbacks: string[] = [];
  for (const priority of priorities) {
    const matches: Match[] = [];
    for (const pattern of patterns.filter((p) => p.priority === priority)) {
      for (const m of text.matchAll(pattern.regex)) {
        matches.push({ groups: m.groups ?? {}, start: m.index!, end: m.index! + m[0].length, target: pattern.target });
      }
    }
    // Rightmost end first; for the same end, the longer match.
    matches.sort((a, b) => b.end - a.end || a.start - b.start);
    for (const match of matches) {
      const [parsed, fallback] = match.target === 'expr' ? fromExprMatch(match.groups) : fromLatexMatch(match.groups);
      if (fallback) fallbacks.push(fallback);
      if (parsed) return { parsed, fallback: fallbacks[0] };
    }
  }
  return { fallback: fallbacks[0] };
}

/** The strings math-verify reports for an extraction: the parsed value printed, then the fallback. */
export function extractionStrings(extraction: Extraction, print: (e: Expr) => string): string[] {
  const out: string[] = [];
  if (extraction.parsed) out.push(print(extraction.parsed));
  if (extraction.fallback !== undefined) out.push(extraction.fallback);
  return out;
}

/** String comparison of two fallbacks, as math-verify does when a side did not parse. */
export function sameAnswerText(a: string, b: string): boolean {
  const x = pyStrip(a);
  const y = pyStrip(b);
  return x.length > 0 && y.length > 0 && x === y;
}

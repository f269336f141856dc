// litmus_agent's reward rules: how a parsed prediction is compared with expected_answer. A row names
// one in `match` ({rule, ...params}); otherwise its answer type's default applies.
import { pyFloat } from '../../python/number';
import { pyStrip } from '../../python/str';
import { parseBool, type AnswerType } from './extract';
import { roundHalfEven } from '../../util/round';

export const RULES = ['exact', 'isclose', 'abs_window', 'rel_window', 'bool_eq', 'string_eq'] as const;
export type RuleName = (typeof RULES)[number];

export const DEFAULT_RULE: Readonly<Record<AnswerType, RuleName>> = { float: 'isclose', bool: 'bool_eq', string: 'string_eq' };

export interface Tolerances {
  rel_tol: number;
  abs_tol: number;
}

/** Python's round(): halves go to the even neighbour. */
/** math.isclose. */
function isClose(a: number, b: number, relTol: number, absTol: number): boolean {
  if (a === b) return true;
  if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
  const diff = Math.abs(a - b);
  return diff <= Math.abs(relTol * b) || diff <= Math.abs(relTol * a) || diff <= absTol;
}

const normalise = (value: unknown) => pyStrip(String(value)).toLowerCase().replace(/\s+/gu, ' ');

/** The expected answer as float(expected), or null where Python raises. */
export const expectedNumber = (expected: string | number) => (typeof expected === 'number' ? expected : pyFloat(expected));

export function applyRule(rule: RuleName, predicted: number | string, expected: string | number, tol: Tolerances): number {
  const p = typeof predicted === 'number' ? predicted : pyFloat(predicted);
  const e = expectedNumber(expected);
  switch (rule) {
    case 'exact':
      return p !== null && e !== null && Number.isFinite(p) && Number.isFinite(e) && roundHalfEven(p) === roundHalfEven(e) ? 1 : 0;
    case 'isclose':
      return p !== null && e !== null && isClose(p, e, tol.rel_tol, tol.abs_tol) ? 1 : 0;
    case 'abs_window':
      return p !== null && e !== null && Math.abs(p - e) <= tol.abs_tol ? 1 : 0;
    case 'rel_window':
      return p !== null && e !== null && Math.abs(p - e) <= Math.abs(tol.rel_tol * e) ? 1 : 0;
    case 'bool_eq': {
      const gold = parseBool(String(expected));
      return gold !== null && p === gold ? 1 : 0;
    }
    case 'string_eq':
      return normalise(predicted) === normalise(expected) ? 1 : 0;
  }
}

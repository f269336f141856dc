// What an IFEval instruction is here: the keyword names its Python build_description accepts, and a
// build step turning the row's kwargs into a text predicate. A build or check that throws stands for
// a Python exception, which NeMo Gym scores as "not followed".
import type { Rng } from '../../../util/rng';
import { pyStrip } from '../../../python/str';
import { truthy } from '../../../python/values';
import { RANDOM_WORDS } from './random_words';

export type Kwargs = Readonly<Record<string, unknown>>;
export type Check = (text: string) => boolean;

export interface Instruction {
  params: readonly string[];
  /** `rng` stands in for Python's `random`, which fills kwargs a row leaves out. */
  build(kwargs: Kwargs, rng: Rng): Check;
}

export const RELATIONS = ['less than', 'at least'] as const;
export type Relation = (typeof RELATIONS)[number];

/** A kwarg Python compares with numbers: anything else raises TypeError there. */
export function num(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return Number(v);
  throw new TypeError(`expected a number, got ${JSON.stringify(v)}`);
}

/** A kwarg Python calls str methods on: anything else raises AttributeError there. */
export function str(v: unknown): string {
  if (typeof v === 'string') return v;
  throw new TypeError(`expected a string, got ${JSON.stringify(v)}`);
}

export function randint(rng: Rng, lo: number, hi: number): number {
  return lo + rng.int(hi - lo + 1);
}

/** The common "x is None or x < 0 → random" default. */
export function countOr(v: unknown, rng: Rng, lo: number, hi: number): number {
  if (v === undefined) return randint(rng, lo, hi);
  const n = num(v);
  return n < 0 ? randint(rng, lo, hi) : n;
}

/** A relation kwarg: missing → random, unknown → ValueError. */
export function relationOr(v: unknown, rng: Rng): Relation {
  if (v === undefined) return rng.pick(RELATIONS);
  if (!RELATIONS.includes(v as Relation)) throw new RangeError(`relation must be one of ${RELATIONS.join(', ')}`);
  return v as Relation;
}

export function compare(actual: number, relation: Relation, threshold: number): boolean {
  return relation === 'less than' ? actual < threshold : actual >= threshold;
}

/** instructions_util.generate_keywords: distinct random words. */
export function randomWords(rng: Rng, k: number): string[] {
  const pool = [...RANDOM_WORDS];
  return Array.from({ length: k }, () => pool.splice(rng.int(pool.length), 1)[0]!);
}

/** A keyword kwarg: falsy → one random word, else stripped. */
export function keywordOr(v: unknown, rng: Rng): string {
  return !truthy(v) ? randomWords(rng, 1)[0]! : pyStrip(str(v));
}

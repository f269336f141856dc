// Knights-and-knaves statements as reasoning_gym stores them in metadata.statements, a seeded sampler
// for them, and the brute-force solver that keeps only puzzles with exactly one solution.
import type { Rng } from '../../../util/rng';

export type Statement = ['telling-truth' | 'lying', number] | ['not', Statement] | ['and' | 'or', ...Statement[]] | ['->' | '<=>', Statement, Statement];

export interface PuzzleShape {
  nPeople: number;
  /** Maximum nesting depth of one person's statement. */
  depth: number;
  /** Maximum number of operands of an and/or. */
  width: number;
}

export function isAtom(s: Statement): s is ['telling-truth' | 'lying', number] {
  return s[0] === 'telling-truth' || s[0] === 'lying';
}

export function holds(s: Statement, knights: readonly boolean[]): boolean {
  switch (s[0]) {
    case 'telling-truth':
      return knights[s[1]]!;
    case 'lying':
      return !knights[s[1]];
    case 'not':
      return !holds(s[1], knights);
    case 'and':
      return (s.slice(1) as Statement[]).every((sub) => holds(sub, knights));
    case 'or':
      return (s.slice(1) as Statement[]).some((sub) => holds(sub, knights));
    case '->':
      return !holds(s[1], knights) || holds(s[2], knights);
    case '<=>':
      return holds(s[1], knights) === holds(s[2], knights);
  }
}

/** Every assignment (true = truth-teller) under which each person's statement is true iff they tell the truth. */
export function solutions(statements: readonly Statement[]): boolean[][] {
  const n = statements.length;
  const found: boolean[][] = [];
  for (let mask = 0; mask < 1 << n; mask++) {
    const knights = Array.from({ length: n }, (_, i) => ((mask >> (n - 1 - i)) & 1) === 0);
    if (statements.every((s, i) => holds(s, knights) === knights[i])) found.push(knights);
  }
  return found;
}

function sampleStatement(rng: Rng, shape: PuzzleShape, speaker: number, depth: number): Statement {
  const dice = rng.int(6);
  if (depth === 1 || dice === 0) {
    for (;;) {
      const kind = rng.pick(['telling-truth', 'lying'] as const);
      const person = rng.int(shape.nPeople);
      // "I am lying" has no consistent reading.
      if (!(kind === 'lying' && person === speaker)) return [kind, person];
    }
  }
  if (dice === 1) return ['not', sampleStatement(rng, shape, speaker, depth - 1)];
  if (dice === 2 || dice === 3) {
    const count = 2 + rng.int(shape.width - 1);
    return [dice === 2 ? 'and' : 'or', ...distinctStatements(rng, shape, speaker, depth - 1, count)];
  }
  const [left, right] = distinctStatements(rng, shape, speaker, depth - 1, 2) as [Statement, Statement];
  return [dice === 4 ? '->' : '<=>', left, right];
}

function distinctStatements(rng: Rng, shape: PuzzleShape, speaker: number, depth: number, count: number): Statement[] {
  const seen = new Set<string>();
  const out: Statement[] = [];
  while (out.length < count) {
    const s = sampleStatement(rng, shape, speaker, depth);
    const key = JSON.stringify(s);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(s);
  }
  return out;
}

/** A statement per person whose puzzle has exactly one solution (up to `maxTries` samples). */
export function samplePuzzle(rng: Rng, shape: PuzzleShape, maxTries = 1000): { statements: Statement[]; solution: boolean[] } {
  for (let i = 0; i < maxTries; i++) {
    const statements = Array.from({ length: shape.nPeople }, (_, speaker) => sampleStatement(rng, shape, speaker, shape.depth));
    const found = solutions(statements);
    if (found.length === 1) return { statements, solution: found[0]! };
  }
  throw new Error(`no uniquely solvable knights-and-knaves puzzle in ${maxTries} samples`);
}

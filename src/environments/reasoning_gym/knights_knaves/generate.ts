// A seeded generator of knights_knaves task rows in NeMo Gym's reasoning_gym row format. Same seed, same
// rows; the rows are not reasoning_gym's own (it draws from numpy's generator), only shaped like them.
import { seededRng } from '../../../util/rng';
import { samplePuzzle, type PuzzleShape } from './logic';
import { puzzleAnswer, puzzleQuestion } from './format';
import { ROLE_PAIRS, termsFor } from './terms';

const NAMES = [
  'Ada',
  'Ben',
  'Cleo',
  'Dev',
  'Elena',
  'Farid',
  'Greta',
  'Hugo',
  'Ines',
  'Jonah',
  'Kira',
  'Leo',
  'Maya',
  'Nils',
  'Omar',
  'Priya',
  'Quinn',
  'Rosa',
  'Sami',
  'Tara',
  'Uma',
  'Victor',
  'Wen',
  'Ximena',
  'Yusuf',
  'Zara',
];

export interface KnightsKnavesOptions extends Partial<PuzzleShape> {
  seed: number;
  size: number;
}

export function generateKnightsKnavesTasks(options: KnightsKnavesOptions) {
  const shape: PuzzleShape = { nPeople: options.nPeople ?? 2, depth: options.depth ?? 2, width: options.width ?? 2 };
  // Fewer people or wider and/ors than distinct one-person claims would make the sampler spin forever.
  if (shape.nPeople < 2 || shape.nPeople > NAMES.length) throw new Error(`nPeople must be between 2 and ${NAMES.length}`);
  if (shape.depth < 1 || shape.width < 2 || shape.width > 2 * shape.nPeople - 1) {
    throw new Error('depth must be at least 1 and width between 2 and 2 * nPeople - 1');
  }
  return Array.from({ length: options.size }, (_, index) => {
    const rng = seededRng(`knights_knaves:${options.seed}:${index}`);
    const { statements, solution } = samplePuzzle(rng, shape);
    const names = shuffled(NAMES, rng).slice(0, shape.nPeople);
    const terms = termsFor(rng.pick(ROLE_PAIRS));
    const question = puzzleQuestion(rng, names, terms, statements);
    return {
      responses_create_params: { input: [{ role: 'user' as const, content: question }] },
      question,
      answer: puzzleAnswer(names, terms, solution),
      metadata: {
        source_dataset: 'knights_knaves' as const,
        source_index: index,
        statements,
        solution,
        names,
        knight_knave_terms: terms,
        difficulty: { n_people: shape.nPeople, depth_constraint: shape.depth, width_constraint: shape.width },
      },
    };
  });
}

function shuffled<T>(items: readonly T[], rng: { int(n: number): number }): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

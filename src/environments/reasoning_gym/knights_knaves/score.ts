// reasoning_gym's knights_knaves score_answer: the answer's (name, role) pairs against the gold answer's;
// all equal → 1.0, same count with k of n matching → 0.3 + 0.7·k/n, else 0.0.
import { pySplit, pyStrip } from '../../../python/str';
import { ROLE_PAIRS } from './terms';

const VALID_ROLES = new Set(ROLE_PAIRS.flatMap(([knight, knave]) => [knight, knave]));
const FILLER = new Set(['is', 'a', 'an']);

/** Lower-cased tokens; a role word closes a pair with the token before it ("zoey fool"). */
function nameRolePairs(answer: string): Set<string> {
  const cleaned = pyStrip(answer.toLowerCase()).replace(/[.,)(]/g, ' ');
  const pairs = new Set<string>();
  let name: string | undefined;
  for (const token of pySplit(cleaned.replaceAll(' and ', ' '))) {
    if (FILLER.has(token)) continue;
    if (VALID_ROLES.has(token)) {
      if (name) pairs.add(`${name}\u0000${token}`);
      name = undefined;
    } else {
      name = token;
    }
  }
  return pairs;
}

export function scoreKnightsKnaves(answer: string | null | undefined, goldAnswer: string): number {
  if (typeof answer !== 'string' || answer.length === 0) return 0.0;
  const gold = nameRolePairs(goldAnswer);
  const given = nameRolePairs(answer);
  const matching = [...given].filter((pair) => gold.has(pair)).length;
  if (gold.size === given.size && matching === gold.size) return 1.0;
  if (gold.size === given.size && matching > 0) return 0.3 + (0.7 * matching) / gold.size;
  return 0.0;
}

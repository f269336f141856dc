// Every instruction id of NeMo Gym's INSTRUCTION_DICT (verifiable_instructions: IFEval's 25 plus the
// open-instruct additions), and the per-instruction evaluation NeMo Gym's verify runs.
import { isGymError } from '../../../errors';
import { seededRng } from '../../../util/rng';
import { COPY_INSTRUCTIONS } from './copy';
import { FIRST_LAST_INSTRUCTIONS } from './first_last';
import { FORMAT_INSTRUCTIONS } from './format';
import { KEYWORD_INSTRUCTIONS, letterFrequency } from './keywords';
import { LANGUAGE_INSTRUCTIONS } from './language';
import { LENGTH_INSTRUCTIONS } from './length';
import type { Check, Instruction, Kwargs } from './types';

export const INSTRUCTIONS: Readonly<Record<string, Instruction>> = {
  ...KEYWORD_INSTRUCTIONS,
  ...LENGTH_INSTRUCTIONS,
  ...FORMAT_INSTRUCTIONS,
  ...LANGUAGE_INSTRUCTIONS,
  ...COPY_INSTRUCTIONS,
  ...FIRST_LAST_INSTRUCTIONS,
  'letters:letter_counting2': letterFrequency,
};

/**
 * The row's kwargs for one instruction turned into a check, or an Error where Python's registry
 * lookup or build_description would raise. None values are dropped first, as NeMo Gym does.
 */
export function buildCheck(instructionId: string, kwargs: unknown): Check | Error {
  try {
    const instruction = INSTRUCTIONS[instructionId];
    if (!instruction) throw new RangeError(`unknown instruction id ${instructionId}`);
    const given = kwargs ?? {};
    if (typeof given !== 'object' || Array.isArray(given)) throw new TypeError('kwargs must be an object');
    const filtered: Kwargs = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== null && v !== undefined));
    const unexpected = Object.keys(filtered).filter((k) => !instruction.params.includes(k));
    if (unexpected.length > 0) throw new TypeError(`unexpected keyword argument ${unexpected.join(', ')}`);
    // Python fills missing kwargs from its unseeded `random`; seeding by the row keeps re-verification stable.
    return instruction.build(filtered, seededRng(`${instructionId} ${JSON.stringify(filtered)}`));
  } catch (error) {
    return error as Error;
  }
}

/**
 * check_following with Python's "any exception means not followed". A GymError is not a Python
 * exception but Gymflow refusing to grade (a row's pattern past the regex deadline): it fails verify.
 */
export function follows(check: Check | Error, text: string): boolean {
  if (check instanceof Error) return false;
  try {
    return check(text);
  } catch (e) {
    if (isGymError(e)) throw e;
    return false;
  }
}

// NeMo Gym's instruction_following environment: IFEval-style verifiable instructions graded on the
// final answer. Reward is all-or-nothing ("binary", the default) or the share of instructions
// followed ("fraction"), from the strict verdicts; loose verdicts are reported alongside.
import type { ResponseObject } from '../../schemas/responses';
import { defineEnvironment } from '../define';
import { gradeAnswer, rewardOf } from './grade';
import { languageDetectorLoaded, loadLanguageDetector } from './text/language';
import { InstructionFollowingTask, verifierMetadata } from './task';

/** NeMo Gym grades only the last output item's first content part. */
export function finalAnswerText(response: ResponseObject): string {
  const last = response.output.at(-1) as { content?: unknown } | undefined;
  const content = last?.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content) || content.length === 0) return '';
  const text = (content[0] as { text?: unknown }).text;
  return typeof text === 'string' ? text : '';
}

export const instructionFollowing = defineEnvironment({
  name: 'instruction_following',
  description: 'IFEval-style verifiable instructions (keywords, length, format, case, copying) checked on the final answer.',
  taskSchema: InstructionFollowingTask,
  verify(task, response) {
    // The first verify waits for the language tables; later ones stay synchronous.
    return languageDetectorLoaded() ? grade(task, response) : loadLanguageDetector().then(() => grade(task, response));
  },
});

function grade(task: InstructionFollowingTask, response: ResponseObject) {
  const meta = verifierMetadata(task);
  const { instructionIds, strict, loose } = gradeAnswer(meta, finalAnswerText(response));
  const failed = instructionIds.filter((_, i) => !strict[i]);
  return {
    reward: rewardOf(strict, meta.grading_mode),
    follow_all_instructions: strict.every(Boolean),
    follow_instruction_list: strict,
    reward_loose: rewardOf(loose, meta.grading_mode),
    follow_all_instructions_loose: loose.every(Boolean),
    follow_instruction_list_loose: loose,
    verifier_metadata: meta,
    ...(failed.length > 0 ? { failure_reason: `instructions not followed: ${failed.join(', ')}` } : {}),
  };
}

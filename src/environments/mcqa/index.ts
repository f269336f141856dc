// NeMo Gym's mcqa: a multiple-choice question; the answer letter is read from the model's whole
// episode text (by the task's output_regex, else its grading mode) and must equal expected_answer.
import { z } from 'zod';
import { outputText } from '../../schemas/responses';
import { TaskRow } from '../../schemas/task';
import { defineEnvironment } from '../define';
import { pyPattern } from '../pattern-field';
import { GRADING_MODES, TEMPLATE_REGEX_FLAGS, allowedLetters, letterForMode, letterFromTemplateRegexes, type GradingMode } from './grading';
import { pyStrip } from '../../python/str';

export const McqaTask = TaskRow.extend({
  uuid: z.string().nullish(),
  options: z.array(z.record(z.string(), z.string().nullable())).nullish(),
  expected_answer: z.string().nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  // NeMo Gym accepts lenient_answer_colon_md only as a server setting; here a task may choose it too.
  grading_mode: z.enum(GRADING_MODES).optional(),
  template_metadata: z.looseObject({ output_regex: z.union([pyPattern(TEMPLATE_REGEX_FLAGS), z.array(pyPattern(TEMPLATE_REGEX_FLAGS))]).optional() }).nullish(),
});
export type McqaTask = z.infer<typeof McqaTask>;

const DEFAULT_MODE: GradingMode = 'strict_single_letter_boxed';

/** The letter the episode's text chooses, or null. */
export function extractAnswer(task: McqaTask, text: string): string | null {
  const allowed = allowedLetters(task.options);
  const patterns = task.template_metadata?.output_regex;
  const fromTemplate = patterns === undefined ? null : letterFromTemplateRegexes(text, patterns, task.options, allowed);
  return fromTemplate ?? letterForMode(task.grading_mode ?? DEFAULT_MODE, text, task.options, allowed);
}

function failureReason(text: string, gold: string, extracted: string | null): string {
  if (text === '') return 'empty_response';
  if (gold === '') return 'no_expected_answer';
  return extracted === null ? 'no_answer_extracted' : 'wrong_answer';
}

export const mcqa = defineEnvironment({
  name: 'mcqa',
  description: 'Multiple-choice questions; reward 1.0 when the extracted option letter equals expected_answer.',
  taskSchema: McqaTask,
  verify(task, response) {
    const gold = pyStrip(task.expected_answer ?? '').toUpperCase();
    const text = pyStrip(outputText(response.output));
    const extracted = text === '' ? null : extractAnswer(task, text);
    const correct = extracted !== null && gold !== '' && extracted === gold;
    return {
      reward: correct ? 1.0 : 0.0,
      expected_answer: gold,
      extracted_answer: extracted,
      ...(correct ? {} : { failure_reason: failureReason(text, gold, extracted) }),
    };
  },
});

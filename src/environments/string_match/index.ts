// NeMo Gym's string_match: extract the answer from the model's text (boxed, "Final answer:", last
// line or everything) and compare it with expected_answer, exactly or through a normalising grader.
import { z } from 'zod';
import { TaskRow } from '../../schemas/task';
import { defineEnvironment } from '../define';
import { pyStrip } from '../../python/str';
import { assistantText } from './assistant_text';
import { EXTRACTION_MODES, extractAnswer, type ExtractionMode } from './extract';
import { NEAR_NUMERIC_REWARD, gradeStringMatch } from './grade';

export const StringMatchTask = TaskRow.extend({
  expected_answer: z.string(),
  extraction_mode: z.enum(EXTRACTION_MODES).optional(),
  case_sensitive: z.boolean().optional(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
});
export type StringMatchTask = z.infer<typeof StringMatchTask>;

export const DEFAULT_MODE: ExtractionMode = 'final_answer';

function score(task: StringMatchTask, extracted: string): number {
  if (task.case_sensitive) return pyStrip(extracted) === pyStrip(task.expected_answer) ? 1.0 : 0.0;
  return gradeStringMatch(task.expected_answer, extracted);
}

function failureReason(task: StringMatchTask, extracted: string | null, reward: number): string {
  if (extracted === null) return 'no_answer_extracted';
  if (task.expected_answer === '') return 'no_expected_answer';
  return reward === NEAR_NUMERIC_REWARD ? 'approximate_numeric_match' : 'wrong_answer';
}

export const stringMatch = defineEnvironment({
  name: 'string_match',
  description: 'Extract an answer from the text and compare it with expected_answer (normalised, or exactly).',
  taskSchema: StringMatchTask,
  verify(task, response) {
    const extracted = extractAnswer(assistantText(response.output), task.extraction_mode ?? DEFAULT_MODE);
    const reward = extracted !== null && task.expected_answer !== '' ? score(task, extracted) : 0.0;
    return {
      reward,
      expected_answer: task.expected_answer,
      extracted_answer: extracted,
      ...(reward === 1.0 ? {} : { failure_reason: failureReason(task, extracted, reward) }),
    };
  },
});

// NeMo Gym's spartqa: SpartQA's choose-object questions (a story, "… X or Y?", four candidate answers);
// reward 1.0 when the model's final answer resolves to the single gold label.
import { z } from 'zod';
import { outputText } from '../../schemas/responses';
import { TaskRow } from '../../schemas/task';
import { defineEnvironment } from '../define';
import { candidateLabels, extractAnswer, labelKey, matchLabel, normalize } from './answer';

// Rows carry target/options twice, at the top level and in verifier_metadata (an external runner
// forwards only scalar top-level fields); the top level wins and verifier_metadata fills in.
export const SpartqaTask = TaskRow.extend({
  target: z.string().default(''),
  options: z.array(z.string()).default([]),
  verifier_metadata: z.looseObject({ target: z.string().optional(), options: z.array(z.string()).optional() }).nullish(),
});
export type SpartqaTask = z.infer<typeof SpartqaTask>;

/** The gold label and the two story objects the row offers. */
export function goldAndOptions(task: SpartqaTask): { gold: string; options: string[] } {
  const meta = task.verifier_metadata ?? {};
  return { gold: task.target || (meta.target ?? ''), options: task.options.length ? task.options : (meta.options ?? []) };
}

function failureReason(text: string, prediction: string, predicted: string | null): string {
  if (text.trim() === '') return 'empty_response';
  if (!normalize(prediction)) return 'no_answer_extracted';
  return predicted === null ? 'no_label_resolved' : 'wrong_label';
}

export const spartqa = defineEnvironment({
  name: 'spartqa',
  description: 'SpartQA choose-object spatial questions; reward 1.0 when the final answer resolves to the gold label.',
  taskSchema: SpartqaTask,
  verify(task, response) {
    const text = outputText(response.output);
    const prediction = extractAnswer(text);
    const { gold, options } = goldAndOptions(task);
    const predicted = matchLabel(prediction, candidateLabels(options.length ? options : [gold]));
    const goldKey = labelKey(gold);
    const correct = goldKey !== '' && predicted !== null && labelKey(predicted) === goldKey;
    return {
      reward: correct ? 1.0 : 0.0,
      // Copied verbatim as the prompt asks, rather than recovered from a longer sentence.
      exact: correct && labelKey(prediction) === goldKey,
      parsed: normalize(prediction) !== '',
      extracted: [...prediction].slice(0, 200).join(''),
      predicted_label: predicted ?? '',
      ...(correct ? {} : { failure_reason: failureReason(text, prediction, predicted) }),
    };
  },
});

// NeMo Gym's ruler2: RULER v2 long-context rows scored by soft string match (substring or 1 − WER over
// the references) or, for multiple-choice rows, by the letter read from the answer.
import { outputText } from '../../schemas/responses';
import { pyStrip } from '../../python/str';
import { defineEnvironment } from '../define';
import { extractLetter } from './letter';
import { stringMatch } from './score';
import { Ruler2Task } from './task';

export { Ruler2Task } from './task';

// Control characters become line breaks, as NeMo Skills' default_parse reports the prediction.
const parsePrediction = (text: string) => pyStrip(pyStrip(text).replace(/[\x00-\x1f]/g, '\n'));

/** Why a multiple-choice row scored 0. */
function letterFailure(text: string, extracted: string | null): string {
  if (pyStrip(text) === '') return 'empty_response';
  return extracted === null ? 'no_answer_extracted' : 'wrong_answer';
}

/** Why a string-match row scored below 1. */
function matchFailure(text: string, reward: number): string {
  if (pyStrip(text) === '') return 'empty_response';
  return reward > 0 ? 'partial_match' : 'no_match';
}

export const ruler2 = defineEnvironment({
  name: 'ruler2',
  description: 'RULER v2 long-context retrieval and QA: soft string match (substring or 1 − WER) over references, or the multiple-choice letter.',
  taskSchema: Ruler2Task,
  verify(task, response) {
    const text = outputText(response.output);
    const common = { eval_type: task.eval_type, match_type: task.match_type, task: task.task ?? null, length: task.length ?? null, predicted_answer: parsePrediction(text) };
    if (task.eval_type === 'multichoice') {
      const extracted = extractLetter(text);
      const reward = extracted !== null && extracted === pyStrip(task.expected_answer).toUpperCase() ? 1.0 : 0.0;
      return { reward, ...common, extracted_answer: extracted, ...(reward < 1 ? { failure_reason: letterFailure(text, extracted) } : {}) };
    }
    const reward = stringMatch(task.match_type, text, task.expected_answer);
    return { reward, ...common, extracted_answer: null, ...(reward < 1 ? { failure_reason: matchFailure(text, reward) } : {}) };
  },
});

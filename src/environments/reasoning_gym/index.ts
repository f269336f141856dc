// NeMo Gym's reasoning_gym server for the knights_knaves task: the answer is pulled from the episode
// (answer tags, boxed, or whole text) and scored with reasoning_gym's partial-credit rule.
import { defineEnvironment } from '../define';
import { outputText } from '../../schemas/responses';
import { extractAnswer } from './extract';
import { scoreKnightsKnaves } from './knights_knaves/score';
import { ReasoningGymTask } from './task';

export { generateKnightsKnavesTasks } from './knights_knaves/generate';

function failureReason(score: number, answer: string, hasGold: boolean): string {
  if (!hasGold) return 'task_has_no_gold_answer';
  if (answer === '') return 'empty_answer';
  return score > 0 ? 'some_roles_wrong' : 'roles_wrong_or_unparsed';
}

export const reasoningGym = defineEnvironment({
  name: 'reasoning_gym',
  description: 'Knights-and-knaves logic puzzles; reward 1.0 for the exact role assignment, partial credit for some.',
  taskSchema: ReasoningGymTask,
  verify(task, response) {
    const answer = extractAnswer(outputText(response.output));
    // reasoning_gym's scorer fails on a missing gold answer, which NeMo Gym scores 0.
    const score = task.answer === null ? 0.0 : scoreKnightsKnaves(answer, task.answer);
    return {
      reward: score,
      task_name: task.metadata.source_dataset,
      score,
      extracted_answer: answer,
      ...(score < 1 ? { failure_reason: failureReason(score, answer, task.answer !== null) } : {}),
    };
  },
});

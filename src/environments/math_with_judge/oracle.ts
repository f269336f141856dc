// The mock policy's player for math_with_judge: the boxed gold answer, or (gold)^2+1, which equals
// the gold for no real value.
import { assistantMessage } from '../example_single_tool_call';
import type { Oracle } from '../oracle';
import { stripMathDelimiters } from './math/library';
import type { MathTask } from './task';

export const mathWithJudgeOracle: Oracle<MathTask> = (task, _history, { correct }) => {
  const gold = stripMathDelimiters(task.expected_answer);
  // x² + 1 equals x for no real x, so the wrong answer is wrong whatever the gold is.
  return [assistantMessage(`Solving step by step gives the result.\n\n\\boxed{${correct ? gold : `(${gold})^2+1`}}`)];
};

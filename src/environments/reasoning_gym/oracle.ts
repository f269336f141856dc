// The mock policy's player for reasoning_gym: the gold assignment, or every role word swapped.
import { assistantMessage } from '../example_single_tool_call';
import type { Oracle } from '../oracle';
import type { ReasoningGymTask } from './task';

export const reasoningGymOracle: Oracle<ReasoningGymTask> = (task, _history, { correct }) => {
  const gold = task.answer ?? '';
  const terms = task.metadata.knight_knave_terms;
  // Swapping every role word gives an assignment with no pair right.
  const wrong = terms ? gold.replace(new RegExp(`\\b(${terms.a_knight}|${terms.a_knave})\\b`, 'g'), (t) => (t === terms.a_knight ? terms.a_knave! : terms.a_knight!)) : '';
  return [assistantMessage(`Working through each statement gives the assignment.\n<answer>${correct ? gold : wrong}</answer>`)];
};

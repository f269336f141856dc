// The mock policy's player for ruler2: the references (or the gold letter, boxed) when correct; an
// answer sharing no word with them otherwise.
import { pyStrip } from '../../python/str';
import { assistantMessage } from '../example_single_tool_call';
import type { Oracle } from '../oracle';
import type { Ruler2Task } from '.';

export const ruler2Oracle: Oracle<Ruler2Task> = (task, _history, { correct, rng }) => {
  if (task.eval_type === 'multichoice') {
    const gold = pyStrip(task.expected_answer).toUpperCase();
    const letter = correct ? gold : rng.pick(['A', 'B', 'C', 'D'].filter((l) => l !== gold));
    return [assistantMessage(`After finding the question in the text I solved it.\n\\boxed{${letter}}`)];
  }
  return [assistantMessage(correct ? task.expected_answer.join(', ') : 'I could not find that in the text.')];
};

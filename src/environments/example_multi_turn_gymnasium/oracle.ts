// The mock policy's player for example_multi_turn_gymnasium: a filler reply to each follow-up, then
// the expected answer (or one that cannot contain it).
import type { MessageItem } from '../../schemas/responses';
import { assistantMessage } from '../example_single_tool_call';
import type { Oracle } from '../oracle';
import type { MultiTurnTask } from '.';

export const exampleMultiTurnGymnasiumOracle: Oracle<MultiTurnTask> = (task, history, { correct }) => {
  const followUpsSeen = history.filter((i) => (i as MessageItem).role === 'user').length;
  if (followUpsSeen < task.follow_ups.length) return [assistantMessage('Let me answer that.')];
  if (correct) return [assistantMessage(`The answer is ${task.expected_answer}.`)];
  // A wrong answer must not contain the expected substring by accident (a one-letter answer would).
  const expected = task.expected_answer.toLowerCase();
  return [assistantMessage(['I am not sure.', '?'].find((t) => expected === '' || !t.toLowerCase().includes(expected)) ?? '')];
};

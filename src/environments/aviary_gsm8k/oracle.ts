// The mock policy's player for aviary_gsm8k: one calculator call, then submit_answer with the answer
// (or the answer plus one when it should be wrong), then a closing message.
import type { ConversationItem } from '../../schemas/responses';
import { assistantMessage } from '../example_single_tool_call';
import type { Oracle } from '../oracle';
import type { AviaryGsm8kTask } from '.';

/** A model's function call item, as the oracles of Aviary's tool environments emit them. */
export const functionCall = (name: string, args: Record<string, unknown>, id: string): ConversationItem => ({
  type: 'function_call',
  call_id: id,
  name,
  arguments: JSON.stringify(args),
});

export const aviaryGsm8kOracle: Oracle<AviaryGsm8kTask> = (task, history, { correct }) => {
  const calls = history.filter((item) => item.type === 'function_call').length;
  const value = correct ? task.answer : task.answer + 1;
  if (calls === 0) return [functionCall('calculator', { expr: `${value} * 1` }, 'call_calc')];
  if (calls === 1) return [functionCall('submit_answer', { answer: String(value) }, 'call_submit')];
  return [assistantMessage(`The answer is ${value}.`)];
};

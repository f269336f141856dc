// The mock policy's player for example_session_state_mgmt: one increment to the expected count
// (one too many when playing wrong), a read-back, then a closing message.
import { functionCalls } from '../../schemas/responses';
import { assistantMessage } from '../example_single_tool_call';
import type { Oracle } from '../oracle';
import type { CounterTask } from '.';

export const exampleSessionStateMgmtOracle: Oracle<CounterTask> = (task, history, { correct, rng }) => {
  const calls = functionCalls(history);
  const call = (name: string, args: unknown) => ({
    type: 'function_call' as const,
    call_id: `call_${rng.int(1e9)}`,
    name,
    arguments: JSON.stringify(args),
    status: 'completed',
  });
  if (!calls.some((c) => c.name === 'increment_counter')) {
    const delta = task.expected_count - task.initial_count + (correct ? 0 : 1);
    return [call('increment_counter', { count: delta })];
  }
  if (!calls.some((c) => c.name === 'get_counter_value')) return [call('get_counter_value', {})];
  const last = history.at(-1);
  return [assistantMessage(`The counter now reads ${last?.type === 'function_call_output' ? String(last.output) : 'as expected'}.`)];
};

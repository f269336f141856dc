// NeMo Gym's example_session_state_mgmt: a per-session counter seeded from the task, changed by
// increment_counter and read by get_counter_value; reward 1.0 when it ends at expected_count.
import { z } from 'zod';
import { functionCalls } from '../../schemas/responses';
import { TaskRow } from '../../schemas/task';
import { reply, type Environment } from '../types';
import { assistantMessage } from '../example_single_tool_call';

export const CounterTask = TaskRow.extend({
  initial_count: z.number().int(),
  expected_count: z.number().int(),
});
export type CounterTask = z.infer<typeof CounterTask>;

export interface CounterState {
  count: number;
}

const IncrementArgs = z.object({ count: z.number().int() });

export const exampleSessionStateMgmt: Environment<CounterTask, CounterState> = {
  name: 'example_session_state_mgmt',
  description: 'A per-session counter changed by tools; reward 1.0 when it ends at expected_count.',
  taskSchema: CounterTask,
  reverifyMode: 'stateful',
  seedSession: (task) => ({ count: task.initial_count }),
  tools: {
    increment_counter: {
      args: IncrementArgs,
      run: ({ count }: z.infer<typeof IncrementArgs>, { state }) => reply({ success: true }, { count: state.count + count }),
    },
    get_counter_value: {
      // NeMo Gym's endpoint takes no body, so any arguments are accepted and ignored.
      args: z.unknown(),
      run: (_args: unknown, { state }) => reply({ count: state.count }, state),
    },
  },
  verify(task, _response, { state }) {
    const correct = state.count === task.expected_count;
    return { reward: correct ? 1.0 : 0.0, ...(correct ? {} : { failure_reason: 'wrong_final_count' }) };
  },
  oracle(task, history, { correct, rng }) {
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
  },
};

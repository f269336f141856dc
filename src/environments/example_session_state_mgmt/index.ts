// NeMo Gym's example_session_state_mgmt: a per-session counter seeded from the task, changed by
// increment_counter and read by get_counter_value; reward 1.0 when it ends at expected_count.
import { z } from 'zod';
import { TaskRow } from '../../schemas/task';
import { defineEnvironment } from '../define';
import { reply } from '../types';

export const CounterTask = TaskRow.extend({
  initial_count: z.number().int(),
  expected_count: z.number().int(),
});
export type CounterTask = z.infer<typeof CounterTask>;

export interface CounterState {
  count: number;
}

const IncrementArgs = z.object({ count: z.number().int() });

export const exampleSessionStateMgmt = defineEnvironment<CounterTask, CounterState>({
  name: 'example_session_state_mgmt',
  description: 'A per-session counter changed by tools; reward 1.0 when it ends at expected_count.',
  taskSchema: CounterTask,
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
});

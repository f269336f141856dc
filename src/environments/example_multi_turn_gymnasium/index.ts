// NeMo Gym's scripted multi-turn example: after each model turn a scripted user sends the next
// follow-up; the turn after the last follow-up is graded by a case-insensitive substring check.
import { z } from 'zod';
import { TaskRow } from '../../schemas/task';
import { asEnvironment, turnText, type GymnasiumEnvironment } from '../gymnasium';

export const MultiTurnTask = TaskRow.extend({
  follow_ups: z.array(z.string()).default([]),
  expected_answer: z.string().default(''),
});
export type MultiTurnTask = z.infer<typeof MultiTurnTask>;

/** Follow-ups already sent. */
export interface MultiTurnState {
  turn: number;
}

export const exampleMultiTurnGymnasiumGym: GymnasiumEnvironment<MultiTurnTask, MultiTurnState> = {
  name: 'example_multi_turn_gymnasium',
  description: 'A scripted user sends follow-ups; the final answer must contain the expected substring (reward 1.0).',
  taskSchema: MultiTurnTask,
  maxSteps: 5,
  reset: () => ({ observation: null, info: {}, state: { turn: 0 } }),
  step(task, state, turn) {
    if (state.turn < task.follow_ups.length) {
      return {
        observation: task.follow_ups[state.turn]!,
        reward: 0,
        terminated: false,
        truncated: false,
        info: {},
        state: { turn: state.turn + 1 },
      };
    }
    const expected = task.expected_answer;
    const found = expected !== '' && turnText(turn).toLowerCase().includes(expected.toLowerCase());
    return { observation: null, reward: found ? 1 : 0, terminated: true, truncated: false, info: {}, state };
  },
  failureReason: (episode) => (episode.reward > 0 ? undefined : 'expected_answer_missing'),
};

export const exampleMultiTurnGymnasium = asEnvironment(exampleMultiTurnGymnasiumGym);

// NeMo Gym's aviary_gsm8k: a GSM8K word problem solved with Aviary's calculator tool and ended by
// submit_answer; the reward is what Aviary's CalculatorEnv pays over the episode (1 correct, -1 per tool failure).
import { z } from 'zod';
import { pyFloat } from '../../python/number';
import { TaskRow } from '../../schemas/task';
import { defineEnvironment } from '../define';
import { reply, type ToolReply } from '../types';
import { CalculatorError, evaluate } from './calculator';

export const AviaryGsm8kTask = TaskRow.extend({
  /** The numeric answer (GSM8K's text after "#### ", commas removed). */
  answer: z.number(),
  /** NeMo Gym's index into Aviary's GSM8K train split; carried, not read. */
  task_idx: z.number().int().nonnegative().optional(),
  problem_id: z.string().optional(),
});
export type AviaryGsm8kTask = z.infer<typeof AviaryGsm8kTask>;

export interface CalculatorEpisode {
  /** The reward Aviary has paid so far. */
  reward: number;
  /** Set by submit_answer or a failed calculation: Aviary's episode is over. */
  done: boolean;
  submitted: string | null;
  correct: boolean;
}

// CalculatorEnvConfig's defaults.
const CORRECT_REWARD = 1.0;
const INCORRECT_REWARD = 0.0;
const TOOL_FAILURE_REWARD = -1.0;
const REL_TOL = 1e-4;

const EXPR = z.object({ expr: z.string() });
const ANSWER = z.object({ answer: z.string() });

function afterEnd(state: CalculatorEpisode): ToolReply<CalculatorEpisode> | null {
  return state.done ? reply('The episode is over; no further tool calls are scored.', state) : null;
}

/** Aviary's check: relative error below rel_tol, relative to |answer| + rel_tol. */
export function isCorrect(submitted: number, answer: number): boolean {
  return Math.abs(submitted - answer) / (Math.abs(answer) + REL_TOL) < REL_TOL;
}

function failureReason(state: CalculatorEpisode): string {
  if (state.submitted === null) return state.reward < 0 ? 'tool_failure' : 'no_answer_submitted';
  return pyFloat(state.submitted) === null ? 'unparsable_answer' : 'wrong_answer';
}

export const aviaryGsm8k = defineEnvironment<AviaryGsm8kTask, CalculatorEpisode>({
  name: 'aviary_gsm8k',
  description: 'GSM8K word problems with a calculator tool, ended by submit_answer; reward 1 for a correct answer, -1 per tool failure (Aviary).',
  taskSchema: AviaryGsm8kTask,
  seedSession: () => ({ reward: 0, done: false, submitted: null, correct: false }),
  tools: {
    calculator: {
      args: EXPR,
      run({ expr }: z.infer<typeof EXPR>, { state }) {
        const ended = afterEnd(state);
        if (ended) return ended;
        try {
          return reply(evaluate(expr), state);
        } catch (e) {
          if (!(e instanceof CalculatorError)) throw e;
          // done_on_failure: a failed calculation ends Aviary's episode.
          return reply(`Error using calculator: ValueError(${JSON.stringify(e.message)}).`, { ...state, reward: state.reward + TOOL_FAILURE_REWARD, done: true });
        }
      },
    },
    submit_answer: {
      args: ANSWER,
      run({ answer }: z.infer<typeof ANSWER>, { state, task }) {
        const ended = afterEnd(state);
        if (ended) return ended;
        const value = pyFloat(answer);
        if (value === null) return reply(false, { ...state, reward: state.reward + TOOL_FAILURE_REWARD, done: true, submitted: answer });
        const correct = isCorrect(value, task.answer);
        return reply(correct, { reward: state.reward + (correct ? CORRECT_REWARD : INCORRECT_REWARD), done: true, submitted: answer, correct });
      },
    },
  },
  verify(task, _response, { state }) {
    return {
      reward: state.reward,
      expected_answer: task.answer,
      submitted_answer: state.submitted,
      ...(state.correct ? {} : { failure_reason: failureReason(state) }),
    };
  },
});

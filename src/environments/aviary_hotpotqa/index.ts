// NeMo Gym's aviary_hotpotqa: a multi-hop HotpotQA question answered with Aviary's Wikipedia tools
// (search, lookup) and ended by submit_answer; reward 1 when the normalised answer contains the gold.
import { z } from 'zod';
import { TaskRow } from '../../schemas/task';
import { defineEnvironment } from '../define';
import { reply, type ToolReply } from '../types';
import { containsGold } from './answer';
import { lookup, NO_PAGE, search, WikiSnapshot, type Browsing } from './wiki';

export const AviaryHotpotqaTask = TaskRow.extend({
  /** HotpotQA's gold answer. */
  answer: z.string(),
  /** The Wikipedia the tools read: pages and recorded search answers (Aviary fetches the live site). */
  wiki: WikiSnapshot,
  /** NeMo Gym's index into Aviary's HotpotQA train split; carried, not read. */
  task_idx: z.number().int().nonnegative().optional(),
});
export type AviaryHotpotqaTask = z.infer<typeof AviaryHotpotqaTask>;

export interface HotpotqaEpisode extends Browsing {
  /** The reward Aviary has paid so far. */
  reward: number;
  /** Set by submit_answer or an empty tool argument: Aviary's episode is over. */
  done: boolean;
  /** The submitted answer (never an empty one). */
  submitted: string | null;
}

// HotPotQAEnvConfig's defaults.
const CORRECT_REWARD = 1.0;
const INCORRECT_REWARD = 0.0;

const ENTITY = z.object({ entity: z.string() });
const KEYWORD = z.object({ keyword: z.string() });
const ANSWER = z.object({ answer: z.string() });

function afterEnd(state: HotpotqaEpisode): ToolReply<HotpotqaEpisode> | null {
  return state.done ? reply('The episode is over; no further tool calls are scored.', state) : null;
}

function failureReason(state: HotpotqaEpisode): string {
  if (state.submitted !== null) return 'wrong_answer';
  // Ended by an empty search entity, lookup keyword or answer.
  return state.done ? 'tool_failure' : 'no_answer_submitted';
}

export const aviaryHotpotqa = defineEnvironment<AviaryHotpotqaTask, HotpotqaEpisode>({
  name: 'aviary_hotpotqa',
  description: "HotpotQA multi-hop questions with Wikipedia search/lookup tools over the row's page snapshot, ended by submit_answer; reward 1 when the answer contains the gold (Aviary).",
  taskSchema: AviaryHotpotqaTask,
  seedSession: () => ({ ...NO_PAGE, reward: 0, done: false, submitted: null }),
  tools: {
    search: {
      args: ENTITY,
      run({ entity }: z.infer<typeof ENTITY>, { state, task }) {
        const ended = afterEnd(state);
        if (ended) return ended;
        if (!entity) return reply('Search failed. No entity provided.', { ...state, done: true });
        const found = search(task.wiki, entity, state);
        return reply(found.text, { ...state, ...found.state });
      },
    },
    lookup: {
      args: KEYWORD,
      run({ keyword }: z.infer<typeof KEYWORD>, { state }) {
        const ended = afterEnd(state);
        if (ended) return ended;
        if (!keyword) return reply('Lookup failed. No keyword provided', { ...state, done: true });
        const found = lookup(keyword, state);
        return reply(found.text, { ...state, ...found.state });
      },
    },
    submit_answer: {
      args: ANSWER,
      run({ answer }: z.infer<typeof ANSWER>, { state, task }) {
        const ended = afterEnd(state);
        if (ended) return ended;
        if (!answer) return reply('submit_answer failed since it was provided an empty answer.', { ...state, done: true });
        const reward = containsGold(answer, task.answer) ? CORRECT_REWARD : INCORRECT_REWARD;
        return reply('Finished.', { ...state, done: true, submitted: answer, reward: state.reward + reward, lastActionIsLookup: false });
      },
    },
  },
  verify(task, _response, { state }) {
    return {
      reward: state.reward,
      expected_answer: task.answer,
      submitted_answer: state.submitted,
      ...(state.reward > 0 ? {} : { failure_reason: failureReason(state) }),
    };
  },
});

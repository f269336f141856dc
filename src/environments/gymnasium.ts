// NeMo Gym's Gymnasium-style environments (GymnasiumServer + gymnasium_agent): reset/step instead of
// tools and verify. The agent loop drives an episode with `startEpisode` and `advance`; `asEnvironment`
// also serves one through the ordinary Environment interface, whose verify replays the episode.
import type { z } from 'zod';
import type { ConversationItem, FunctionCallOutputItem, MessageItem } from '../schemas/responses';
import type { TaskRow } from '../schemas/task';
import type { VerifyResult } from '../schemas/verify';
import { seededRng, type Rng } from '../util/rng';
import { defineEnvironment } from './define';
import type { Environment } from './types';

export type GymInfo = Record<string, unknown>;

export interface GymReset<State> {
  observation: string | null;
  info: GymInfo;
  state: State;
}

export interface GymStep<State> extends GymReset<State> {
  reward: number;
  terminated: boolean;
  truncated: boolean;
}

export interface GymnasiumEnvironment<Task extends TaskRow = TaskRow, State = unknown> {
  name: string;
  description: string;
  taskSchema: z.ZodType<Task>;
  /** The agent's `max_steps` in NeMo Gym's config: an episode still open after that many steps is truncated. */
  maxSteps: number;
  /** Starts an episode. All randomness comes from `rng`, so the same rng gives the same episode. */
  reset(task: Task, rng: Rng): GymReset<State>;
  /** One model turn: `turn` holds only that turn's output items, as NeMo Gym posts only the latest response. */
  step(task: Task, state: State, turn: readonly ConversationItem[]): GymStep<State>;
  /** Why a finished episode did not succeed, or undefined when it did. */
  failureReason(episode: Episode<State>): string | undefined;
}

/** An episode's bookkeeping as gymnasium_agent keeps it; JSON-serialisable when the environment state is. */
export interface Episode<State> {
  state: State;
  steps: number;
  /** Sum of the step rewards, the rollout's reward. */
  reward: number;
  terminated: boolean;
  truncated: boolean;
  /** The info of the latest reset or step. */
  info: GymInfo;
}

export interface Advance<State> {
  episode: Episode<State>;
  /** Items the loop appends after the model's turn: tool outputs from `info.tool_outputs`, then the observation. */
  append: ConversationItem[];
  done: boolean;
}

/**
 * The rng an episode is reset with. It depends only on the rollout's identity, so a retried activity and a
 * later re-verification deal the same episode.
 */
export function episodeRng(envName: string, task: TaskRow): Rng {
  return seededRng(`${envName}:${task._ng_rollout_id ?? task._ng_task_index ?? ''}`);
}

export function observationMessage(text: string): MessageItem {
  return { type: 'message', role: 'user', content: text };
}

/** Resets the environment; `input` is what the loop appends to the task's input (the first observation). */
export function startEpisode<Task extends TaskRow, State>(
  gym: GymnasiumEnvironment<Task, State>,
  task: Task,
  rng: Rng = episodeRng(gym.name, task),
): { episode: Episode<State>; input: ConversationItem[] } {
  const { observation, info, state } = gym.reset(task, rng);
  return {
    episode: { state, steps: 0, reward: 0, terminated: false, truncated: false, info },
    // gymnasium_agent skips an empty observation (Python truthiness).
    input: observation ? [observationMessage(observation)] : [],
  };
}

export function advance<Task extends TaskRow, State>(gym: GymnasiumEnvironment<Task, State>, task: Task, episode: Episode<State>, turn: readonly ConversationItem[]): Advance<State> {
  const step = gym.step(task, episode.state, turn);
  const steps = episode.steps + 1;
  const next: Episode<State> = {
    state: step.state,
    steps,
    reward: episode.reward + step.reward,
    terminated: step.terminated,
    truncated: step.truncated,
    info: step.info,
  };
  if (step.terminated || step.truncated) return { episode: next, append: [], done: true };
  const append: ConversationItem[] = toolOutputs(step.info);
  if (step.observation) append.push(observationMessage(step.observation));
  // Out of steps: the agent still appended this step's observation before giving up.
  if (steps >= gym.maxSteps) return { episode: { ...next, truncated: true }, append, done: true };
  return { episode: next, append, done: false };
}

function toolOutputs(info: GymInfo): FunctionCallOutputItem[] {
  const outputs = Array.isArray(info.tool_outputs) ? (info.tool_outputs as { call_id: string; output: string }[]) : [];
  return outputs.map((o) => ({ type: 'function_call_output', call_id: o.call_id, output: o.output }));
}

/** Items the loop appended on the environment's behalf; everything else in a response came from the model. */
function isEnvironmentItem(item: ConversationItem): boolean {
  return item.type === 'function_call_output' || (item as MessageItem).role === 'user';
}

function sameEnvironmentItems(a: readonly ConversationItem[], b: readonly ConversationItem[]): boolean {
  const key = (i: ConversationItem) => (i.type === 'function_call_output' ? ['out', i.call_id, i.output] : ['msg', (i as MessageItem).content]);
  return a.length === b.length && a.every((item, n) => JSON.stringify(key(item)) === JSON.stringify(key(b[n]!)));
}

export interface Replay<State> {
  episode: Episode<State>;
  done: boolean;
  /** The response's environment items differ from what this replay produced (another deal, another env). */
  diverged: boolean;
}

/** Plays a finished rollout's `response.output` again: model turns are the runs between environment items. */
export function replayEpisode<Task extends TaskRow, State>(gym: GymnasiumEnvironment<Task, State>, task: Task, output: readonly ConversationItem[]): Replay<State> {
  const start = startEpisode(gym, task);
  let episode = start.episode;
  let done = false;
  let diverged = false;
  // Gymflow's loop keeps the opening observation in the output; NeMo Gym's recordings start with the model.
  let i = sameEnvironmentItems(output.slice(0, start.input.length), start.input) ? start.input.length : 0;
  while (i < output.length && !done) {
    const turn: ConversationItem[] = [];
    while (i < output.length && !isEnvironmentItem(output[i]!)) turn.push(output[i++]!);
    const envItems: ConversationItem[] = [];
    while (i < output.length && isEnvironmentItem(output[i]!)) envItems.push(output[i++]!);
    if (turn.length === 0) {
      diverged = true;
      break;
    }
    const step = advance(gym, task, episode, turn);
    episode = step.episode;
    done = step.done;
    // A response that simply stops after a model turn is unfinished rather than different.
    const cutShort = i === output.length && envItems.length === 0 && !done;
    if (!cutShort && !sameEnvironmentItems(step.append, envItems)) diverged = true;
  }
  if (done && i < output.length) diverged = true;
  return { episode, done, diverged };
}

/** NeMo Gym's extract_text: every message's string content and output_text parts, joined with "". */
export function turnText(turn: readonly ConversationItem[]): string {
  let text = '';
  for (const item of turn) {
    if (item.type !== 'message' && item.type !== undefined) continue;
    const content = (item as MessageItem).content;
    if (typeof content === 'string') text += content;
    else for (const part of content) if (part.type === 'output_text') text += String((part as { text?: unknown }).text ?? '');
  }
  return text;
}

/** An ordinary environment that also carries the gymnasium one it serves, for the loop that plays it. */
export type GymnasiumBacked<Task extends TaskRow, State> = Environment<Task, Episode<State>> & {
  gymnasium: GymnasiumEnvironment<Task, State>;
};

export function isGymnasiumBacked(env: object): env is GymnasiumBacked<TaskRow, unknown> {
  return 'gymnasium' in env && typeof (env as { gymnasium?: unknown }).gymnasium === 'object';
}

/**
 * Serves a gymnasium environment as an ordinary one: the session is the episode (reset with `episodeRng`),
 * there are no tools, and verify replays the response's model turns through reset/step, so it needs only
 * the task and the response.
 */
export function asEnvironment<Task extends TaskRow, State>(gym: GymnasiumEnvironment<Task, State>): GymnasiumBacked<Task, State> {
  const env = defineEnvironment<Task, Episode<State>>({
    agent: 'gymnasium_agent',
    reset(task) {
      const { episode, input } = startEpisode(gym, task);
      return { state: episode, items: input };
    },
    step(task, episode, turn) {
      const { episode: next, append, done } = advance(gym, task, episode, turn);
      return { state: next, items: append, done };
    },
    name: gym.name,
    description: gym.description,
    taskSchema: gym.taskSchema,
    // Verify replays the response through reset/step: the stored rollout is enough.
    reverifyMode: 'stateless',
    seedSession: (task) => startEpisode(gym, task).episode,
    verify(task, response, { state }): VerifyResult {
      const { episode, done, diverged: replayDiffers } = replayEpisode(gym, task, response.output);
      // When the loop hands over the episode it played, the replay must agree with it (same deal, same steps).
      const played = state && (state.terminated || state.truncated) ? state : undefined;
      const diverged = replayDiffers || (played !== undefined && !sameOutcome(played, episode));
      const failure = diverged ? 'replay_diverged' : !done ? 'episode_unfinished' : episode.truncated ? 'truncated' : gym.failureReason(episode);
      return {
        reward: episode.reward,
        terminated: episode.terminated,
        truncated: episode.truncated,
        info: episode.info,
        ...(failure ? { failure_reason: failure } : {}),
      };
    },
  });
  return { ...env, gymnasium: gym };
}

function sameOutcome<State>(a: Episode<State>, b: Episode<State>): boolean {
  const outcome = (e: Episode<State>) => JSON.stringify([e.reward, e.terminated, e.truncated, e.steps, e.info]);
  return outcome(a) === outcome(b);
}

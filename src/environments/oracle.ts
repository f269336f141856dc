// The shape of an oracle: how the mock policy plays an environment. Oracles live beside their
// environment (<name>/oracle.ts) but only the mock backend's registry (gateway/backends/mock/oracles.ts) uses them.
import type { ConversationItem } from '../schemas/responses';
import type { TaskRow } from '../schemas/task';
import type { Rng } from '../util/rng';

export interface OracleOptions {
  /** Whether this rollout should be answered correctly (drawn by the mock with its accuracy). */
  correct: boolean;
  rng: Rng;
  /** The run's settings for the environment (from `name?key=value`); absent means its defaults. */
  settings?: Record<string, unknown>;
  /** The tools the request offers (Responses shape): what a harness-driving oracle calls. */
  tools?: readonly unknown[];
  /**
   * The text of the message the task was found in (for a harness, its own prompt wrapping the task's): how
   * an oracle tells the answer format of a harness without tools (Terminus-2's JSON keystroke batches).
   */
  prompt?: string;
}

/**
 * The next items a policy would emit, given what it has emitted so far (`history` holds only the
 * items after the task's input).
 */
export type Oracle<Task extends TaskRow = TaskRow> = (task: Task, history: readonly ConversationItem[], options: OracleOptions) => ConversationItem[];

// What an agent does after each model turn: NeMo Gym's simple agent runs the tools the model asked
// for and loops until the model answers without one; the non-executing agent stops after one turn (its
// tool calls are graded, not run); the gymnasium agent hands every turn to the environment. Pure.
import type { AgentKind } from '../environments/types';

/** Model turns allowed when a run sets no max_steps (NeMo Gym's "unlimited"), so a looping policy ends. */
export const STEP_CAP = 100;

export interface ModelTurnShape {
  functionCalls: number;
  hasAssistantMessage: boolean;
  /** The model stopped early (length, content filter): the episode ends here. */
  incomplete: boolean;
}

export type NextMove =
  /** Run this turn's tool calls, then stop (`last`) or take another model turn. */
  | { kind: 'tools'; last: boolean }
  /** Ask the environment for its reply to the turn; the episode ends when it says so or at the cap. */
  | { kind: 'environment'; last: boolean }
  | { kind: 'stop' }
  | { kind: 'continue' };

export function stepCap(maxSteps: number | undefined): number {
  return maxSteps && maxSteps > 0 ? maxSteps : STEP_CAP;
}

export function nextMove(agent: AgentKind, turn: ModelTurnShape, step: number, maxSteps: number | undefined): NextMove {
  const last = step >= stepCap(maxSteps);
  if (turn.incomplete) return { kind: 'stop' };
  if (agent === 'gymnasium_agent') return { kind: 'environment', last };
  if (turn.functionCalls === 0 && turn.hasAssistantMessage) return { kind: 'stop' };
  if (agent === 'non_executing_agent') return { kind: 'stop' };
  if (turn.functionCalls > 0) return { kind: 'tools', last };
  // Neither a tool call nor a message (e.g. reasoning only): the simple agent asks again.
  return last ? { kind: 'stop' } : { kind: 'continue' };
}

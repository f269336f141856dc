// Re-verifies one recorded episode: rebuild the session state the environment's verify reads, then
// grade. A judge that gives no verdict is a judge failure, not a reward.
import { runTool } from '../environments/tools';
import { JudgeError, type AnyEnvironment, type JudgeCall } from '../environments/types';
import { functionCalls, type ResponseObject } from '../schemas/responses';
import type { VerifyResult } from '../schemas/verify';

export type Outcome = { status: 'verified'; result: VerifyResult } | { status: 'judge_failed' | 'verify_error'; message: string };

/** Whether verify reads state that only the episode's tool calls produce. */
export function needsToolReplay(env: AnyEnvironment): boolean {
  return env.reverifyMode === 'stateful' && env.agent !== 'non_executing_agent';
}

/**
 * The session state at the end of the episode: seeded from the task, then every recorded tool call
 * run again in order through the same path a live rollout takes (bad arguments answered, not thrown).
 */
export async function rebuildState(env: AnyEnvironment, task: unknown, response: ResponseObject): Promise<unknown> {
  let state = await env.seedSession(task);
  if (!needsToolReplay(env)) return state;
  for (const call of functionCalls(response.output)) {
    state = (await runTool(env, task, state, call.name, call.arguments)).state;
  }
  return state;
}

export async function reverifyEpisode(env: AnyEnvironment, task: unknown, response: ResponseObject, judge?: JudgeCall): Promise<Outcome> {
  try {
    const state = await rebuildState(env, task, response);
    return { status: 'verified', result: await env.verify(task, response, { state, judge }) };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return { status: e instanceof JudgeError ? 'judge_failed' : 'verify_error', message };
  }
}

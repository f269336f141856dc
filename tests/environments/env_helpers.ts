// Test helpers for environments: replaying a recorded episode's tool calls, and unwrapping results of
// the synchronous environments the interface allows to be async.
import type { ConversationItem, FunctionCallItem, FunctionCallOutputItem } from '../../src/schemas/responses';
import type { AnyEnvironment } from '../../src/environments/types';

/** The value of a `T | Promise<T>` that must be synchronous for this environment. */
export function settled<T>(value: T | Promise<T>): T {
  if (value instanceof Promise) throw new Error('expected a synchronous result');
  return value;
}

export interface ReplayedCall {
  name: string;
  ours: unknown;
  recorded: unknown;
}

/** Runs each recorded call through the tools in order, pairing our reply with NeMo Gym's recorded output (both as JSON). */
export async function replayToolCalls<State>(
  env: AnyEnvironment,
  task: unknown,
  state: State,
  output: readonly ConversationItem[],
): Promise<{ state: State; calls: ReplayedCall[] }> {
  const recorded = new Map(
    output.filter((i): i is FunctionCallOutputItem => i.type === 'function_call_output').map((i) => [i.call_id, i.output]),
  );
  const calls: ReplayedCall[] = [];
  for (const call of output.filter((i): i is FunctionCallItem => i.type === 'function_call')) {
    const tool = env.tools[call.name];
    if (!tool) throw new Error(`${env.name} has no tool ${call.name}`);
    const result = await tool.run(tool.args.parse(JSON.parse(call.arguments)), { task, state });
    state = result.state as State;
    const text = recorded.get(call.call_id);
    calls.push({ name: call.name, ours: result.body, recorded: typeof text === 'string' ? JSON.parse(text) : text });
  }
  return { state, calls };
}

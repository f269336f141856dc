// Running one tool call against an environment, the way NeMo Gym's agent and FastAPI do. Shared by
// the rollout activities, the environment server and reverify, so a tool answers the same everywhere.
import type { AnyEnvironment } from './types';

/**
 * Runs a tool the way NeMo Gym's agent and FastAPI do: arguments that are not JSON become an error
 * message for the model; arguments that fail the tool's schema get a 422-style body; an unknown tool
 * gets a 404 body. All of these go back to the model, they do not fail the rollout.
 */
export async function runTool(env: AnyEnvironment, task: unknown, state: unknown, name: string, rawArgs: string) {
  let args: unknown;
  try {
    args = JSON.parse(rawArgs);
  } catch (e) {
    return { status: 400, output: JSON.stringify({ error: `Invalid tool call arguments: ${(e as Error).message}` }), state };
  }
  const tool = Object.hasOwn(env.tools, name) ? env.tools[name] : undefined;
  if (!tool) return { status: 404, output: JSON.stringify({ detail: 'Not Found' }), state };
  const parsed = tool.args.safeParse(args);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => ({ type: i.code, loc: ['body', ...i.path.map(String)], msg: i.message }));
    return { status: 422, output: JSON.stringify({ detail }), state };
  }
  const reply = await tool.run(parsed.data, { task, state });
  return { status: reply.status, output: JSON.stringify(reply.body), state: reply.state };
}

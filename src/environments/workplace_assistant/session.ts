// A session's workplace: the 27 tools, the catch-all route that calls them, and the session state,
// which is only the list of calls that changed the tables (replaying it on the pristine tables
// rebuilds the workspace, so the persisted state stays small).
import { PyError } from '../../python/errors';
import { freshWorkspace, type Workspace } from './tables';
import { callTool, type Args, type WorkplaceTool } from './toolbox';
import { analyticsTools } from './tools/analytics';
import { calendarTools } from './tools/calendar';
import { crmTools } from './tools/crm';
import { directoryTools } from './tools/directory';
import { emailTools } from './tools/email';
import { projectTools } from './tools/projects';

export const WORKPLACE_TOOLS: Readonly<Record<string, WorkplaceTool>> = {
  ...directoryTools,
  ...emailTools,
  ...calendarTools,
  ...analyticsTools,
  ...projectTools,
  ...crmTools,
};

export interface AppliedCall {
  name: string;
  args: Args;
}

export interface WorkplaceState {
  /** The calls that changed the tables, in order, with the arguments the tool received. */
  applied: AppliedCall[];
}

export function workspaceOf(state: WorkplaceState): Workspace {
  let ws = freshWorkspace();
  for (const { name, args } of state.applied) ws = callTool(WORKPLACE_TOOLS[name]!, ws, args).workspace ?? ws;
  return ws;
}

/**
 * NeMo Gym's catch-all `POST /{tool}`: null arguments are dropped, the result is returned as
 * `{"output": …}`, and any exception becomes the output text "Error executing tool '<tool>': <message>".
 */
export function callRoute(name: string, args: Args, state: WorkplaceState): { body: { output: unknown }; state: WorkplaceState } {
  const given = Object.fromEntries(Object.entries(args).filter(([, value]) => value !== null));
  try {
    const outcome = callTool(WORKPLACE_TOOLS[name]!, workspaceOf(state), given);
    const next = outcome.workspace ? { applied: [...state.applied, { name, args: given }] } : state;
    return { body: { output: outcome.output }, state: next };
  } catch (error) {
    if (error instanceof PyError) return { body: { output: `Error executing tool '${name}': ${error.message}` }, state };
    throw error;
  }
}

export interface RecordedCall {
  name?: unknown;
  arguments?: unknown;
}

/**
 * Verify's replay of calls on pristine tables: arguments are parsed as JSON and passed as they are
 * (nulls included), and a call that fails in any way is skipped, as NeMo Gym does.
 */
export function replayCalls(calls: readonly RecordedCall[]): Workspace {
  let ws = freshWorkspace();
  for (const call of calls) {
    const tool = typeof call.name === 'string' && Object.hasOwn(WORKPLACE_TOOLS, call.name) ? WORKPLACE_TOOLS[call.name]! : undefined;
    if (!tool || typeof call.arguments !== 'string') continue;
    let args: unknown;
    try {
      args = JSON.parse(call.arguments);
    } catch {
      continue;
    }
    if (args === null || typeof args !== 'object' || Array.isArray(args)) continue;
    try {
      ws = callTool(tool, ws, args as Args).workspace ?? ws;
    } catch (error) {
      if (!(error instanceof PyError)) throw error;
    }
  }
  return ws;
}

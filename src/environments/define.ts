// defineEnvironment: an environment file states only what is its own (task schema, tools, verify,
// settings); this fills the defaults and refuses a malformed definition when the module loads.
import { GymError } from '../errors';
import type { TaskRow } from '../schemas/task';
import { toolNameProblem } from './server/protocol';
import type { Environment } from './types';

/** What an environment must say; everything optional has the default written beside it. */
export type EnvironmentSpec<Task extends TaskRow, State> = Pick<Environment<Task, State>, 'name' | 'description' | 'taskSchema' | 'verify'> &
  Partial<
    Pick<
      Environment<Task, State>,
      'agent' | 'requiresJudge' | 'needsDownload' | 'needsJail' | 'needsDesktop' | 'evaluationOnly' | 'configurable' | 'reset' | 'step' | 'reverifyMode' | 'sandboxed' | 'workspaceFiles'
    >
  > & {
    /** Default: no tools. */
    tools?: Environment<Task, State>['tools'];
    /** Default: no session state (null). */
    seedSession?: Environment<Task, State>['seedSession'];
  };

/**
 * The resolved environment, with defaults: agent `simple_agent` (`gymnasium_agent` when it has
 * reset/step), no tools, a null session, no judge, and reverify mode `stateful` when it keeps session
 * state (verify may read it) or `stateless` when it has none. An environment whose verify needs
 * nothing but the task and the response says `reverifyMode: 'stateless'` even with state.
 */
export function defineEnvironment<Task extends TaskRow, State = null>(spec: EnvironmentSpec<Task, State>): Environment<Task, State> {
  const agent = spec.agent ?? (spec.reset || spec.step ? 'gymnasium_agent' : 'simple_agent');
  const env: Environment<Task, State> = {
    ...spec,
    agent,
    requiresJudge: spec.requiresJudge ?? false,
    tools: spec.tools ?? {},
    seedSession: spec.seedSession ?? (() => null as State),
    reverifyMode: spec.reverifyMode ?? (spec.seedSession ? 'stateful' : 'stateless'),
  };
  const problems = definitionProblems(env, spec);
  if (problems.length) throw new GymError('BAD_INPUT', `environment "${spec.name}" is defined wrongly: ${problems.join('; ')}`);
  return env;
}

function definitionProblems<Task extends TaskRow, State>(env: Environment<Task, State>, spec: EnvironmentSpec<Task, State>): string[] {
  const problems: string[] = [];
  if (!/^\S+$/.test(env.name)) problems.push('name must be non-empty, without spaces');
  if (!env.description.trim()) problems.push('description is empty');
  if (typeof env.taskSchema?.safeParse !== 'function') problems.push('taskSchema is not a zod schema');
  if (typeof env.verify !== 'function') problems.push('verify is not a function');
  for (const [name, tool] of Object.entries(env.tools)) {
    const problem = toolNameProblem(name);
    if (problem) problems.push(`tool ${problem}`);
    if (typeof tool?.args?.safeParse !== 'function' || typeof tool.run !== 'function') problems.push(`tool "${name}" needs a zod \`args\` schema and a \`run\` function`);
  }
  const turnBased = env.agent === 'gymnasium_agent';
  if (turnBased && (!env.reset || !env.step)) problems.push('a gymnasium_agent environment needs both reset and step');
  if (!turnBased && (env.reset || env.step)) problems.push(`reset/step are only played by the gymnasium_agent, not ${env.agent}`);
  // The non-executing agent never runs a tool, and the gymnasium agent answers turns with step().
  if (env.agent !== 'simple_agent' && Object.keys(env.tools).length > 0) problems.push(`tools are never run by the ${env.agent}`);
  if (env.reverifyMode === 'stateful' && !spec.seedSession) problems.push('reverifyMode "stateful" without a seedSession: there is no state to rebuild');
  if (env.configurable && (typeof env.configurable.schema?.safeParse !== 'function' || typeof env.configurable.create !== 'function')) {
    problems.push('configurable needs a zod object `schema` and a `create` function');
  }
  return problems;
}

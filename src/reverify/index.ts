// Recomputes the rewards of recorded rollouts without calling the policy: join each rollout to its
// task, check every row before grading any, then verify the recorded episodes again, each with the
// environment its row was played against (a routed run stamps it on every row) or the one given.
import type { EnvRef } from '../environments/ref';
import { resolveEnvironment } from '../environments/registry';
import { GymError } from '../errors';
import type { AnyEnvironment, JudgeCall } from '../environments/types';
import { ROW_ENVIRONMENT, rowEnvRef } from '../routing/row';
import { ResponseObject } from '../schemas/responses';
import { joinRollouts, type JoinedBy, type NumberedRow, type Row, type UnjoinedRollout } from './join';
import { badInput } from './read';
import { reverifyEpisode, type Outcome } from './verify';

export { inputKey, joinRollouts, type NumberedRow, type Row } from './join';
export { readRows } from './read';

export interface ReverifyOptions {
  /** The environment of rows that do not name their own (`_gf_environment`); without it every row must. */
  env?: AnyEnvironment;
  /** The environment of a row's stamped reference (default: the reference resolved as it is). */
  stamped?: (ref: EnvRef) => AnyEnvironment;
  rollouts: readonly NumberedRow[];
  /** The task rows the rollouts were played from; without them a rollout must be its own task. */
  tasks?: readonly NumberedRow[];
  /** Re-verify a stateful environment by replaying the recorded tool calls into a fresh session. */
  force?: boolean;
  /** Report rollouts without a task instead of refusing the whole file. */
  skipUnjoined?: boolean;
  judge?: JudgeCall;
  concurrency?: number;
}

export interface CheckedRollout {
  line: number;
  taskIndex: number | null;
  /** The environment that graded it. */
  env: string;
  rollout: Row;
  /** The reward in the file, when the row has one. */
  recorded: number | null;
  outcome: Outcome;
}

export interface ReverifyReport {
  /** The environments that graded the rows, in order of first use. */
  envs: string[];
  total: number;
  checked: CheckedRollout[];
  unjoined: UnjoinedRollout[];
  joinedBy: Record<JoinedBy, number>;
}

interface Prepared {
  line: number;
  taskIndex: number | null;
  env: AnyEnvironment;
  rollout: Row;
  task: unknown;
  response: ResponseObject;
}

/**
 * The recorded response as verify reads it. Verify never reads `usage`, so a usage in another API's shape
 * (Chat Completions' prompt_tokens, as NeMo Gym's ruler2 rollouts record it) is dropped, not refused.
 */
function recordedResponse(response: unknown) {
  const parsed = ResponseObject.safeParse(response);
  if (parsed.success || !parsed.error.issues.every((i) => i.path[0] === 'usage')) return parsed;
  const { usage: _usage, ...rest } = response as Record<string, unknown>;
  return ResponseObject.safeParse(rest);
}

function prepare(joined: readonly (ReturnType<typeof joinRollouts>['joined'][number] & { env: AnyEnvironment })[]): Prepared[] {
  const problems: string[] = [];
  const prepared: Prepared[] = [];
  for (const { line, rollout, task, taskIndex, env } of joined) {
    const parsedTask = env.taskSchema.safeParse(task);
    const response = recordedResponse(rollout.response);
    const where = taskIndex === null ? 'the row' : `task ${taskIndex}`;
    if (!parsedTask.success) {
      const issue = parsedTask.error.issues[0]!;
      problems.push(`line ${line}: ${where} does not fit environment ${env.name}: ${issue.path.join('.') || '(row)'}: ${issue.message}`);
    }
    if (!response.success) {
      const issue = response.error.issues[0]!;
      problems.push(`line ${line}: response${issue.path.length ? `.${issue.path.join('.')}` : ''}: ${issue.message}`);
    }
    if (parsedTask.success && response.success) prepared.push({ line, taskIndex, env, rollout, task: parsedTask.data, response: response.data });
  }
  if (problems.length) throw badInput(`${problems.length} rollout(s) cannot be re-verified`, problems);
  return prepared;
}

/**
 * Which environment grades a row: the one it was played against when it names it (its task's stamp, else
 * its own), else the one given; a stamp that is not an environment reference is the row's problem.
 */
function environmentPicker(opts: ReverifyOptions): (rows: readonly Row[]) => AnyEnvironment | string {
  const cache = new Map<string, AnyEnvironment>();
  const stamped = opts.stamped ?? resolveEnvironment;
  return (rows) => {
    const row = rows.find((r) => r[ROW_ENVIRONMENT] !== undefined);
    if (!row) return opts.env ?? `it names no environment (${ROW_ENVIRONMENT}) and none was given (--env)`;
    const key = JSON.stringify(row[ROW_ENVIRONMENT]);
    let env = cache.get(key);
    if (!env) {
      try {
        env = stamped(rowEnvRef(row)!);
      } catch (e) {
        return (e as Error).message;
      }
      cache.set(key, env);
    }
    return env;
  };
}

async function mapPool<T, R>(items: readonly T[], concurrency: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
  return results;
}

export async function reverifyRollouts(opts: ReverifyOptions): Promise<ReverifyReport> {
  if (opts.env) refuseUngradable([opts.env], opts);
  const pick = environmentPicker(opts);
  // A row with no environment to grade it is taken as its own task here, and refused for that below.
  const { joined, unjoined } = joinRollouts(opts.rollouts, opts.tasks, (row) => {
    const env = pick([row]);
    return typeof env === 'string' || env.taskSchema.safeParse(row).success;
  });
  const placed: ((typeof joined)[number] & { env: AnyEnvironment })[] = [];
  for (const j of joined) {
    const env = pick([j.task, j.rollout]);
    if (typeof env === 'string') unjoined.push({ line: j.line, reason: env });
    else placed.push({ ...j, env });
  }
  unjoined.sort((a, b) => a.line - b.line);
  if (unjoined.length && !opts.skipUnjoined) {
    throw badInput(
      `${unjoined.length} of ${opts.rollouts.length} rollout(s) cannot be joined to a task (pass --skip-unjoined to re-verify the rest)`,
      unjoined.map((u) => `line ${u.line}: ${u.reason}`),
    );
  }
  const envs = [...new Map(placed.map((p) => [p.env.name, p.env])).values()];
  refuseUngradable(envs, opts);
  const joinedBy: Record<JoinedBy, number> = { index: 0, input: 0, self: 0 };
  for (const j of placed) joinedBy[j.by]++;
  const prepared = prepare(placed);
  const checked = await mapPool(prepared, opts.concurrency ?? 8, async (p): Promise<CheckedRollout> => ({
    line: p.line,
    taskIndex: p.taskIndex,
    env: p.env.name,
    rollout: p.rollout,
    recorded: typeof p.rollout.reward === 'number' ? p.rollout.reward : null,
    outcome: await reverifyEpisode(p.env, p.task, p.response, opts.judge),
  }));
  return { envs: envs.map((e) => e.name), total: opts.rollouts.length, checked, unjoined, joinedBy };
}

/** What no row of these environments can be graded without: --force for a stateful one, a judge for a judged one. */
function refuseUngradable(envs: readonly AnyEnvironment[], opts: ReverifyOptions): void {
  const stateful = envs.find((e) => e.reverifyMode === 'stateful');
  if (stateful && !opts.force) {
    throw new GymError(
      'BAD_FLAG',
      `environment "${stateful.name}" is stateful: its verify reads the session state the rollout's tool calls built. ` +
        'Pass --force to rebuild that state by seeding a fresh session and replaying the recorded tool calls (tools that depend on time or randomness may not replay the same)',
    );
  }
  const judged = envs.find((e) => e.requiresJudge);
  if (judged && !opts.judge) throw new GymError('BAD_FLAG', `environment "${judged.name}" grades with an LLM judge: pass --judge-model (mock or openai)`);
}

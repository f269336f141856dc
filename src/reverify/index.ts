// Recomputes the rewards of recorded rollouts without calling the policy: join each rollout to its
// task, check every row before grading any, then verify the recorded episodes again.
import { GymError } from '../errors';
import type { AnyEnvironment, JudgeCall } from '../environments/types';
import { ResponseObject } from '../schemas/responses';
import { joinRollouts, type JoinedBy, type NumberedRow, type Row, type UnjoinedRollout } from './join';
import { badInput } from './read';
import { reverifyEpisode, type Outcome } from './verify';

export { inputKey, joinRollouts, type NumberedRow, type Row } from './join';
export { readRows } from './read';

export interface ReverifyOptions {
  env: AnyEnvironment;
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
  rollout: Row;
  /** The reward in the file, when the row has one. */
  recorded: number | null;
  outcome: Outcome;
}

export interface ReverifyReport {
  env: string;
  total: number;
  checked: CheckedRollout[];
  unjoined: UnjoinedRollout[];
  joinedBy: Record<JoinedBy, number>;
}

interface Prepared {
  line: number;
  taskIndex: number | null;
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

function prepare(env: AnyEnvironment, joined: ReturnType<typeof joinRollouts>['joined']): Prepared[] {
  const problems: string[] = [];
  const prepared: Prepared[] = [];
  for (const { line, rollout, task, taskIndex } of joined) {
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
    if (parsedTask.success && response.success) prepared.push({ line, taskIndex, rollout, task: parsedTask.data, response: response.data });
  }
  if (problems.length) throw badInput(`${problems.length} rollout(s) cannot be re-verified`, problems);
  return prepared;
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
  const { env } = opts;
  if (env.reverifyMode === 'stateful' && !opts.force) {
    throw new GymError(
      'BAD_FLAG',
      `environment "${env.name}" is stateful: its verify reads the session state the rollout's tool calls built. ` +
        'Pass --force to rebuild that state by seeding a fresh session and replaying the recorded tool calls (tools that depend on time or randomness may not replay the same)',
    );
  }
  const { joined, unjoined } = joinRollouts(opts.rollouts, opts.tasks, (row) => env.taskSchema.safeParse(row).success);
  if (unjoined.length && !opts.skipUnjoined) {
    throw badInput(
      `${unjoined.length} of ${opts.rollouts.length} rollout(s) cannot be joined to a task (pass --skip-unjoined to re-verify the rest)`,
      unjoined.map((u) => `line ${u.line}: ${u.reason}`),
    );
  }
  const joinedBy: Record<JoinedBy, number> = { index: 0, input: 0, self: 0 };
  for (const j of joined) joinedBy[j.by]++;
  const prepared = prepare(env, joined);
  const checked = await mapPool(prepared, opts.concurrency ?? 8, async (p): Promise<CheckedRollout> => ({
    line: p.line,
    taskIndex: p.taskIndex,
    rollout: p.rollout,
    recorded: typeof p.rollout.reward === 'number' ? p.rollout.reward : null,
    outcome: await reverifyEpisode(env, p.task, p.response, opts.judge),
  }));
  return { env: env.name, total: opts.rollouts.length, checked, unjoined, joinedBy };
}

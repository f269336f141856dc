// Joins recorded rollouts to the task rows they were played from. NeMo Gym's verify response drops
// task fields it does not declare (unit tests, expected calls…), so a rollout alone rarely carries
// everything verify needs; its task is found by `_ng_task_index` or by an identical input.
import { canonicalJson } from '../gateway/canonical';

export type Row = Record<string, unknown>;

/** A JSONL row with its 1-based line number, so every message can point at the line to fix. */
export interface NumberedRow {
  line: number;
  row: Row;
}

export type JoinedBy = 'index' | 'input' | 'self';

export interface JoinedRollout {
  line: number;
  rollout: Row;
  task: Row;
  /** Position of the task in the tasks file, or the rollout's own `_ng_task_index` when it is its own task. */
  taskIndex: number | null;
  by: JoinedBy;
}

export interface UnjoinedRollout {
  line: number;
  reason: string;
}

export interface JoinResult {
  joined: JoinedRollout[];
  unjoined: UnjoinedRollout[];
}

function isRecord(value: unknown): value is Row {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function itemKey(item: unknown): unknown {
  if (!isRecord(item)) return item;
  // Recorded rows add `type: "message"`, ids and statuses to messages; only who said what identifies a task.
  if ('role' in item) return [item.role, JSON.parse(canonicalJson(item.content ?? null))];
  const { id: _id, status: _status, ...rest } = item;
  return JSON.parse(canonicalJson(rest));
}

/**
 * The identity of a conversation's start: a bare string is one user message (as NeMo Gym reads it);
 * messages compare by role and content, other items by their fields without ids; nulls are ignored.
 * Undefined when the row has no usable input.
 */
export function inputKey(row: Row): string | undefined {
  const params = row.responses_create_params;
  const input = isRecord(params) ? params.input : undefined;
  if (typeof input === 'string') return JSON.stringify([itemKey({ role: 'user', content: input })]);
  if (!Array.isArray(input)) return undefined;
  return JSON.stringify(input.map(itemKey));
}

function recordedTaskIndex(row: Row): number | undefined {
  const index = row._ng_task_index;
  return typeof index === 'number' && Number.isInteger(index) && index >= 0 ? index : undefined;
}

class TaskIndex {
  private readonly byInput = new Map<string, number[]>();

  constructor(readonly tasks: readonly NumberedRow[]) {
    tasks.forEach((task, i) => {
      const key = inputKey(task.row);
      if (key === undefined) return;
      const list = this.byInput.get(key);
      if (list) list.push(i);
      else this.byInput.set(key, [i]);
    });
  }

  /** The task with this input, or why there is none (several different tasks share it). */
  byKey(key: string): number | string | undefined {
    const found = this.byInput.get(key);
    if (!found) return undefined;
    const distinct = new Set(found.map((i) => canonicalJson(this.tasks[i]!.row)));
    if (distinct.size > 1) {
      return `its input matches ${found.length} different tasks (lines ${found.map((i) => this.tasks[i]!.line).join(', ')}); give each rollout its _ng_task_index`;
    }
    return found[0];
  }
}

function joinOne(rollout: NumberedRow, index: TaskIndex): JoinedRollout | UnjoinedRollout {
  const { line, row } = rollout;
  const key = inputKey(row);
  if (key === undefined) return { line, reason: 'it has no responses_create_params.input' };
  const joined = (i: number, by: JoinedBy): JoinedRollout => ({ line, rollout: row, task: index.tasks[i]!.row, taskIndex: i, by });

  const recorded = recordedTaskIndex(row);
  let indexProblem = '';
  if (recorded !== undefined) {
    const task = index.tasks[recorded];
    // The index is trusted only when the task it names starts the same conversation: a rollout file
    // paired with the wrong tasks file must not be graded against someone else's answer key.
    if (task && inputKey(task.row) === key) return joined(recorded, 'index');
    indexProblem = task
      ? `its _ng_task_index ${recorded} names the task on line ${task.line}, whose input differs`
      : `its _ng_task_index ${recorded} is past the last task (${index.tasks.length} rows)`;
  }
  const found = index.byKey(key);
  if (typeof found === 'number') return joined(found, 'input');
  const inputProblem = typeof found === 'string' ? found : 'no task has the same input';
  return { line, reason: indexProblem ? `${indexProblem}, and ${inputProblem}` : inputProblem };
}

/** A rollout as its own task: the row without what verify added to it. */
function withoutVerifyFields(row: Row): Row {
  const { response: _response, reward: _reward, reward_components: _components, failure_reason: _reason, ...task } = row;
  return task;
}

/**
 * Joins each rollout to a task of `tasks` (by `_ng_task_index` when that task has the same input,
 * else by identical input). Without a tasks file a rollout can only be its own task, which `isTask`
 * decides (the environment's task schema).
 */
export function joinRollouts(rollouts: readonly NumberedRow[], tasks: readonly NumberedRow[] | undefined, isTask: (row: Row) => boolean): JoinResult {
  const result: JoinResult = { joined: [], unjoined: [] };
  const index = tasks ? new TaskIndex(tasks) : undefined;
  for (const rollout of rollouts) {
    if (index) {
      const outcome = joinOne(rollout, index);
      if ('reason' in outcome) result.unjoined.push(outcome);
      else result.joined.push(outcome);
      continue;
    }
    const task = withoutVerifyFields(rollout.row);
    if (isTask(task)) result.joined.push({ line: rollout.line, rollout: rollout.row, task, taskIndex: recordedTaskIndex(rollout.row) ?? null, by: 'self' });
    else result.unjoined.push({ line: rollout.line, reason: 'it does not carry every task field itself and no tasks file was given (--tasks)' });
  }
  return result;
}

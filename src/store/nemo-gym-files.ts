// The files NeMo Gym 0.7.0's rollout collection writes beside rollouts.jsonl, derived from a finished run's
// folder (`--output-format nemo-gym`): materialized inputs, aggregate metrics and the failures sidecar.
import { createReadStream, createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { once } from 'node:events';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { AgentAggregate } from '../metrics/nemo-gym-aggregate';
import type { FailureClass, FailureRecord } from '../schemas/records';
import { rethrowDiskFull } from './disk-full';
import { writeFileAtomic } from './jsonl';

/** NeMo Gym's names for a rollouts file `rollouts.jsonl` (its path_utils): `<stem>_<what>`. */
export const NEMO_GYM_FILES = {
  materializedInputs: 'rollouts_materialized_inputs.jsonl',
  aggregateMetrics: 'rollouts_aggregate_metrics.json',
  failures: 'rollouts_failures.jsonl',
} as const;

export const OUTPUT_FORMATS = ['gymflow', 'nemo-gym'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

type Row = Record<string, unknown>;

/**
 * A Gymflow failure class in NeMo Gym's terms: the sidecar class its resume and `count_failure_classes_as_zero`
 * read (`agent_run_error` for a rollout that ran and broke), and the shared `failure_kind` vocabulary.
 */
const NEMO_GYM_FAILURE: Record<FailureClass, { cls: string; kind: string }> = {
  model_error: { cls: 'agent_run_error', kind: 'agent_request_failed' },
  tool_error: { cls: 'agent_run_error', kind: 'agent_run_error' },
  verify_error: { cls: 'agent_run_error', kind: 'verifier_error' },
  judge_failed: { cls: 'judge_failed', kind: 'judge_failed' },
  env_error: { cls: 'agent_run_error', kind: 'agent_run_error' },
  timeout: { cls: 'timeout_exceeded', kind: 'agent_timeout' },
  bad_task: { cls: 'agent_run_error', kind: 'agent_run_error' },
  cap_exceeded: { cls: 'agent_run_error', kind: 'agent_run_error' },
  internal: { cls: 'agent_run_error', kind: 'agent_run_error' },
};

/** The task fields NeMo Gym copies onto every result and sidecar row of the task. */
function routing(task: Row | undefined, agentRef: Row): Row {
  return { agent_ref: agentRef, ...(task?.task_source !== undefined ? { task_source: task.task_source } : {}) };
}

/** One line of `*_materialized_inputs.jsonl`: the task row as played by one repeat. */
export function materializedRow(task: Row, taskIndex: number, rolloutIndex: number, agentRef: Row): Row {
  return { ...task, ...routing(task, agentRef), _ng_task_index: taskIndex, _ng_rollout_index: rolloutIndex };
}

/** One line of `*_failures.jsonl`: NeMo Gym's sidecar fields, with Gymflow's class and stage kept beside them. */
export function failureRow(f: FailureRecord, task: Row | undefined, agentRef: Row): Row {
  const ng = NEMO_GYM_FAILURE[f._ng_failure_class];
  return {
    ...routing(task, agentRef),
    _ng_task_index: f._ng_task_index,
    _ng_rollout_index: f._ng_rollout_index,
    _ng_rollout_id: f._ng_rollout_id,
    ...(f._ng_attempt_index ? { _ng_attempt_index: f._ng_attempt_index } : {}),
    _ng_failure_class: ng.cls,
    _ng_failure_message: f.message,
    _ng_failure_stage: f.stage,
    _ng_failure_terminal: f._ng_failure_terminal ?? false,
    failure_kind: ng.kind,
    failure_reason: f.message,
    _gf_failure_class: f._ng_failure_class,
    _gf_failed_at: f.failed_at,
  };
}

/** A JSONL file written line by line, and put in place whole once complete. */
async function writeLines(file: string, lines: AsyncIterable<Row> | Iterable<Row>): Promise<void> {
  const tmp = `${file}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const out = createWriteStream(tmp);
  try {
    for await (const row of lines) if (!out.write(JSON.stringify(row) + '\n')) await once(out, 'drain');
    out.end();
    await once(out, 'finish');
    await rename(tmp, file);
  } catch (e) {
    out.destroy();
    await rm(tmp, { force: true });
    rethrowDiskFull(file, e);
  }
}

export interface RunFilesInput {
  runDir: string;
  numRepeats: number;
  /** The agent a task names none: `recordAgentRef`'s default for the run. */
  agentRefOf: (task: Row) => Row;
  failures: readonly FailureRecord[];
  aggregate: AgentAggregate[];
}

/** Every line of tasks.jsonl with its task's `_ng_task_index` (or line order) and its line, read line by line. */
async function* tasksOf(runDir: string): AsyncGenerator<{ index: number; line: number; task: Row }> {
  const lines = createInterface({ input: createReadStream(path.join(runDir, 'tasks.jsonl')), crlfDelay: Infinity });
  let n = 0;
  for await (const text of lines) {
    if (!text) continue;
    const task = JSON.parse(text) as Row;
    yield { index: typeof task._ng_task_index === 'number' ? task._ng_task_index : n, line: n, task };
    n++;
  }
}

/** Writes NeMo Gym's three files beside the run's rollouts.jsonl; each is whole or absent. */
export async function writeNemoGymFiles(input: RunFilesInput): Promise<void> {
  const { runDir, numRepeats, agentRefOf } = input;
  // The sidecar names a rollout by its task's index, or, when each repeat is a line of its own (num_repeats
  // by agent, a dataset's repeated lines), by that line (see activities/results.ts): both are looked up.
  const named = new Set(input.failures.map((f) => f._ng_task_index));
  const byIndex = new Map<number, Row>();
  const byLine = new Map<number, { task: Row; index: number; rollout: number }>();
  await writeLines(
    path.join(runDir, NEMO_GYM_FILES.materializedInputs),
    (async function* () {
      for await (const { index, line, task } of tasksOf(runDir)) {
        const agentRef = agentRefOf(task);
        // A line of one repeat is that repeat alone.
        if (typeof task._ng_rollout_index === 'number') {
          if (named.has(line)) byLine.set(line, { task, index, rollout: task._ng_rollout_index });
          yield materializedRow(task, index, task._ng_rollout_index, agentRef);
        } else {
          if (named.has(index)) byIndex.set(index, task);
          for (let r = 0; r < numRepeats; r++) yield materializedRow(task, index, r, agentRef);
        }
      }
    })(),
  );
  await writeLines(
    path.join(runDir, NEMO_GYM_FILES.failures),
    input.failures.map((f) => {
      const repeat = byLine.get(f._ng_task_index);
      if (repeat) return failureRow({ ...f, _ng_task_index: repeat.index, _ng_rollout_index: repeat.rollout }, repeat.task, agentRefOf(repeat.task));
      const task = byIndex.get(f._ng_task_index);
      return failureRow(f, task, agentRefOf(task ?? {}));
    }),
  );
  await writeFileAtomic(path.join(runDir, NEMO_GYM_FILES.aggregateMetrics), JSON.stringify(input.aggregate, null, 2) + '\n');
}

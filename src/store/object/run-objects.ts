// A run's files in an S3-compatible object store, for workers that share no folder: the collated tasks
// (read once per process, then by index), the manifest, each rollout's journal, model call records, and
// the results — one object per rollout result, written with a conditional put so the first writer wins.
// The run's finalizer (finalize.ts) turns the result objects into the canonical rollouts.jsonl and failures.jsonl.
import { GymError } from '../../errors';
import type { FailureRecord, RolloutRecord } from '../../schemas/records';
import { formatLine, parseRecord, recordEntry, type ResultKind } from '../result-lines';
import type { RunFiles } from '../run-files';
import { GroupAppender, WRITER } from '../segments';
import { objectStore, type ObjectStore } from './client';
import { ObjectJournal } from './journal';

/** Where each kind of result object goes: a rollout's by its id, a sidecar record's by id and attempt. */
export const RESULT_DIRS: Record<ResultKind, string> = { rollout: 'results/rollouts', failure: 'results/failures' };
export const rolloutObject = (id: string) => `${RESULT_DIRS.rollout}/${id}.json`;
export const failureObject = (id: string, attempt: number) => `${RESULT_DIRS.failure}/${id}/a${String(attempt).padStart(4, '0')}.json`;

/** The input rows the client put beside the run, for a collate on a machine without the input file. */
export const INPUT_OBJECT = 'input.jsonl';

/** A run's tasks.jsonl as this process read it: tasks never change once collated. */
interface TaskFile {
  buf: Buffer;
  offsets: number[];
}
const taskFiles = new Map<string, Promise<TaskFile>>();
const TASK_FILE_RUNS = 8;

function indexLines(buf: Buffer): TaskFile {
  const offsets = [0];
  for (let i = buf.indexOf(0x0a); i >= 0; i = buf.indexOf(0x0a, i + 1)) offsets.push(i + 1);
  return { buf, offsets };
}

/** The record one result object holds (the line the canonical file will hold). */
export function parseResultObject(text: string): Record<string, unknown> | undefined {
  const buf = Buffer.from(text.trimEnd());
  return parseRecord(buf, 0, buf.length);
}

/**
 * Model call records: one object per write, `model_calls/<writer>-<n>.jsonl`, numbered in this process; records
 * that arrive while a write is in flight go together into the next one.
 */
const callLogs = new Map<string, GroupAppender>();
let callSeq = 0;

export class ObjectRunFiles implements RunFiles {
  readonly store: ObjectStore;

  constructor(readonly url: string) {
    this.store = objectStore(url);
  }

  private tasks(): Promise<TaskFile> {
    let file = taskFiles.get(this.url);
    if (!file) {
      if (taskFiles.size >= TASK_FILE_RUNS) taskFiles.delete(taskFiles.keys().next().value!);
      file = (async () => {
        const bytes = await this.store.getBytes('tasks.jsonl');
        if (!bytes) throw new GymError('NOT_FOUND', `${this.url} has no tasks.jsonl: the run was not collated into this store`);
        return indexLines(Buffer.from(bytes));
      })();
      file.catch(() => taskFiles.delete(this.url));
      taskFiles.set(this.url, file);
    }
    return file;
  }

  async taskCount(): Promise<number> {
    return (await this.tasks()).offsets.length - 1;
  }

  async readTask(index: number): Promise<Record<string, unknown>> {
    const { buf, offsets } = await this.tasks();
    if (index < 0 || index >= offsets.length - 1) throw new Error(`task ${index} is not in ${this.url}/tasks.jsonl`);
    return JSON.parse(buf.toString('utf8', offsets[index], offsets[index + 1])) as Record<string, unknown>;
  }

  async readJson<T>(name: string): Promise<T | undefined> {
    const text = await this.store.get(name);
    return text === undefined ? undefined : (JSON.parse(text) as T);
  }

  async writeJson(name: string, value: unknown): Promise<void> {
    await this.store.put(name, JSON.stringify(value, null, 2) + '\n');
  }

  /** Written unless the rollout has a result object already; a 412 means another writer's record stands. */
  async appendRollout(record: RolloutRecord): Promise<boolean> {
    const entry = recordEntry('rollout', record as unknown as Record<string, unknown>);
    if (typeof entry === 'string') throw new GymError('INTERNAL', `cannot write a rollout record to ${this.url}: ${entry}`);
    return this.store.putIfAbsent(rolloutObject(entry.id), formatLine('rollout', record as unknown as Record<string, unknown>));
  }

  /** Written unless the rollout is recorded or this attempt's sidecar record is there; the finalizer keeps the latest attempt's. */
  async appendFailure(record: FailureRecord): Promise<boolean> {
    const entry = recordEntry('failure', record as unknown as Record<string, unknown>);
    if (typeof entry === 'string') throw new GymError('INTERNAL', `cannot write a failure record to ${this.url}: ${entry}`);
    if (await this.findRollout(entry.id)) return false;
    return this.store.putIfAbsent(failureObject(entry.id, entry.attempt ?? 0), formatLine('failure', record as unknown as Record<string, unknown>));
  }

  async findRollout(rolloutId: string): Promise<{ reward: number } | undefined> {
    const text = await this.store.get(rolloutObject(rolloutId));
    if (text === undefined) return undefined;
    const record = parseResultObject(text);
    return { reward: typeof record?.reward === 'number' ? record.reward : 0 };
  }

  journal(rolloutId: string): ObjectJournal {
    return new ObjectJournal(this.store, rolloutId);
  }

  callLog(): { append(record: object): Promise<void> } {
    let log = callLogs.get(this.url);
    if (!log) callLogs.set(this.url, (log = new GroupAppender((text) => this.store.put(`model_calls/${WRITER}-${String(callSeq++).padStart(10, '0')}.jsonl`, text))));
    const appender = log;
    return { append: (record) => appender.append(JSON.stringify(record) + '\n') };
  }
}

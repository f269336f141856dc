// What a worker's activities read and write of a run, wherever the run lives: the run folder (the default,
// RunStore and the file journal as they always were) or an S3-compatible object store (`--store s3://…`,
// object/run-objects.ts) for workers on machines that share no folder.
import path from 'node:path';
import type { FailureRecord, ModelCallRecord, RolloutRecord } from '../schemas/records';
import { callLog } from './call-log';
import { FileJournal, type Journal } from './journal';
import { ObjectRunFiles } from './object/run-objects';
import { RunStore } from './run-store';

export interface RunFiles {
  taskCount(): Promise<number>;
  readTask(index: number): Promise<Record<string, unknown>>;
  /** A JSON file of the run by its name in the run (`manifest.json`). */
  readJson<T>(name: string): Promise<T | undefined>;
  writeJson(name: string, value: unknown): Promise<void>;
  /** Writes the record unless the rollout has one; returns whether this call wrote it. */
  appendRollout(record: RolloutRecord): Promise<boolean>;
  appendFailure(record: FailureRecord): Promise<boolean>;
  /** The recorded reward of a rollout, or undefined when it has no record yet. */
  findRollout(rolloutId: string): Promise<{ reward: number } | undefined>;
  /** The turn grain's journal of one rollout. */
  journal(rolloutId: string): Journal;
  callLog(): { append(record: ModelCallRecord | object): Promise<void> };
}

/** Where a run is: its folder, and with `store` the object store its files are in instead. */
export interface RunLocation {
  runDir: string;
  store?: string;
}

/** The run folder: RunStore's exactly-once results log, the append-only file journal, the segment call log. */
class FolderRunFiles implements RunFiles {
  readonly store: RunStore;
  constructor(readonly dir: string) {
    this.store = new RunStore(dir);
  }
  taskCount() {
    return this.store.taskCount();
  }
  readTask(index: number) {
    return this.store.readTask(index);
  }
  readJson<T>(name: string) {
    return this.store.readJson<T>(path.join(this.dir, name));
  }
  writeJson(name: string, value: unknown) {
    return this.store.writeJson(path.join(this.dir, name), value);
  }
  appendRollout(record: RolloutRecord) {
    return this.store.appendRollout(record);
  }
  appendFailure(record: FailureRecord) {
    return this.store.appendFailure(record);
  }
  findRollout(rolloutId: string) {
    return this.store.findRollout(rolloutId);
  }
  journal(rolloutId: string): Journal {
    return new FileJournal(path.join(this.dir, 'work', `${rolloutId}.jsonl`));
  }
  callLog() {
    return callLog(this.dir);
  }
}

const objectRuns = new Map<string, ObjectRunFiles>();

export function runFiles(at: RunLocation): RunFiles {
  if (!at.store) return new FolderRunFiles(at.runDir);
  let files = objectRuns.get(at.store);
  if (!files) objectRuns.set(at.store, (files = new ObjectRunFiles(at.store)));
  return files;
}

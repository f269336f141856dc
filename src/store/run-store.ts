// One folder per run: the manifest, the collated tasks, per-rollout work files (model turns, tool
// outputs, session state), model call records, and the results — rollouts.jsonl and the sidecar
// failures.jsonl, each holding at most one line per rollout id, whatever was killed when.
import { mkdir, open, readdir, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { FailureRecord, RolloutRecord } from '../schemas/records';
import { readJsonFile, writeFileAtomic } from './jsonl';
import { ResultsLog } from './results-log';

/** Byte offsets of each task line, so a worker reads one task without loading the whole file. */
const taskOffsets = new Map<string, { mtimeMs: number; offsets: number[] }>();

export class RunStore {
  constructor(readonly dir: string) {}

  get manifestPath() {
    return path.join(this.dir, 'manifest.json');
  }
  get tasksPath() {
    return path.join(this.dir, 'tasks.jsonl');
  }
  get rolloutsPath() {
    return path.join(this.dir, 'rollouts.jsonl');
  }
  get failuresPath() {
    return path.join(this.dir, 'failures.jsonl');
  }
  get metricsPath() {
    return path.join(this.dir, 'metrics.json');
  }
  get taskMetricsPath() {
    return path.join(this.dir, 'task_metrics.jsonl');
  }

  workDir(rolloutId: string) {
    return path.join(this.dir, 'work', rolloutId);
  }
  modelCallPath(rolloutId: string, callId: string) {
    return path.join(this.dir, 'model_calls', rolloutId, `${callId}.json`);
  }

  async init(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
  }

  async writeJson(file: string, value: unknown): Promise<void> {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFileAtomic(file, JSON.stringify(value, null, 2) + '\n');
  }

  readJson<T>(file: string): Promise<T | undefined> {
    return readJsonFile<T>(file);
  }

  async taskCount(): Promise<number> {
    return (await this.offsets()).length - 1;
  }

  async readTask(index: number): Promise<Record<string, unknown>> {
    const offsets = await this.offsets();
    if (index < 0 || index >= offsets.length - 1) throw new Error(`task ${index} is not in ${this.tasksPath}`);
    const start = offsets[index]!;
    const len = offsets[index + 1]! - start;
    const handle = await open(this.tasksPath, 'r');
    try {
      const buf = Buffer.alloc(len);
      await handle.read(buf, 0, len, start);
      return JSON.parse(buf.toString('utf8')) as Record<string, unknown>;
    } finally {
      await handle.close();
    }
  }

  private async offsets(): Promise<number[]> {
    const { mtimeMs } = await stat(this.tasksPath);
    const cached = taskOffsets.get(this.tasksPath);
    if (cached && cached.mtimeMs === mtimeMs) return cached.offsets;
    const buf = await readFile(this.tasksPath);
    const offsets = [0];
    for (let i = buf.indexOf(0x0a); i >= 0; i = buf.indexOf(0x0a, i + 1)) offsets.push(i + 1);
    taskOffsets.set(this.tasksPath, { mtimeMs, offsets });
    return offsets;
  }

  /** The exactly-once writer of rollouts.jsonl and failures.jsonl (shared by every RunStore of the folder in this process). */
  get results(): ResultsLog {
    return new ResultsLog(this.dir);
  }

  /** Appends the record unless its rollout id is already in either results file; returns whether it was written. */
  async appendRollout(record: RolloutRecord): Promise<boolean> {
    return (await this.results.appendRollouts([record])).length === 1;
  }

  async appendFailure(record: FailureRecord): Promise<boolean> {
    return (await this.results.appendFailures([record])).length === 1;
  }

  /** The recorded reward of a rollout, or undefined when it has no record yet. */
  async findRollout(rolloutId: string): Promise<{ reward: number } | undefined> {
    const found = await this.results.lookup(rolloutId);
    return found?.kind === 'rollout' ? { reward: found.reward } : undefined;
  }

  /**
   * Removes what is left of recorded rollouts' journals (`work/<id>.jsonl`). A try removes its journal once the
   * record is written, but a stalled try of the same rollout (one Temporal had given up on and retried) can still
   * append after that, making the file again: harmless to the results, it would stay in the folder.
   */
  async dropRecordedJournals(): Promise<void> {
    let names: string[];
    try {
      names = await readdir(path.join(this.dir, 'work'));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    for (const name of names) {
      if (!name.endsWith('.jsonl')) continue;
      if (await this.findRollout(name.slice(0, -'.jsonl'.length))) await rm(path.join(this.dir, 'work', name), { force: true });
    }
  }

  async readRollouts(): Promise<RolloutRecord[]> {
    return (await this.results.readAll()).rollouts;
  }

  async readFailures(): Promise<FailureRecord[]> {
    return (await this.results.readAll()).failures;
  }

  /**
   * Both results files, canonical (no torn line, one line per rollout id across the two files), one
   * record at a time. The results writer keeps them so, repairing under its lock whatever a killed process left.
   */
  scanResults(on: { rollout(record: RolloutRecord): void; failure(record: FailureRecord): void }): Promise<void> {
    return this.results.scan((kind, record) => (kind === 'rollout' ? on.rollout(record as RolloutRecord) : on.failure(record as FailureRecord)));
  }
}

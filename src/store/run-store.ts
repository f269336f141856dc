// One folder per run: the manifest, the collated tasks, per-rollout work files (model turns, tool
// outputs, session state), model call records, and the results — rollouts.jsonl and the sidecar
// failures.jsonl, each holding at most one line per rollout id, whatever was killed when.
import { mkdir, open, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { FailureRecord, RolloutRecord } from '../schemas/records';
import { appendJsonl, parseJsonl, readJsonFile, repairTornTail, writeFileAtomic } from './jsonl';

/** Serialises async work per key inside this process (appends to one file must not interleave). */
class KeyedMutex {
  private tails = new Map<string, Promise<unknown>>();
  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    this.tails.set(key, next.catch(() => {}));
    return next;
  }
}

const mutex = new KeyedMutex();
/** Ids (with rewards) already in each results file, loaded once per process after repairing a torn tail. */
const idIndexes = new Map<string, Map<string, number | null>>();
/** Byte offsets of each task line, so a worker reads one task without loading the whole file. */
const taskOffsets = new Map<string, { mtimeMs: number; offsets: number[] }>();

export class RunStore {
  constructor(readonly dir: string) {}

  get manifestPath() { return path.join(this.dir, 'manifest.json'); }
  get tasksPath() { return path.join(this.dir, 'tasks.jsonl'); }
  get rolloutsPath() { return path.join(this.dir, 'rollouts.jsonl'); }
  get failuresPath() { return path.join(this.dir, 'failures.jsonl'); }
  get metricsPath() { return path.join(this.dir, 'metrics.json'); }

  workDir(rolloutId: string) { return path.join(this.dir, 'work', rolloutId); }
  modelCallPath(rolloutId: string, callId: string) { return path.join(this.dir, 'model_calls', rolloutId, `${callId}.json`); }

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

  /** Appends the record unless its rollout id is already there; returns whether it was written. */
  appendRollout(record: RolloutRecord): Promise<boolean> {
    return this.appendOnce(this.rolloutsPath, record._ng_rollout_id, record);
  }

  appendFailure(record: FailureRecord): Promise<boolean> {
    return this.appendOnce(this.failuresPath, record._ng_rollout_id, record);
  }

  /** The recorded reward of a rollout, or undefined when it has no record yet. */
  async findRollout(rolloutId: string): Promise<{ reward: number } | undefined> {
    const ids = await mutex.run(this.rolloutsPath, () => this.idIndex(this.rolloutsPath));
    return ids.has(rolloutId) ? { reward: ids.get(rolloutId) ?? 0 } : undefined;
  }

  /** How a rollout was settled, if it was: recorded with a reward, or routed to the sidecar. */
  async findOutcome(rolloutId: string): Promise<{ status: 'recorded'; reward: number } | { status: 'failed'; failureClass: FailureRecord['_ng_failure_class'] } | undefined> {
    const recorded = await this.findRollout(rolloutId);
    if (recorded) return { status: 'recorded', reward: recorded.reward };
    const failed = await mutex.run(this.failuresPath, () => this.idIndex(this.failuresPath));
    return failed.has(rolloutId) ? { status: 'failed', failureClass: 'internal' } : undefined;
  }

  private appendOnce(file: string, id: string, value: object): Promise<boolean> {
    return mutex.run(file, async () => {
      const ids = await this.idIndex(file);
      if (ids.has(id)) return false;
      await appendJsonl(file, value);
      const reward = (value as { reward?: unknown }).reward;
      ids.set(id, typeof reward === 'number' ? reward : null);
      return true;
    });
  }

  private async idIndex(file: string): Promise<Map<string, number | null>> {
    let ids = idIndexes.get(file);
    if (ids) return ids;
    await mkdir(this.dir, { recursive: true });
    await repairTornTail(file);
    ids = new Map(readRows(await readText(file)).map((r) => [String(r._ng_rollout_id), typeof r.reward === 'number' ? r.reward : null]));
    idIndexes.set(file, ids);
    return ids;
  }

  async readRollouts(): Promise<RolloutRecord[]> {
    return readRows(await readText(this.rolloutsPath)) as RolloutRecord[];
  }

  async readFailures(): Promise<FailureRecord[]> {
    return readRows(await readText(this.failuresPath)) as FailureRecord[];
  }

  /**
   * Makes the results files canonical at the end of a run: no torn line, one line per rollout id,
   * and no sidecar line for a rollout that later succeeded. Rewrites only when something changes.
   */
  async compactResults(): Promise<{ rollouts: RolloutRecord[]; failures: FailureRecord[] }> {
    return mutex.run(this.rolloutsPath, () =>
      mutex.run(this.failuresPath, async () => {
        const rollouts = dedupe(await this.readRollouts());
        const done = new Set(rollouts.map((r) => r._ng_rollout_id));
        const failures = dedupe(await this.readFailures()).filter((f) => !done.has(f._ng_rollout_id));
        await this.rewriteIfChanged(this.rolloutsPath, rollouts);
        await this.rewriteIfChanged(this.failuresPath, failures);
        idIndexes.delete(this.rolloutsPath);
        idIndexes.delete(this.failuresPath);
        return { rollouts, failures };
      }),
    );
  }

  private async rewriteIfChanged(file: string, rows: unknown[]): Promise<void> {
    const content = rows.map((r) => JSON.stringify(r) + '\n').join('');
    if ((await readText(file)) !== content) await writeFileAtomic(file, content);
  }
}

async function readText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw e;
  }
}

/** Complete, parseable lines only: a torn tail is not a record. */
function readRows(text: string): Record<string, unknown>[] {
  const complete = text.endsWith('\n') ? text : text.slice(0, text.lastIndexOf('\n') + 1);
  return parseJsonl(complete).flatMap((l) => (l.value && typeof l.value === 'object' ? [l.value as Record<string, unknown>] : []));
}

function dedupe<T extends { _ng_rollout_id: string }>(rows: T[]): T[] {
  const seen = new Set<string>();
  return rows.filter((r) => (seen.has(r._ng_rollout_id) ? false : (seen.add(r._ng_rollout_id), true)));
}

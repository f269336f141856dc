// The exactly-once writer of a run's results: every rollout id at most once in the union of
// rollouts.jsonl and failures.jsonl, across processes and machines, whatever is killed or stopped when.
//
// One lock (results-lock.ts) covers both files. The holder checks its open handles still name the files
// at their paths, reads what others wrote since its last look, confirms the lock just before its single
// write() per file, and after it checks the path still names the inode it wrote to and that nobody wrote
// beside it. A breaker of a stale lock first leaves a marker, and the next holder rotates the files
// (results-rotate.ts): a writer that lost the lock then writes into a moved-away inode, and sees that.
// Concurrent appends in one process share one lock, one write() per file and one fdatasync.
import { constants, fstatSync, mkdirSync, rmSync, statSync, writeSync, type BigIntStats } from 'node:fs';
import { open, writeFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { GymError, isGymError } from '../errors';
import type { FailureRecord, RolloutRecord } from '../schemas/records';
import { diskFullError, isDiskFull, rethrowDiskFull } from './disk-full';
import { formatLine, parseRecord, recordEntry, scanLines, type ResultKind, type ResultLine } from './result-lines';
import { ResultsIndex } from './results-index';
import { acquireLock, type HeldLock } from './results-lock';
import { hasMovedFiles, RotationLost, rotateResults, syncDir } from './results-rotate';

export interface ResultsLogOptions {
  /** How long a silent lock holder keeps the lock before others may break it (default 10 s). */
  leaseMs?: number;
  /** How long appends in this process wait to share one lock and one write (default 2 ms; 0 allowed). */
  flushDelayMs?: number;
  /**
   * Fault injection for tests: called with the lock held and confirmed, just before the write
   * ('before-write'), and after the write, before it is checked ('after-write').
   */
  faultHook?: (point: 'before-write' | 'after-write') => void | Promise<void>;
}

export type ResultLookup = { kind: 'rollout'; reward: number } | { kind: 'failure'; failureClass: string };

const KINDS = ['rollout', 'failure'] as const;
const FILE_NAMES: Record<ResultKind, string> = { rollout: 'rollouts.jsonl', failure: 'failures.jsonl' };
const DEFAULT_LEASE_MS = 10_000;
const DEFAULT_FLUSH_DELAY_MS = 2;
/** Lost-lock retries before giving up: only a lease shorter than a write makes this many in a row. */
const MAX_ATTEMPTS = 50;
const IDLE_CLOSE_MS = 5_000;

/** This attempt lost the lock or wrote to a moved-away file: nothing it did counts, start again. */
class Fenced extends Error {}

interface Pending {
  kind: ResultKind;
  lines: (ResultLine & { text: string })[];
  resolve: (ids: string[]) => void;
  reject: (e: unknown) => void;
}

interface Session {
  lock: HeldLock;
  handles: Record<ResultKind, FileHandle>;
}

/** Runs async work one at a time (this process's reads and writes of one index). */
class Serial {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.tail.then(fn, fn);
    this.tail = next.catch(() => {});
    return next;
  }
}

class LogCore {
  readonly index = new ResultsIndex();
  readonly serial = new Serial();
  readonly paths: Record<ResultKind, string>;
  readonly lockPath: string;
  readonly markerPath: string;
  private handles: Partial<Record<ResultKind, FileHandle>> = {};
  private idleClose: NodeJS.Timeout | undefined;
  private queue: Pending[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing = false;

  constructor(
    readonly dir: string,
    readonly leaseMs: number,
    readonly flushDelayMs: number,
    private readonly hook: ResultsLogOptions['faultHook'],
  ) {
    this.paths = { rollout: path.join(dir, FILE_NAMES.rollout), failure: path.join(dir, FILE_NAMES.failure) };
    this.lockPath = path.join(dir, 'results.lock');
    this.markerPath = path.join(dir, 'results.rotate');
  }

  enqueue(kind: ResultKind, records: Record<string, unknown>[]): Promise<string[]> {
    const lines: Pending['lines'] = [];
    for (const [i, record] of records.entries()) {
      const entry = recordEntry(kind, record);
      if (typeof entry === 'string') return Promise.reject(new GymError('INTERNAL', `cannot write ${kind} record ${i + 1} of ${records.length} to ${this.paths[kind]}: ${entry}`));
      lines.push({ ...entry, text: formatLine(kind, record) });
    }
    if (!lines.length) return Promise.resolve([]);
    return new Promise((resolve, reject) => {
      this.queue.push({ kind, lines, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.flushing || this.timer) return;
    this.timer = setTimeout(() => void this.flush(), this.flushDelayMs);
  }

  private async flush(): Promise<void> {
    this.timer = undefined;
    this.flushing = true;
    const batch = this.queue.splice(0);
    try {
      await this.serial.run(() => this.writeBatch(batch));
    } finally {
      this.flushing = false;
      if (this.queue.length) this.schedule();
    }
  }

  /** One lock, one write per file, for every append queued in this process. Settles every request. */
  private async writeBatch(batch: Pending[]): Promise<void> {
    let written = new Map<Pending, string[]>();
    const failed = new Map<ResultKind, unknown>();
    try {
      await this.locked(async ({ lock, handles: opened }) => {
        let handles = opened;
        written = new Map();
        failed.clear();
        const out: Record<ResultKind, Pending['lines']> = { rollout: [], failure: [] };
        const taken = new Set<string>();
        const superseded: string[] = [];
        // Rollouts first: a rollout wins over a sidecar record for the same id, queued or on disk.
        for (const p of [...batch.filter((b) => b.kind === 'rollout'), ...batch.filter((b) => b.kind === 'failure')]) {
          const ids: string[] = [];
          for (const line of p.lines) {
            const there = this.index.get(line.id)?.kind;
            if (taken.has(line.id) || there === 'rollout') continue;
            // A sidecar line gives way to the rollout's record, or to a later attempt's sidecar line.
            if (there === 'failure' && p.kind === 'failure' && (line.attempt ?? 0) <= (this.index.failureAttempt(line.id) ?? 0)) continue;
            if (there === 'failure') superseded.push(line.id);
            taken.add(line.id);
            out[p.kind].push(line);
            ids.push(line.id);
          }
          written.set(p, ids);
        }
        if (!out.rollout.length && !out.failure.length) return;
        if (superseded.length) handles = await this.dropFailures(lock, superseded);
        if (!lock.confirm()) throw new Fenced();
        await this.hook?.('before-write');
        const appended: { kind: ResultKind; bytes: Buffer; before: number }[] = [];
        for (const kind of KINDS) {
          if (!out[kind].length) continue;
          const bytes = Buffer.from(out[kind].map((l) => l.text).join(''));
          const before = fstatSync(handles[kind].fd).size;
          try {
            await this.append(kind, handles[kind], bytes, before);
            appended.push({ kind, bytes, before });
          } catch (e) {
            if (!isGymError(e) || e.code !== 'DISK_FULL') throw e;
            failed.set(kind, e);
          }
        }
        await this.hook?.('after-write');
        const checked: { kind: ResultKind; st: BigIntStats; bytes: Buffer }[] = [];
        for (const { kind, bytes, before } of appended) {
          const fst = fstatSync(handles[kind].fd, { bigint: true });
          const pst = statSync(this.paths[kind], { bigint: true, throwIfNoEntry: false });
          // Rotated since we opened it: our write went to a moved-away inode, which nobody reads.
          if (!pst || pst.ino !== fst.ino || pst.dev !== fst.dev) throw new Fenced();
          if (Number(fst.size) !== before + bytes.length) {
            // Someone wrote beside us (a lock was lost): have the next holder rewrite the files, each id once.
            await writeFile(this.markerPath, '').catch((e: unknown) => rethrowDiskFull(this.markerPath, e));
            throw new Fenced();
          }
          checked.push({ kind, st: fst, bytes });
        }
        for (const { kind, st, bytes } of checked) this.index.appended(kind, st, out[kind], bytes);
      });
    } catch (e) {
      for (const p of batch) p.reject(e);
      return;
    }
    for (const p of batch) {
      const e = failed.get(p.kind);
      if (e) p.reject(e);
      else p.resolve(written.get(p) ?? []);
    }
  }

  /** One write() of whole lines, made durable; on any failure the file is cut back to where it ended. */
  private async append(kind: ResultKind, fh: FileHandle, bytes: Buffer, before: number): Promise<void> {
    let error: unknown;
    try {
      // Synchronous: a page-cache copy is quicker than a trip through the thread pool; only the sync waits on the disk.
      const bytesWritten = writeSync(fh.fd, bytes, 0, bytes.length, null);
      if (bytesWritten === bytes.length) {
        await fh.datasync();
        return;
      }
    } catch (e) {
      error = e;
    }
    await fh.truncate(before).catch(() => {});
    await fh.datasync().catch(() => {});
    // A short write without an error is the disk filling up mid-write.
    if (error === undefined || isDiskFull(error)) throw diskFullError(this.paths[kind], error);
    throw error;
  }

  /** Runs fn with the lock held and both files open and read up to date; retries when the lock was lost. */
  async locked<T>(fn: (s: Session) => Promise<T>): Promise<T> {
    clearTimeout(this.idleClose);
    try {
      for (let attempt = 1; ; attempt++) {
        let lock: HeldLock | undefined;
        try {
          try {
            mkdirSync(this.dir, { recursive: true });
          } catch (e) {
            rethrowDiskFull(this.dir, e);
          }
          lock = await acquireLock(this.lockPath, this.markerPath, this.leaseMs);
          return await fn({ lock, handles: await this.openSession(lock) });
        } catch (e) {
          await this.closeHandles();
          // ENOENT: the folder was deleted under us (and maybe re-created); start again in the new one.
          const retry = e instanceof Fenced || e instanceof RotationLost || (e as NodeJS.ErrnoException).code === 'ENOENT';
          if (!retry) throw e;
          if (attempt >= MAX_ATTEMPTS) {
            throw new GymError(
              'INTERNAL',
              `could not write the results in ${this.dir}: lost the results lock ${attempt} times in a row (${(e as Error).message || 'lock taken over'}); is the lease (${this.leaseMs} ms) shorter than a write?`,
            );
          }
        } finally {
          lock?.release();
        }
        await sleep(Math.min(attempt, 20));
      }
    } finally {
      // Handles stay open between appends (they are checked against the paths at every lock), not forever.
      this.idleClose = setTimeout(() => void this.serial.run(() => this.closeHandles()), IDLE_CLOSE_MS).unref();
    }
  }

  /**
   * After taking the lock: rotates if a breaker asked for it, makes sure each handle is on the file its
   * path names now (the same as opening it now), reads what others wrote, cuts a torn tail, and
   * rotates once more if a file holds a line that is not a record or a repeated id.
   */
  private async openSession(lock: HeldLock): Promise<Session['handles']> {
    if (lock.rotationRequested()) {
      // Removed before rotating: a marker left by a later breaker must survive for the next holder.
      rmSync(this.markerPath, { force: true });
      await this.rotate(lock);
    }
    for (let pass = 0; ; pass++) {
      let repair = false;
      for (const kind of KINDS) {
        const fh = await this.currentHandle(kind);
        if (!fh) {
          repair = true;
          break;
        }
        const r = await this.index.sync(kind, fh, fstatSync(fh.fd, { bigint: true }), () => lock.touch());
        repair ||= r.needsRepair;
        // Every earlier holder finished its write or was fenced by a rotation, so a partial
        // last line is a torn one from a writer that died: cut it.
        if (r.partialTail) await fh.truncate(r.offset);
      }
      if (!repair || pass > 0) return this.handles as Session['handles'];
      await this.rotate(lock);
    }
  }

  /** The open handle of a results file if it is still the file at its path, else a fresh one. */
  private async currentHandle(kind: ResultKind): Promise<FileHandle | undefined> {
    const held = this.handles[kind];
    if (held) {
      const now = statSync(this.paths[kind], { bigint: true, throwIfNoEntry: false });
      const mine = fstatSync(held.fd, { bigint: true });
      if (now && now.ino === mine.ino && now.dev === mine.dev) return held;
      this.handles[kind] = undefined;
      await held.close().catch(() => {});
    }
    this.handles[kind] = await this.openFile(kind);
    return this.handles[kind];
  }

  private async closeHandles(): Promise<void> {
    for (const kind of KINDS) {
      const fh = this.handles[kind];
      this.handles[kind] = undefined;
      await fh?.close().catch(() => {});
    }
  }

  /** Opens a results file for reading and appending, creating it if new; undefined when a rotation must finish first. */
  private async openFile(kind: ResultKind): Promise<FileHandle | undefined> {
    const file = this.paths[kind];
    const { O_RDWR, O_APPEND, O_CREAT, O_EXCL } = constants;
    for (;;) {
      try {
        return await open(file, O_RDWR | O_APPEND);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
      if (await hasMovedFiles(file)) return undefined;
      try {
        const fh = await open(file, O_RDWR | O_APPEND | O_CREAT | O_EXCL);
        await syncDir(this.dir);
        return fh;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') rethrowDiskFull(file, e);
      }
    }
  }

  private async rotate(lock: HeldLock): Promise<void> {
    await this.closeHandles();
    this.index.reset('rollout');
    this.index.reset('failure');
    await rotateResults(
      KINDS.map((kind) => ({ kind, file: this.paths[kind] })),
      lock.token,
      () => lock.touch(),
    );
  }

  /**
   * Removes the sidecar lines of rollouts about to be recorded (a resumed run recorded a rollout
   * that had failed before) or about to get a later attempt's sidecar line. Removed first: a crash
   * before the new line's write leaves the id in neither file, and its writer, never acknowledged,
   * writes it again.
   */
  private async dropFailures(lock: HeldLock, ids: string[]): Promise<Session['handles']> {
    await this.closeHandles();
    this.index.reset('failure');
    await rotateResults([{ kind: 'failure', file: this.paths.failure }], lock.token, () => lock.touch(), ids);
    return this.openSession(lock);
  }

  /** Reads what others appended since the last look, without the lock; partial lines are not there yet. */
  async refresh(): Promise<void> {
    for (const kind of KINDS) {
      const file = this.paths[kind];
      let fh: FileHandle;
      try {
        const st = statSync(file, { bigint: true, throwIfNoEntry: false });
        if (st && this.index.isCurrent(kind, st)) continue;
        fh = await open(file, 'r');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        // Missing mid-rotation: wait for the rotator by taking the lock (which also reads both files).
        if (await hasMovedFiles(file)) return this.locked(async () => {});
        this.index.reset(kind);
        continue;
      }
      try {
        await this.index.sync(kind, fh, await fh.stat({ bigint: true }));
      } finally {
        await fh.close();
      }
    }
  }

  async scanAll(onRecord: (kind: ResultKind, record: Record<string, unknown>) => void): Promise<void> {
    return this.locked(async ({ lock, handles }) => {
      for (const kind of KINDS) {
        const { size } = fstatSync(handles[kind].fd);
        await scanLines(
          handles[kind],
          0,
          size,
          (buf, start, end) => {
            const record = parseRecord(buf, start, end);
            if (record) onRecord(kind, record);
          },
          () => lock.touch(),
        );
      }
    });
  }
}

/** One core per run folder and settings in each process: the index and the group-commit queue. */
const cores = new Map<string, LogCore>();

export class ResultsLog {
  private readonly core: LogCore;

  constructor(runDir: string, opts: ResultsLogOptions = {}) {
    const dir = path.resolve(runDir);
    const leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;
    const flushDelayMs = opts.flushDelayMs ?? DEFAULT_FLUSH_DELAY_MS;
    if (opts.faultHook) {
      this.core = new LogCore(dir, leaseMs, flushDelayMs, opts.faultHook);
      return;
    }
    const key = `${dir}\0${leaseMs}\0${flushDelayMs}`;
    let core = cores.get(key);
    if (!core) cores.set(key, (core = new LogCore(dir, leaseMs, flushDelayMs, undefined)));
    this.core = core;
  }

  get rolloutsPath(): string {
    return this.core.paths.rollout;
  }

  get failuresPath(): string {
    return this.core.paths.failure;
  }

  /**
   * Appends each record whose `_ng_rollout_id` is not in rollouts.jsonl (the first of repeated ids)
   * and resolves with the ids it wrote, once they are durably in the file. A sidecar line for the same
   * id is removed first, so a resumed run records a rollout that failed before and the id stays once
   * in the union. Rejects with DISK_FULL, having written none of them, when the disk is full.
   */
  appendRollouts(records: RolloutRecord[]): Promise<string[]> {
    return this.core.enqueue('rollout', records);
  }

  /**
   * Appends each record whose `_ng_rollout_id` is in neither file, or replaces the id's sidecar line when
   * the record's `_ng_attempt_index` is higher (a retry that failed again); resolves as appendRollouts does.
   */
  appendFailures(records: FailureRecord[]): Promise<string[]> {
    return this.core.enqueue('failure', records);
  }

  /** What the files say about an id, from the index refreshed from the files' new bytes. */
  async lookup(id: string): Promise<ResultLookup | undefined> {
    await this.core.serial.run(() => this.core.refresh());
    const hit = this.core.index.get(id);
    if (!hit) return undefined;
    return hit.kind === 'rollout' ? { kind: 'rollout', reward: hit.value as number } : { kind: 'failure', failureClass: hit.value as string };
  }

  /** Every record of both files (complete lines, each id once), read under the lock. */
  async readAll(): Promise<{ rollouts: RolloutRecord[]; failures: FailureRecord[] }> {
    const all = { rollouts: [] as RolloutRecord[], failures: [] as FailureRecord[] };
    await this.scan((kind, record) => void (kind === 'rollout' ? all.rollouts.push(record as RolloutRecord) : all.failures.push(record as FailureRecord)));
    return all;
  }

  /** Hands over every record of both files (as readAll has them) one at a time, holding none: for runs of any size. */
  scan(onRecord: (kind: ResultKind, record: Record<string, unknown>) => void): Promise<void> {
    return this.core.serial.run(() => this.core.scanAll(onRecord));
  }
}

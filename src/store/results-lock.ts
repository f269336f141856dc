// The one lock over a run's results files, shared by every process on every machine that sees the
// folder: a symlink whose target names its holder (created whole, or not at all, and never in place of
// another), broken only when the holder is dead or its lease ran out. Its file operations are the
// synchronous kind: each is microseconds, far less than a round trip through libuv's thread pool.
import { randomUUID } from 'node:crypto';
import { existsSync, linkSync, lstatSync, lutimesSync, readFileSync, readlinkSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { rethrowDiskFull } from './disk-full';

export interface LockOwner {
  host: string;
  pid: number;
  /** The holder's start time in clock ticks since boot (/proc/<pid>/stat), so a reused pid is not it. */
  start: string | null;
  token: string;
  acquired_at: string;
}

/** A process's state and start time from /proc, or undefined where there is no such process or no /proc. */
function procStat(pid: number): { state: string; start: string } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces: state is field 3, start time 22.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0]!, start: fields[19]! };
  } catch {
    return undefined;
  }
}

const HOST = hostname();
const MY_START = procStat(process.pid)?.start ?? null;

function isAlive(pid: number, start: string | null): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  const proc = procStat(pid);
  if (!proc) return !existsProc();
  // A zombie has exited; only its parent has not reaped it yet.
  if (proc.state === 'Z' || proc.state === 'X') return false;
  return start === null || proc.start === start;
}

let procMounted: boolean | undefined;
function existsProc(): boolean {
  procMounted ??= procStat(process.pid) !== undefined;
  return procMounted;
}

function readOwnerText(file: string): string {
  try {
    return readlinkSync(file);
  } catch {
    return '';
  }
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(text) as LockOwner;
    return typeof owner.token === 'string' && typeof owner.pid === 'number' ? owner : undefined;
  } catch {
    return undefined;
  }
}

/** Dead on this host (or its pid now another process), or silent longer than its lease. */
export function isStale(owner: LockOwner | undefined, mtimeMs: number, leaseMs: number, now = Date.now()): boolean {
  if (now - mtimeMs > leaseMs) return true;
  // Unreadable content is a lock still being written: only its lease can end it.
  if (!owner || owner.host !== HOST) return false;
  return !isAlive(owner.pid, owner.start);
}

export class HeldLock {
  private lastTouch = Date.now();

  constructor(
    readonly path: string,
    readonly markerPath: string,
    readonly token: string,
    private readonly leaseMs: number,
  ) {}

  private ours(): boolean {
    return parseOwner(readOwnerText(this.path))?.token === this.token;
  }

  /** A breaker has asked for the results files to be rotated before anyone writes to them again. */
  rotationRequested(): boolean {
    return existsSync(this.markerPath);
  }

  /** Still ours, and nobody has asked for a rotation since we took it. */
  confirm(): boolean {
    return this.ours() && !this.rotationRequested();
  }

  /** Renews the lease during long work. */
  touch(): void {
    const now = Date.now();
    if (now - this.lastTouch < this.leaseMs / 4) return;
    this.lastTouch = now;
    if (this.ours()) {
      try {
        lutimesSync(this.path, now / 1000, now / 1000);
      } catch {
        // Gone since we looked: the next confirm() says so.
      }
    }
  }

  release(): void {
    if (this.ours()) rmSync(this.path, { force: true });
  }
}

/**
 * Takes the lock, waiting with short backoff while a live holder has it. `markerPath` is the file a
 * breaker creates before breaking: whoever takes the lock next rotates the results files first.
 */
export async function acquireLock(lockPath: string, markerPath: string, leaseMs: number): Promise<HeldLock> {
  const token = randomUUID();
  for (let delay = 1; ; delay = Math.min(delay * 2, 20)) {
    const held = tryCreate(lockPath, markerPath, token, leaseMs);
    if (held) return held;
    if (breakIfStale(lockPath, markerPath, leaseMs)) continue;
    await sleep(delay * (0.5 + Math.random()));
  }
}

function tryCreate(lockPath: string, markerPath: string, token: string, leaseMs: number): HeldLock | undefined {
  const owner: LockOwner = { host: HOST, pid: process.pid, start: MY_START, token, acquired_at: new Date().toISOString() };
  try {
    symlinkSync(JSON.stringify(owner), lockPath);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    rethrowDiskFull(lockPath, e);
  }
  return new HeldLock(lockPath, markerPath, token, leaseMs);
}

/** Breaks a stale lock; returns true when the caller should try to take the lock again at once. */
function breakIfStale(lockPath: string, markerPath: string, leaseMs: number): boolean {
  let seen: { ino: bigint; dev: bigint; mtimeMs: number; text: string };
  try {
    const st = lstatSync(lockPath, { bigint: true });
    seen = { ino: st.ino, dev: st.dev, mtimeMs: Number(st.mtimeMs), text: readOwnerText(lockPath) };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw e;
  }
  if (!isStale(parseOwner(seen.text), seen.mtimeMs, leaseMs)) return false;
  // Marked before the break, so the rotation happens even if this process stops right after it.
  try {
    writeFileSync(markerPath, '');
  } catch (e) {
    rethrowDiskFull(markerPath, e);
  }
  const moved = `${lockPath}.broken-${randomUUID()}`;
  try {
    renameSync(lockPath, moved);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw e;
  }
  const st = lstatSync(moved, { bigint: true, throwIfNoEntry: false });
  const text = st ? readOwnerText(moved) : undefined;
  if (!st || st.ino !== seen.ino || st.dev !== seen.dev || text !== seen.text) {
    // We moved a lock taken since we looked: put it back (link() of a symlink links the symlink itself).
    // If a newer one is there already, the marker still fences the holder we displaced.
    try {
      linkSync(moved, lockPath);
    } catch {
      // A newer lock is there (or ours was swept): the marker covers it.
    }
  }
  rmSync(moved, { force: true });
  return true;
}

/** A lock a breaker moved aside and was stopped or killed before removing; removing it only makes that breaker retry. */
export const isBrokenLockLeftover = (name: string) => name.startsWith('results.lock.broken-');

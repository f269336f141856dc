// Rewrites a run's results files so a writer that lost the lock can never add to them: the current
// file is renamed away first (a late write goes to the moved inode, and its writer sees that), then
// its complete records are copied, each id once, into a new file installed with link() (never over another).
import { link, open, readdir, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { GymError } from '../errors';
import { isDiskFull, diskFullError } from './disk-full';
import { formatLine, parseRecord, scanLines, type ResultKind } from './result-lines';
import { isBrokenLockLeftover } from './results-lock';

export interface RotateTarget {
  kind: ResultKind;
  file: string;
}

/** Raised when a rotation finds its own work removed: the caller lost the lock and must start again. */
export class RotationLost extends Error {}

/**
 * Rotates the files in order: the ids of earlier files are excluded from later ones (a rollout line
 * wins over a sidecar line for the same rollout), and so are the ids in `drop`. `token` is the lock
 * token; `touch` renews the lease.
 */
export async function rotateResults(targets: RotateTarget[], token: string, touch: () => void, drop: Iterable<string> = []): Promise<void> {
  const seen = new Set<string>(drop);
  for (const target of targets) await rotateOne(target, seen, token, touch);
}

async function rotateOne({ kind, file }: RotateTarget, seen: Set<string>, token: string, touch: () => void): Promise<void> {
  const dir = path.dirname(file);
  const base = path.basename(file);
  // We hold the lock, so any other rotation's temp file is abandoned; removing it also fails that
  // rotator's install if it was only stopped.
  for (const name of await readdir(dir)) {
    if (name.startsWith(`${base}.new-`) || isBrokenLockLeftover(name)) await rm(path.join(dir, name), { force: true });
  }
  for (let attempt = 0; ; attempt++) {
    const mine = path.join(dir, `${base}.old-${token}-${attempt}`);
    let moved = true;
    try {
      await rename(file, mine);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      moved = false;
    }
    // Earlier rotations that were killed or broken before installing left their moved files: copy them first.
    const sources = (await readdir(dir))
      .filter((n) => n.startsWith(`${base}.old-`))
      .map((n) => path.join(dir, n))
      .sort((a, b) => Number(a === mine) - Number(b === mine));
    const tmp = path.join(dir, `${base}.new-${token}-${attempt}`);
    const ids = new Set(seen);
    try {
      await copyRecords(kind, sources, tmp, ids, touch);
    } catch (e) {
      await rm(tmp, { force: true });
      // Put the file back where readers expect it; its records are unchanged.
      if (moved)
        await link(mine, file).then(
          () => rm(mine, { force: true }),
          () => {},
        );
      if (isDiskFull(e)) throw diskFullError(file, e);
      throw e;
    }
    try {
      await link(tmp, file);
    } catch (e) {
      await rm(tmp, { force: true });
      const code = (e as NodeJS.ErrnoException).code;
      // Someone created the file meanwhile (a writer that lost the lock): move that one away too and copy again.
      if (code === 'EEXIST' && attempt < 20) continue;
      if (code === 'ENOENT') throw new RotationLost(`rotation of ${file} lost its temp file: the lock was taken over`);
      if (isDiskFull(e)) throw diskFullError(file, e);
      throw code === 'EEXIST' ? new GymError('INTERNAL', `could not rotate ${file}: another process keeps creating it`) : e;
    }
    await rm(tmp, { force: true });
    for (const source of sources) await rm(source, { force: true });
    await syncDir(dir);
    for (const id of ids) seen.add(id);
    return;
  }
}

async function copyRecords(kind: ResultKind, sources: string[], tmp: string, ids: Set<string>, touch: () => void): Promise<void> {
  const out = await open(tmp, 'wx');
  try {
    let pending: string[] = [];
    let pendingBytes = 0;
    const flush = async () => {
      if (!pending.length) return;
      const buf = Buffer.from(pending.join(''));
      pending = [];
      pendingBytes = 0;
      await writeAll(out, buf);
    };
    for (const source of sources) {
      let fh: FileHandle;
      try {
        fh = await open(source, 'r');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw e;
      }
      try {
        const { size } = await fh.stat();
        const lines: string[] = [];
        // Complete lines only: a torn tail is dropped, and so is any line that is not a record or repeats an id.
        await scanLines(
          fh,
          0,
          size,
          (buf, start, end) => {
            const record = parseRecord(buf, start, end);
            if (!record || ids.has(record._ng_rollout_id as string)) return;
            ids.add(record._ng_rollout_id as string);
            lines.push(formatLine(kind, record));
          },
          async () => {
            for (const l of lines.splice(0)) {
              pending.push(l);
              pendingBytes += l.length;
            }
            if (pendingBytes > 1 << 22) await flush();
            await touch();
          },
        );
        pending.push(...lines);
      } finally {
        await fh.close();
      }
    }
    await flush();
    await out.sync();
  } finally {
    await out.close();
  }
}

async function writeAll(fh: FileHandle, buf: Buffer): Promise<void> {
  for (let off = 0; off < buf.length;) {
    const { bytesWritten } = await fh.write(buf, off, buf.length - off);
    if (bytesWritten === 0) throw Object.assign(new Error('short write'), { code: 'ENOSPC' });
    off += bytesWritten;
  }
}

/** Makes renames and new names in a folder durable. */
export async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** A rotation was interrupted before installing its file: the records wait in moved files. */
export async function hasMovedFiles(file: string): Promise<boolean> {
  try {
    return (await readdir(path.dirname(file))).some((n) => n.startsWith(`${path.basename(file)}.old-`));
  } catch {
    return false;
  }
}

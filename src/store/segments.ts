// Append-only JSONL segments in a run folder: one file per writing process, so writers on any number
// of processes and machines never contend, and a long run holds a handful of files, not one per line.
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { rethrowDiskFull } from './disk-full';

/** A new segment is started past this size, so no single file grows without bound. */
const SEGMENT_BYTES = 256 * 1024 * 1024;

/** This process's name in segment file names: host, pid and a random tag (pids are reused). */
export const WRITER = `${os.hostname().replace(/[^A-Za-z0-9._-]/g, '_')}-${process.pid}-${randomBytes(3).toString('hex')}`;

/** Appends lines to one file, batching those that arrive while a write is in flight into the next write. */
export class GroupAppender {
  private queue: { line: string; done: (e?: unknown) => void }[] = [];
  private writing: Promise<void> | undefined;

  constructor(private readonly write: (text: string) => Promise<void>) {}

  append(line: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ line, done: (e) => (e ? reject(e) : resolve()) });
      this.writing ??= this.drain();
    });
  }

  /** Settles once every line appended so far is written (or has failed). */
  async idle(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async drain(): Promise<void> {
    while (this.queue.length) {
      const batch = this.queue.splice(0);
      try {
        await this.write(batch.map((b) => b.line).join(''));
        for (const b of batch) b.done();
      } catch (e) {
        for (const b of batch) b.done(e);
      }
    }
    this.writing = undefined;
  }
}

export interface SegmentLog {
  append(record: object): Promise<void>;
  idle(): Promise<void>;
}

const appenders = new Map<string, GroupAppender>();

/** The segments of `<runDir>/<folder>/` this process writes. */
export function segmentLog(runDir: string, folder: string): SegmentLog {
  const dir = path.join(runDir, folder);
  let appender = appenders.get(dir);
  if (!appender) {
    let segment = 0;
    let written = 0;
    appender = new GroupAppender(async (text) => {
      if (written > SEGMENT_BYTES) {
        segment++;
        written = 0;
      }
      const file = path.join(dir, `${WRITER}-${segment}.jsonl`);
      // Synchronous on purpose: a group of lines is a few KiB into the page cache, microseconds of system
      // calls, where fs/promises' appendFile took three trips through libuv's thread pool (open, write, close)
      // and its promises, a quarter of a millisecond of CPU on each logged model call. The file is still
      // opened and closed per write: readers on other machines of a shared folder see a line once its writer
      // closed the file, and a folder removed under a live worker is made again.
      try {
        appendFileSync(file, text);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') rethrowDiskFull(file, e);
        try {
          mkdirSync(dir, { recursive: true });
          appendFileSync(file, text);
        } catch (again) {
          rethrowDiskFull(file, again);
        }
      }
      written += Buffer.byteLength(text);
    });
    appenders.set(dir, appender);
  }
  const a = appender;
  return { append: (record) => a.append(JSON.stringify(record) + '\n'), idle: () => a.idle() };
}

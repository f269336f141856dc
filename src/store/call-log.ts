// Model call records (latency, usage, token ids, attempt) in append-only JSONL segments: one file per
// writing process, so writers never contend and a 100k-rollout run holds a handful of files, not one per call.
import { randomBytes } from 'node:crypto';
import { appendFile, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ModelCallRecord } from '../schemas/records';

/** A new segment is started past this size, so no single file grows without bound. */
const SEGMENT_BYTES = 256 * 1024 * 1024;

const WRITER = `${os.hostname().replace(/[^A-Za-z0-9._-]/g, '_')}-${process.pid}-${randomBytes(3).toString('hex')}`;

/** Appends lines to one file, batching those that arrive while a write is in flight into the next write. */
class GroupAppender {
  private queue: { line: string; done: (e?: unknown) => void }[] = [];
  private writing = false;

  constructor(private readonly write: (text: string) => Promise<void>) {}

  append(line: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ line, done: (e) => (e ? reject(e) : resolve()) });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    while (this.queue.length) {
      const batch = this.queue.splice(0);
      try {
        await this.write(batch.map((b) => b.line).join(''));
        for (const b of batch) b.done();
      } catch (e) {
        for (const b of batch) b.done(e);
      }
    }
    this.writing = false;
  }
}

const appenders = new Map<string, GroupAppender>();

/** The model call log of a run folder, as written by this process. */
export function callLog(runDir: string): { append(record: ModelCallRecord): Promise<void> } {
  let appender = appenders.get(runDir);
  if (!appender) {
    const dir = path.join(runDir, 'model_calls');
    let segment = 0;
    let written = 0;
    appender = new GroupAppender(async (text) => {
      if (written > SEGMENT_BYTES) {
        segment++;
        written = 0;
      }
      const file = path.join(dir, `${WRITER}-${segment}.jsonl`);
      try {
        await appendFile(file, text);
      } catch (e) {
        // The folder may have been removed and made again under a live worker.
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        await mkdir(dir, { recursive: true });
        await appendFile(file, text);
      }
      written += Buffer.byteLength(text);
    });
    appenders.set(runDir, appender);
  }
  const a = appender;
  return { append: (record) => a.append(JSON.stringify(record) + '\n') };
}

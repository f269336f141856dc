// JSONL files that survive being killed mid-write: every record is one write() of one whole line,
// and a reader treats an unterminated last line as torn (repairable), never as data.
import { appendFile, open, readFile, rename, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { rethrowDiskFull } from './disk-full';

export interface JsonlLine {
  line: number;
  value?: unknown;
  error?: string;
}

/** Parses every line, keeping line numbers (1-based) and parse errors; blank lines are skipped. */
export function parseJsonl(text: string): JsonlLine[] {
  const out: JsonlLine[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    if (raw.trim() === '') continue;
    try {
      out.push({ line: i + 1, value: JSON.parse(raw) });
    } catch (e) {
      out.push({ line: i + 1, error: (e as Error).message });
    }
  }
  return out;
}

/** Cuts an unterminated last line (left by a process killed mid-append); returns whether it did. */
export async function repairTornTail(file: string): Promise<boolean> {
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch {
    return false;
  }
  if (size === 0) return false;
  let end = 0;
  const handle = await open(file, 'r');
  try {
    const last = Buffer.alloc(1);
    await handle.read(last, 0, 1, size - 1);
    if (last[0] === 0x0a) return false;
    // Walk back in chunks to the last newline; everything after it is the torn line.
    for (let pos = size; pos > 0; ) {
      const len = Math.min(1 << 16, pos);
      pos -= len;
      const buf = Buffer.alloc(len);
      await handle.read(buf, 0, len, pos);
      const nl = buf.lastIndexOf(0x0a);
      if (nl >= 0) {
        end = pos + nl + 1;
        break;
      }
    }
  } finally {
    await handle.close();
  }
  await truncate(file, end);
  return true;
}

export async function appendJsonl(file: string, value: unknown): Promise<void> {
  await appendFile(file, JSON.stringify(value) + '\n');
}

/**
 * Writes a whole file atomically: readers see the old content or the new, never a mix. A failed
 * write or rename removes its temp file (a full disk must not fill the folder with them).
 */
export async function writeFileAtomic(file: string, content: string): Promise<void> {
  const tmp = `${file}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  try {
    await writeFile(tmp, content);
    await rename(tmp, file);
  } catch (e) {
    await rm(tmp, { force: true });
    rethrowDiskFull(file, e);
  }
}

export async function readJsonFile<T>(file: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as T;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

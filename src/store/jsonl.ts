// Reading JSONL with line numbers, and whole files written atomically (readers see the old content
// or the new). Results files have their own exactly-once writer in results-log.ts.
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
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

// The problem lists NeMo Gym's notebook environments index with a row's `task_idx`: a JSONL file read once
// (again when it changes), each line checked against the environment's problem schema.
import { readFileSync, statSync } from 'node:fs';
import type { z } from 'zod';

const cache = new Map<string, { mtimeMs: number; size: number; rows: unknown[] }>();

/** Why a problem list cannot be read, naming the file, line and field. */
export class ProblemFileError extends Error {}

/** The file's rows, each parsed by `schema`, in line order (blank lines skipped, as JSONL readers do). */
export function readProblems<T>(file: string, schema: z.ZodType<T>): T[] {
  let stat;
  try {
    stat = statSync(file);
  } catch {
    throw new ProblemFileError(`the problem list ${file} does not exist`);
  }
  const hit = cache.get(file);
  if (hit && hit.mtimeMs === stat.mtimeMs && hit.size === stat.size) return hit.rows as T[];
  const rows: T[] = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (!line.trim()) return;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (e) {
        throw new ProblemFileError(`${file} line ${i + 1}: not JSON (${(e as Error).message})`);
      }
      const parsed = schema.safeParse(value);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new ProblemFileError(`${file} line ${i + 1}: ${issue.path.join('.') || '(row)'}: ${issue.message}`);
      }
      rows.push(parsed.data);
    });
  cache.set(file, { mtimeMs: stat.mtimeMs, size: stat.size, rows });
  return rows;
}

// Reads a task file and validates every row against the environment's task_data schema, reporting
// each bad row by line number and field path — before anything starts.
import { readFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { GymError } from '../errors';
import type { AnyEnvironment } from '../environments/types';
import { parseJsonl } from '../store/jsonl';

export interface LoadedTasks {
  rows: Record<string, unknown>[];
  /** sha256 of the lines used (after --limit): the dataset part of a run's identity. */
  datasetHash: string;
}

const MAX_REPORTED = 20;

function describeIssue(issue: z.core.$ZodIssue): string {
  const where = issue.path.length ? issue.path.map(String).join('.') : '(row)';
  return `${where}: ${issue.message}`;
}

export async function loadTasks(file: string, env: AnyEnvironment, limit?: number): Promise<LoadedTasks> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new GymError(code === 'ENOENT' ? 'NOT_FOUND' : 'BAD_INPUT', `cannot read input file ${file}: ${code ?? (e as Error).message}`);
  }
  const lines = parseJsonl(text);
  const used = limit === undefined ? lines : lines.slice(0, limit);
  const problems: string[] = [];
  const rows: Record<string, unknown>[] = [];
  for (const line of used) {
    if (line.error !== undefined) {
      problems.push(`line ${line.line}: not valid JSON (${line.error})`);
      continue;
    }
    const parsed = env.taskSchema.safeParse(line.value);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) problems.push(`line ${line.line}: ${describeIssue(issue)}`);
      continue;
    }
    rows.push(line.value as Record<string, unknown>);
  }
  if (problems.length) {
    const shown = problems.slice(0, MAX_REPORTED);
    if (problems.length > MAX_REPORTED) shown.push(`… and ${problems.length - MAX_REPORTED} more`);
    throw new GymError('BAD_INPUT', `${file} has ${problems.length} invalid row field(s) for environment "${env.name}"`, shown);
  }
  if (rows.length === 0) throw new GymError('BAD_INPUT', `${file} has no task rows`);
  const hash = createHash('sha256');
  for (const row of rows) hash.update(JSON.stringify(row) + '\n');
  return { rows, datasetHash: hash.digest('hex') };
}

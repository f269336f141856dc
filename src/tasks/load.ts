// Reads a task file and validates every row against the environment's task_data schema, reporting
// each bad row by line number and field path — before anything starts.
import { readFile, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { GymError } from '../errors';
import type { AnyEnvironment } from '../environments/types';
import { parseJsonl, type JsonlLine } from '../store/jsonl';
import { describeIssues } from './issues';
import { MAX_NESTING, fieldNestedTooDeep } from './nesting';
import { lazyImport } from '../util/lazy-import';

/** Imported on first use: the registry loads every environment, which commands that only read a run never need. */
const rowRouting = lazyImport(() => import('../routing/row'));

export interface LoadedTasks {
  rows: Record<string, unknown>[];
  /** sha256 of the lines used (after --limit): the dataset part of a run's identity. */
  datasetHash: string;
}

const MAX_REPORTED = 20;
const MAX_LINES_NAMED = 10;

interface DecodedText {
  text: string;
  /** Lines (1-based) that are not valid UTF-8: refused, never silently repaired with U+FFFD. */
  notUtf8: Set<number>;
}

function decodeLines(bytes: Buffer): DecodedText {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    return { text: decoder.decode(bytes), notUtf8: new Set() };
  } catch {
    const lines: string[] = [];
    const notUtf8 = new Set<number>();
    for (let start = 0; start <= bytes.length;) {
      const nl = bytes.indexOf(0x0a, start);
      const end = nl < 0 ? bytes.length : nl;
      try {
        lines.push(decoder.decode(bytes.subarray(start, end)));
      } catch {
        // A stand-in that is not blank, so --limit still counts the line.
        lines.push('-');
        notUtf8.add(lines.length);
      }
      start = end + 1;
    }
    return { text: lines.join('\n'), notUtf8 };
  }
}

/**
 * Collation gives a row without `_ng_task_index` its position; two rows with the same index would
 * be one task in the records (the same ids, pass@k across different questions), so each must be unique,
 * unless they are one task's repeats, each its own line with its `_ng_rollout_index` (num_repeats by agent).
 */
function duplicateIndexProblems(lines: JsonlLine[]): string[] {
  const byIndex = new Map<string, { index: number; holders: { line: number; positional: boolean }[] }>();
  lines.forEach((l, position) => {
    const row = l.value !== null && typeof l.value === 'object' ? (l.value as Record<string, unknown>) : {};
    const given = row._ng_task_index;
    if (given !== undefined && !(Number.isInteger(given) && (given as number) >= 0)) return; // the schema reports it
    const index = (given as number | undefined) ?? position;
    const repeat = given !== undefined && Number.isInteger(row._ng_rollout_index) ? `/${String(row._ng_rollout_index)}` : '';
    const entry = byIndex.get(`${index}${repeat}`) ?? { index, holders: [] };
    entry.holders.push({ line: l.line, positional: given === undefined });
    byIndex.set(`${index}${repeat}`, entry);
  });
  const problems: string[] = [];
  for (const { index, holders } of byIndex.values()) {
    if (holders.length < 2) continue;
    const named = holders.slice(0, MAX_LINES_NAMED).map((h) => (h.positional ? `${h.line} (no _ng_task_index, so its position ${index})` : String(h.line)));
    const rest = holders.length > MAX_LINES_NAMED ? ` and ${holders.length - MAX_LINES_NAMED} more` : '';
    problems.push(`lines ${named.join(', ')}${rest}: the same _ng_task_index ${index}; every task needs its own`);
  }
  return problems;
}

/** A row's environment: the run's, or the one routing stamped on it (src/routing/row.ts). */
type EnvironmentOfRow = (row: Record<string, unknown>, runEnv: AnyEnvironment) => AnyEnvironment;

function rowProblems(line: JsonlLine, env: AnyEnvironment, envOfRow: EnvironmentOfRow, notUtf8: Set<number>): string[] {
  if (notUtf8.has(line.line)) return [`line ${line.line}: not valid UTF-8 (save the file as UTF-8)`];
  if (line.error !== undefined) return [`line ${line.line}: not valid JSON (${line.error})`];
  let rowEnv = env;
  if (line.value !== null && typeof line.value === 'object' && !Array.isArray(line.value)) {
    try {
      rowEnv = envOfRow(line.value as Record<string, unknown>, env);
    } catch (e) {
      return [`line ${line.line}: ${(e as Error).message}`];
    }
  }
  return taskProblems(line.value, rowEnv).map((p) => `line ${line.line}: ${p}`);
}

/** What is wrong with one parsed row for an environment (field path first), or nothing. */
export function taskProblems(value: unknown, env: AnyEnvironment): string[] {
  const deep = fieldNestedTooDeep(value);
  if (deep !== undefined) return [`${deep}: nested more than ${MAX_NESTING} levels deep (arrays/objects); such a row cannot be processed safely`];
  const parsed = env.taskSchema.safeParse(value);
  return parsed.success ? [] : describeIssues(parsed.error.issues, value);
}

/** Where the full list goes when the message shows only the first problems: one file per input, overwritten. */
function problemsFile(inputFile: string): string {
  const tag = createHash('sha256').update(path.resolve(inputFile)).digest('hex').slice(0, 8);
  return path.join(os.tmpdir(), `gym-input-problems-${path.basename(inputFile)}-${tag}.txt`);
}

async function reportProblems(file: string, env: AnyEnvironment | undefined, problems: string[]): Promise<never> {
  const shown = problems.slice(0, MAX_REPORTED);
  if (problems.length > MAX_REPORTED) {
    const listFile = problemsFile(file);
    const more = `… and ${problems.length - MAX_REPORTED} more`;
    try {
      await writeFile(listFile, problems.join('\n') + '\n');
      shown.push(`${more}; all ${problems.length} are listed in ${listFile}`);
    } catch (e) {
      shown.push(`${more} (could not write the full list to ${listFile}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
  }
  throw new GymError('BAD_INPUT', `${file} has ${problems.length} problem(s) for ${env ? `environment "${env.name}"` : 'the environments its rows are routed to'}`, shown);
}

export async function loadTasks(file: string, env: AnyEnvironment, limit?: number): Promise<LoadedTasks> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new GymError(code === 'ENOENT' ? 'NOT_FOUND' : 'BAD_INPUT', `cannot read input file ${file}: ${code ?? (e as Error).message}`);
  }
  const { text, notUtf8 } = decodeLines(bytes);
  const lines = parseJsonl(text);
  const used = limit === undefined ? lines : lines.slice(0, limit);
  const problems: string[] = [];
  const rows: Record<string, unknown>[] = [];
  const { environmentOfRow, ROW_ENVIRONMENT } = await rowRouting();
  const routed = used.some((l) => l.value !== null && typeof l.value === 'object' && ROW_ENVIRONMENT in l.value);
  for (const line of used) {
    const found = rowProblems(line, env, environmentOfRow, notUtf8);
    for (const p of found) problems.push(p);
    if (!found.length) rows.push(line.value as Record<string, unknown>);
  }
  // A loop, not push(...): a large file can have more duplicates than a call takes arguments.
  for (const p of duplicateIndexProblems(used)) problems.push(p);
  if (problems.length) await reportProblems(file, routed ? undefined : env, problems);
  if (rows.length === 0) throw new GymError('BAD_INPUT', `${file} has no task rows`);
  const hash = createHash('sha256');
  for (const row of rows) hash.update(JSON.stringify(row) + '\n');
  return { rows, datasetHash: hash.digest('hex') };
}

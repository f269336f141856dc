// Reads the JSONL files of a re-verification, keeping line numbers for every later message.
import { readFile } from 'node:fs/promises';
import { GymError } from '../errors';
import { parseJsonl } from '../store/jsonl';
import type { NumberedRow, Row } from './join';

const MAX_REPORTED = 20;

/** Lists problems by line, capped so a wholly wrong file still gives a readable error. */
export function badInput(message: string, problems: readonly string[]): GymError {
  const shown = problems.slice(0, MAX_REPORTED);
  if (problems.length > MAX_REPORTED) shown.push(`… and ${problems.length - MAX_REPORTED} more`);
  return new GymError('BAD_INPUT', message, shown);
}

export async function readRows(file: string, what: string): Promise<NumberedRow[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new GymError(code === 'ENOENT' ? 'NOT_FOUND' : 'BAD_INPUT', `cannot read ${what} file ${file}: ${code ?? (e as Error).message}`);
  }
  const rows: NumberedRow[] = [];
  const problems: string[] = [];
  for (const { line, value, error } of parseJsonl(text)) {
    if (error !== undefined) problems.push(`line ${line}: not valid JSON (${error})`);
    else if (typeof value !== 'object' || value === null || Array.isArray(value)) problems.push(`line ${line}: not a JSON object`);
    else rows.push({ line, row: value as Row });
  }
  if (problems.length) throw badInput(`${what} file ${file} has ${problems.length} unreadable line(s)`, problems);
  if (rows.length === 0) throw new GymError('BAD_INPUT', `${what} file ${file} has no rows`);
  return rows;
}

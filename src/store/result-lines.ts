// The line format of rollouts.jsonl and failures.jsonl: one JSON object per line whose last keys are
// the reward (or attempt index and failure class) and then `_ng_rollout_id`, so an index reads them
// without parsing the line.
import { open, type FileHandle } from 'node:fs/promises';

export type ResultKind = 'rollout' | 'failure';
/** What an index keeps per id: the reward of a rollout line, the failure class of a sidecar line. */
export type ResultValue = number | string;

export interface ResultLine {
  id: string;
  value: ResultValue;
  /** A sidecar line's `_ng_attempt_index` (0 when absent): a later attempt's line replaces it. */
  attempt?: number;
}

const VALUE_KEY = { rollout: 'reward', failure: '_ng_failure_class' } as const;

/** One whole line (with its newline) for a record, its value and id moved to the end. */
export function formatLine(kind: ResultKind, record: Record<string, unknown>): string {
  const key = VALUE_KEY[kind];
  if (kind === 'failure') {
    const { _ng_rollout_id: id, [key]: value, _ng_attempt_index: attempt, ...rest } = record;
    return JSON.stringify({ ...rest, _ng_attempt_index: attempt ?? 0, [key]: value, _ng_rollout_id: id }) + '\n';
  }
  const { _ng_rollout_id: id, [key]: value, ...rest } = record;
  return JSON.stringify({ ...rest, [key]: value, _ng_rollout_id: id }) + '\n';
}

/** The id and value a record carries, or a reason it cannot be written. */
export function recordEntry(kind: ResultKind, record: Record<string, unknown>): ResultLine | string {
  const id = record._ng_rollout_id;
  if (typeof id !== 'string' || id === '') return '_ng_rollout_id must be a non-empty string';
  const value = record[VALUE_KEY[kind]];
  if (kind === 'rollout' && (typeof value !== 'number' || !Number.isFinite(value))) return `rollout ${id}: reward must be a finite number`;
  if (kind === 'failure' && typeof value !== 'string') return `failure ${id}: _ng_failure_class must be a string`;
  if (kind === 'rollout') return { id, value: value as ResultValue };
  const attempt = record._ng_attempt_index;
  return { id, value: value as ResultValue, attempt: typeof attempt === 'number' && Number.isInteger(attempt) && attempt >= 0 ? attempt : 0 };
}

const TAIL = {
  rollout: /"reward":(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?),"_ng_rollout_id":"([^"\\]*)"\}$/,
  failure: /(?:"_ng_attempt_index":(\d+),)?"_ng_failure_class":"([^"\\]*)","_ng_rollout_id":"([^"\\]*)"\}$/,
};
/** Enough of a line's end to hold the value and the id of any line we wrote. */
const TAIL_BYTES = 512;

/**
 * Reads one line's id and value: from its tail when we wrote it (the keys are last, and a match ending
 * in `"}` can only be top-level keys), else by parsing it. Undefined for a line that is not a record.
 */
export function readLine(kind: ResultKind, buf: Buffer, start: number, end: number): ResultLine | undefined {
  const m = TAIL[kind].exec(buf.toString('utf8', Math.max(start, end - TAIL_BYTES), end));
  if (m) return kind === 'rollout' ? { id: m[2]!, value: Number(m[1]) } : { id: m[3]!, value: m[2]!, attempt: Number(m[1] ?? 0) };
  const record = parseRecord(buf, start, end);
  if (!record) return undefined;
  const entry = recordEntry(kind, record);
  // A line an older version wrote may lack a usable value; its id still counts.
  if (typeof entry === 'string')
    return typeof record._ng_rollout_id === 'string' ? (kind === 'rollout' ? { id: record._ng_rollout_id, value: 0 } : { id: record._ng_rollout_id, value: 'internal', attempt: 0 }) : undefined;
  return entry;
}

/** The record on one line, or undefined when the line is not a JSON object with a rollout id. */
export function parseRecord(buf: Buffer, start: number, end: number): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(buf.toString('utf8', start, end));
    return value && typeof value === 'object' && !Array.isArray(value) && typeof (value as Record<string, unknown>)._ng_rollout_id === 'string' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const CHUNK = 1 << 22;

/**
 * Calls onLine for every complete line in [from, to) of a file (without its newline) and returns the
 * offset just after the last newline: bytes after it are a line still being written, or a torn one.
 */
export async function scanLines(
  fh: FileHandle,
  from: number,
  to: number,
  /** `at` is the line's offset in the file. */
  onLine: (buf: Buffer, start: number, end: number, at: number) => void,
  onChunk?: () => void | Promise<void>,
): Promise<number> {
  let pos = from;
  let carry: Buffer | undefined;
  let consumed = from;
  while (pos < to) {
    const chunk = Buffer.allocUnsafe(Math.min(CHUNK, to - pos));
    const { bytesRead } = await fh.read(chunk, 0, chunk.length, pos);
    if (bytesRead === 0) break;
    const bufStart = pos - (carry?.length ?? 0);
    const buf = carry ? Buffer.concat([carry, chunk.subarray(0, bytesRead)]) : chunk.subarray(0, bytesRead);
    pos += bytesRead;
    let lineStart = 0;
    for (let nl = buf.indexOf(0x0a); nl >= 0; nl = buf.indexOf(0x0a, lineStart)) {
      if (nl > lineStart) onLine(buf, lineStart, nl, bufStart + lineStart);
      lineStart = nl + 1;
    }
    consumed = bufStart + lineStart;
    carry = lineStart < buf.length ? Buffer.from(buf.subarray(lineStart)) : undefined;
    await onChunk?.();
  }
  return consumed;
}

/**
 * Calls onLine with the text of each complete, non-empty line of a whole file and its number among them
 * (1-based); nothing when the file does not exist. Streamed a chunk at a time, so any size is read.
 */
export async function eachFileLine(file: string, onLine: (text: string, line: number) => void): Promise<void> {
  let fh: FileHandle;
  try {
    fh = await open(file, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  try {
    let n = 0;
    const { size } = await fh.stat();
    await scanLines(fh, 0, size, (buf, start, end) => onLine(buf.toString('utf8', start, end), ++n));
  } finally {
    await fh.close();
  }
}

export async function readAt(fh: FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  const { bytesRead } = await fh.read(buf, 0, length, position);
  return buf.subarray(0, bytesRead);
}

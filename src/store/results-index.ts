// What one process knows of a run's results files: every id with its reward or failure class (and a
// sidecar line's attempt index), and how far into which file that knowledge goes, so a refresh reads
// only the bytes written since.
import type { BigIntStats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { GymError } from '../errors';
import { readAt, readLine, scanLines, type ResultKind, type ResultLine, type ResultValue } from './result-lines';

/** Bytes kept from before the offset: a file that no longer has them there is another file. */
const CONTINUITY_BYTES = 64;

interface FileState {
  identity: string;
  hasBirthTime: boolean;
  offset: number;
  tail: Buffer;
}

export interface SyncResult {
  /** Where the complete lines end (the file's size unless its last line is partial). */
  offset: number;
  /** The file has bytes after its last newline: being written, or torn by a killed writer. */
  partialTail: boolean;
  /** A line that is not a record, or an id already seen: the file must be rewritten. */
  needsRepair: boolean;
}

const identityOf = (st: BigIntStats) => `${st.dev}:${st.ino}:${st.birthtimeNs}`;

export class ResultsIndex {
  private readonly entries: Record<ResultKind, Map<string, ResultValue>> = { rollout: new Map(), failure: new Map() };
  private readonly files: Record<ResultKind, FileState | undefined> = { rollout: undefined, failure: undefined };
  private readonly failureAttempts = new Map<string, number>();

  get(id: string): { kind: ResultKind; value: ResultValue } | undefined {
    for (const kind of ['rollout', 'failure'] as const) {
      const value = this.entries[kind].get(id);
      if (value !== undefined) return { kind, value };
    }
    return undefined;
  }

  /** The attempt index of the id's sidecar line, if it has one. */
  failureAttempt(id: string): number | undefined {
    return this.failureAttempts.get(id);
  }

  has(id: string): boolean {
    return this.entries.rollout.has(id) || this.entries.failure.has(id);
  }

  /** Forgets a file (deleted, or about to be rewritten): the next sync reads it whole. */
  reset(kind: ResultKind): void {
    this.entries[kind].clear();
    if (kind === 'failure') this.failureAttempts.clear();
    this.files[kind] = undefined;
  }

  /** True when the file at these stats is exactly what the index has read (no I/O needed). */
  isCurrent(kind: ResultKind, st: BigIntStats): boolean {
    const state = this.files[kind];
    return !!state && state.hasBirthTime && state.identity === identityOf(st) && Number(st.size) === state.offset;
  }

  /**
   * Brings one file's part of the index up to date from an open handle: only the new bytes when it is
   * the same file grown, the whole file when it was replaced, re-created or shortened.
   */
  async sync(kind: ResultKind, fh: FileHandle, st: BigIntStats, onChunk?: () => void | Promise<void>): Promise<SyncResult> {
    const size = Number(st.size);
    let state = this.files[kind];
    let same = !!state && state.identity === identityOf(st) && size >= state.offset;
    if (same && state!.tail.length && (size > state!.offset || !state!.hasBirthTime)) {
      const before = await readAt(fh, state!.offset - state!.tail.length, state!.tail.length);
      same = before.equals(state!.tail);
    }
    if (!same) {
      this.reset(kind);
      state = { identity: identityOf(st), hasBirthTime: st.birthtimeNs > 0n, offset: 0, tail: Buffer.alloc(0) };
      this.files[kind] = state;
    }
    let needsRepair = false;
    const map = this.entries[kind];
    const other = this.entries[kind === 'rollout' ? 'failure' : 'rollout'];
    const offset = await scanLines(
      fh,
      state!.offset,
      size,
      (buf, start, end) => {
        const line = readLine(kind, buf, start, end);
        if (!line) needsRepair = true;
        else if (map.has(line.id) || other.has(line.id)) needsRepair = true;
        else this.set(kind, line);
      },
      onChunk,
    );
    if (offset > state!.offset) {
      const keep = Math.min(CONTINUITY_BYTES, offset);
      state!.tail = await readAt(fh, offset - keep, keep);
      state!.offset = offset;
    }
    return { offset, partialTail: size > offset, needsRepair };
  }

  private set(kind: ResultKind, line: ResultLine): void {
    this.entries[kind].set(line.id, line.value);
    if (kind === 'failure') this.failureAttempts.set(line.id, line.attempt ?? 0);
  }

  /** Records lines this process has just appended (bytes ending at the file's new size). */
  appended(kind: ResultKind, st: BigIntStats, lines: ResultLine[], bytes: Buffer): void {
    const state = this.files[kind];
    if (!state || state.identity !== identityOf(st)) throw new GymError('INTERNAL', `the results index lost track of the ${kind} file it appended to`);
    for (const l of lines) this.set(kind, l);
    state.offset = Number(st.size);
    const joined = bytes.length >= CONTINUITY_BYTES ? bytes : Buffer.concat([state.tail, bytes]);
    state.tail = Buffer.from(joined.subarray(Math.max(0, joined.length - CONTINUITY_BYTES)));
  }
}

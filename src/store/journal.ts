// A rollout's journal: every finished step (seeded session, model turn, tool call, environment step,
// verify) as one entry, so a retried or resumed rollout continues at the last finished step and nothing
// is paid for twice. The "turn" grain keeps it in one append-only file per rollout; the "rollout" grain in memory.
import { closeSync, fstatSync, mkdirSync, openSync, readFileSync, statSync, writeFileSync, type BigIntStats } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { CompactionSummary } from '../agents/history-policy';
import type { ConversationItem, FunctionCallOutputItem, ResponseObject, Usage } from '../schemas/responses';
import type { VerifyResult } from '../schemas/verify';
import { rethrowDiskFull } from './disk-full';

export interface ModelTurn {
  callId: string;
  responseId: string;
  model: string | null;
  output: ConversationItem[];
  usage: Usage | null;
  incomplete: boolean;
  /** How long the call took, as the caller measured it (absent in journals written before it was kept). */
  latencyMs?: number;
  /** What the run's history policy left out of this call's input; absent when it was shown the whole history. */
  compaction?: CompactionSummary;
}

export type JournalEntry =
  /**
   * The session as seeded; a turn-based environment's first observation in `items`. `startedAtMs` is
   * when the rollout's first step began (epoch ms) and `queueingMs` how long it waited for that since
   * its shard scheduled the activity carrying it.
   */
  | { kind: 'seed'; state: unknown; items?: ConversationItem[]; startedAtMs?: number; queueingMs?: number; attemptIndex?: number }
  | { kind: 'model'; step: number; turn: ModelTurn }
  | { kind: 'tool'; step: number; index: number; item: FunctionCallOutputItem; status: number; state: unknown; latencyMs?: number }
  | { kind: 'env'; step: number; items: ConversationItem[]; state: unknown; done: boolean; latencyMs?: number }
  | { kind: 'verify'; response: ResponseObject; result: VerifyResult; modelCallIds: string[]; latencyMs?: number; sandboxMs?: number }
  /** A try of a step that ended in an error (it is retried, or the rollout goes to the sidecar). */
  | { kind: 'failed_try'; step: number };

export interface Journal {
  read(): Promise<JournalEntry[]>;
  append(entry: JournalEntry): Promise<void>;
  /** Drops the journal once the rollout is recorded: its record holds the whole episode. */
  remove(): Promise<void>;
  /** Moves an earlier attempt's journal out of the way (kept for the audit), so a new attempt starts afresh. */
  setAside(attemptIndex: number): Promise<void>;
}

/** A journal as this process last saw it, valid while the file's inode, size and mtime are unchanged. */
interface SeenJournal {
  entries: JournalEntry[];
  version: string;
}
/**
 * Each step reads its rollout's journal, which holds every earlier turn with its token ids: re-reading
 * and re-parsing it per step was the turn grain's largest cost. Journals this process wrote or read are
 * kept while they stay small in number; any change by another process (a migrated shard) alters the
 * version, so it is read again.
 */
const seen = new Map<string, SeenJournal>();
const SEEN_JOURNALS = 4096;

const versionOf = (st: BigIntStats) => `${st.ino}:${st.size}:${st.mtimeNs}`;

function remember(file: string, entry: SeenJournal): void {
  seen.delete(file);
  seen.set(file, entry);
  if (seen.size > SEEN_JOURNALS) seen.delete(seen.keys().next().value!);
}

/** Kept entries are shared by every later read, so they are frozen: a caller that edits one fails loudly. */
function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  Object.freeze(value);
  // Token id and log-prob arrays hold numbers only: freezing the array is enough.
  if (Array.isArray(value) && typeof value[0] === 'number') return value;
  for (const v of Object.values(value)) deepFreeze(v);
  return value;
}

function parseEntries(text: string): JournalEntry[] {
  const entries: JournalEntry[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      entries.push(deepFreeze(JSON.parse(line) as JournalEntry));
    } catch {
      // A torn entry: its step was not finished, so it runs again.
    }
  }
  return entries;
}

/**
 * One file, appended to. Each entry is written as `\n<json>\n` in one write, so a line torn by a kill
 * mid-write stays on a line of its own and is skipped, never glued to the next entry.
 * Open, stat, write and close are synchronous: each is a page-cache operation of microseconds (no
 * fsync, as before), and five trips through the thread pool per append were most of a turn's file cost.
 */
export class FileJournal implements Journal {
  constructor(readonly file: string) {}

  async read(): Promise<JournalEntry[]> {
    // A journal this process knows is confirmed by one stat of its path (its inode is in the version).
    const known = seen.get(this.file);
    if (known) {
      const st = statSync(this.file, { bigint: true, throwIfNoEntry: false });
      if (st && versionOf(st) === known.version) return [...known.entries];
    }
    let fd: number;
    try {
      fd = openSync(this.file, 'r');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return (seen.delete(this.file), []);
      throw e;
    }
    try {
      // The version is taken before reading: an append racing the read makes the next version differ.
      const version = versionOf(fstatSync(fd, { bigint: true }));
      const again = seen.get(this.file);
      if (again?.version === version) return [...again.entries];
      const entries = parseEntries(readFileSync(fd, 'utf8'));
      remember(this.file, { entries, version });
      return [...entries];
    } finally {
      closeSync(fd);
    }
  }

  async append(entry: JournalEntry): Promise<void> {
    const line = JSON.stringify(entry);
    const text = `\n${line}\n`;
    let fd: number;
    try {
      fd = openSync(this.file, 'a');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      mkdirSync(path.dirname(this.file), { recursive: true });
      fd = openSync(this.file, 'a');
    }
    try {
      const before = versionOf(fstatSync(fd, { bigint: true }));
      // A write on a descriptor names no path when the disk is full: name the journal, so the user knows where.
      try {
        writeFileSync(fd, text);
      } catch (e) {
        rethrowDiskFull(this.file, e);
      }
      const known = seen.get(this.file);
      // Only a journal known up to this write stays known; otherwise the next read parses the file.
      if (known?.version === before) remember(this.file, { entries: [...known.entries, deepFreeze(JSON.parse(line) as JournalEntry)], version: versionOf(fstatSync(fd, { bigint: true })) });
      else seen.delete(this.file);
    } finally {
      closeSync(fd);
    }
  }

  async remove(): Promise<void> {
    seen.delete(this.file);
    await rm(this.file, { force: true });
  }

  /** To `attempts/<id>-a<n>.jsonl` beside it; a rename, so a crash leaves it in one place or the other. */
  async setAside(attemptIndex: number): Promise<void> {
    seen.delete(this.file);
    const dir = path.join(path.dirname(this.file), 'attempts');
    await mkdir(dir, { recursive: true });
    try {
      await rename(this.file, path.join(dir, `${path.basename(this.file, '.jsonl')}-a${attemptIndex}.jsonl`));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
}

export class MemoryJournal implements Journal {
  private entries: JournalEntry[] = [];
  async read() {
    return this.entries;
  }
  async append(entry: JournalEntry) {
    this.entries.push(entry);
  }
  async remove() {
    this.entries = [];
  }
  async setAside() {
    this.entries = [];
  }
}

export interface TurnRecord {
  step: number;
  model: ModelTurn;
  tools: Extract<JournalEntry, { kind: 'tool' }>[];
  env?: Extract<JournalEntry, { kind: 'env' }>;
}

/** A journal read as an episode. The first entry for a step wins: a late duplicate from a stalled worker is ignored. */
export interface Episode {
  seed?: Extract<JournalEntry, { kind: 'seed' }>;
  turns: TurnRecord[];
  verify?: Extract<JournalEntry, { kind: 'verify' }>;
  /** Session state after the last finished step. */
  state: unknown;
  /** Tries of this rollout's steps that ended in an error. */
  failedTries: number;
}

export function episodeOf(entries: readonly JournalEntry[]): Episode {
  let seed: Episode['seed'];
  let verify: Episode['verify'];
  const turns = new Map<number, TurnRecord>();
  const tools = new Map<string, Extract<JournalEntry, { kind: 'tool' }>>();
  let failedTries = 0;
  for (const e of entries) {
    if (e.kind === 'seed') seed ??= e;
    else if (e.kind === 'failed_try') failedTries++;
    else if (e.kind === 'verify') verify ??= e;
    else if (e.kind === 'model') {
      if (!turns.has(e.step)) turns.set(e.step, { step: e.step, model: e.turn, tools: [] });
    } else if (e.kind === 'tool') {
      const key = `${e.step}:${e.index}`;
      if (!tools.has(key)) tools.set(key, e);
    } else if (e.kind === 'env') {
      const turn = turns.get(e.step);
      if (turn && !turn.env) turn.env = e;
    }
  }
  const ordered = [...turns.values()].sort((a, b) => a.step - b.step);
  let state: unknown = seed?.state ?? null;
  for (const turn of ordered) {
    // Tool calls of a turn run in order; a gap means the later ones did not run yet.
    for (let index = 0; tools.has(`${turn.step}:${index}`); index++) turn.tools.push(tools.get(`${turn.step}:${index}`)!);
    const last = turn.tools.at(-1);
    if (last) state = last.state;
    if (turn.env) state = turn.env.state;
  }
  return { seed, turns: ordered, verify, state, failedTries };
}

/** The conversation after the task's input, by turn: the seed's items, then each turn's output and replies. */
export function historyTurns(episode: Episode, beforeStep = Infinity): { seed: ConversationItem[]; turns: ConversationItem[][] } {
  const turns: ConversationItem[][] = [];
  for (const t of episode.turns) {
    if (t.step >= beforeStep) break;
    turns.push([...t.model.output, ...t.tools.map((x) => x.item), ...(t.env?.items ?? [])]);
  }
  return { seed: [...(episode.seed?.items ?? [])], turns };
}

/** The conversation after the task's input: seed items, then each turn's output and replies. */
export function historyItems(episode: Episode, beforeStep = Infinity): ConversationItem[] {
  const { seed, turns } = historyTurns(episode, beforeStep);
  return [...seed, ...turns.flat()];
}

/** Usage summed over turns, as NeMo Gym's agent reports it for the whole episode. */
export function totalUsage(episode: Episode): Usage | null {
  const usages = episode.turns.map((t) => t.model.usage).filter((u): u is Usage => !!u);
  if (!usages.length) return null;
  const sum = (f: (u: Usage) => number) => usages.reduce((a, u) => a + f(u), 0);
  return { input_tokens: sum((u) => u.input_tokens), output_tokens: sum((u) => u.output_tokens), total_tokens: sum((u) => u.total_tokens) };
}

// Which run each client request id started, in one append-only file under the API's state folder (one process
// owns it), so a request sent again (after a timeout, or to a restarted API) finds its run instead of starting another.
import { createHash, hash, randomUUID } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { GymError } from '../errors';
import { canonicalJson } from '../gateway/canonical';
import { pidAlive } from '../util/process';
import { RunRequest } from './schemas';

/** What must match when a request id comes again: the body without the id itself. */
export function bodySha256(req: RunRequest): string {
  const { request_id: _id, ...settings } = req;
  return hash('sha256', canonicalJson(settings), 'hex');
}

export const LedgerEntry = z.object({
  request_id: z.string(),
  /** sha256 of the request body's canonical JSON (without its request_id): the same id must come with the same body. */
  body_sha256: z.string(),
  /** The body itself (it holds no secrets, only their variables' names), to start the run if the API died before it could. */
  request: RunRequest,
  run_id: z.string(),
  workflow_id: z.string(),
  run_dir: z.string(),
  created_at: z.string(),
  /** When its workflow was found started: an entry without it has a run still to start (after a restart, too). */
  started_at: z.string().optional(),
});
export type LedgerEntry = z.infer<typeof LedgerEntry>;

/** One line of the ledger: an id claimed, its run found started, or the id released (its run could not start). */
const LedgerRecord = z.union([
  z.strictObject({ claim: LedgerEntry }),
  z.strictObject({ start: z.object({ request_id: z.string(), started_at: z.string() }) }),
  z.strictObject({ release: z.object({ request_id: z.string() }) }),
]);
type LedgerRecord = z.infer<typeof LedgerRecord>;

export const LEDGER_FILE = 'ledger.jsonl';
const LOCK_FILE = 'ledger.lock';
/** The ledger of the versions before it: one `<sha256 of the id>.json` per id. */
const LEGACY_FILE = /^[0-9a-f]{64}\.json$/;

/** Folders whose ledger this process has open: a lock naming this pid and not listed is a former life's (pid 1 in a container). */
const openHere = new Set<string>();

interface Queued {
  line: string;
  done: () => void;
  fail: (e: GymError) => void;
}

function ioError(what: string, e: unknown): GymError {
  const code = (e as NodeJS.ErrnoException).code;
  return new GymError(code === 'ENOSPC' ? 'DISK_FULL' : 'INTERNAL', `${what}: ${code ?? (e as Error).message}`);
}

/**
 * The ledger's index lives in memory (its process owns the folder: a lock file names its pid). Claims are
 * group-committed: those made while a write is under way share the next write and fdatasync, and each resolves once
 * its line is on disk, so a burst of submissions costs a few writes instead of a file per id.
 */
export class RequestLedger {
  private readonly entries = new Map<string, LedgerEntry>();
  /** Claims written and not yet on disk, by request id: a claim of the same id waits for it. */
  private readonly pending = new Map<string, Promise<unknown>>();
  private queue: Queued[] = [];
  private flushing = false;
  /** Set once a write or sync failed: what is on disk is then unknown, so nothing more is claimed until a restart reads it. */
  private broken?: GymError;
  private closed = false;

  private constructor(
    private readonly dir: string,
    private readonly file: FileHandle,
  ) {}

  /**
   * Takes the folder's lock, reads its ledger into memory (a last line cut short by a crash mid-write was never
   * acknowledged: it is cut off) and folds in an older version's per-id files; the file is then rewritten with one
   * line per entry if any line was superseded (a start, a release) or cut short.
   */
  static async open(dir: string): Promise<RequestLedger> {
    const resolved = path.resolve(dir);
    mkdirSync(resolved, { recursive: true });
    takeLock(resolved);
    try {
      const ledgerPath = path.join(resolved, LEDGER_FILE);
      const { entries, records, torn } = readLedger(ledgerPath);
      const legacy = readLegacy(resolved).filter((e) => !entries.has(e.request_id));
      for (const e of legacy) entries.set(e.request_id, e);
      // Also when there is no file yet: made by rename, with the folder synced, its name is on disk too.
      if (records === undefined || torn || legacy.length || records > entries.size) rewrite(ledgerPath, entries.values());
      for (const e of legacy) unlinkSync(path.join(resolved, `${createHash('sha256').update(e.request_id).digest('hex')}.json`));
      const ledger = new RequestLedger(resolved, await open(ledgerPath, 'a'));
      for (const [id, e] of entries) ledger.entries.set(id, e);
      openHere.add(resolved);
      return ledger;
    } catch (e) {
      unlinkSync(path.join(resolved, LOCK_FILE));
      throw e;
    }
  }

  /** The id's entry once it is on disk. */
  read(requestId: string): LedgerEntry | undefined {
    return this.entries.get(requestId);
  }

  /** The entries whose run is not known to have started, oldest first. */
  unstarted(): LedgerEntry[] {
    return [...this.entries.values()].filter((e) => e.started_at === undefined).sort((a, b) => a.created_at.localeCompare(b.created_at));
  }

  /**
   * Records the entry unless the id already has one; resolves once the record is on disk (with the claims made
   * meanwhile: one write and one fdatasync for all). Answers the entry that holds the id.
   */
  async claim(entry: LedgerEntry): Promise<{ claimed: boolean; entry: LedgerEntry }> {
    const id = entry.request_id;
    for (;;) {
      const held = this.entries.get(id);
      if (held) return { claimed: false, entry: held };
      const other = this.pending.get(id);
      if (!other) break;
      // Settled either way, the id is held or free again.
      await other.catch(() => undefined);
    }
    const written = this.append({ claim: entry });
    this.pending.set(id, written);
    try {
      await written;
      this.entries.set(id, entry);
      return { claimed: true, entry };
    } finally {
      this.pending.delete(id);
    }
  }

  /** Records that the entry's run has started. */
  async markStarted(entry: LedgerEntry): Promise<void> {
    const startedAt = new Date().toISOString();
    await this.append({ start: { request_id: entry.request_id, started_at: startedAt } });
    const held = this.entries.get(entry.request_id);
    if (held?.run_id === entry.run_id) this.entries.set(entry.request_id, { ...held, started_at: startedAt });
  }

  /** Forgets an id whose run could not be started, so sending it again tries again. */
  async release(requestId: string): Promise<void> {
    // At once, not after the write: the id sent again meanwhile is claimed anew, its record after this one.
    this.entries.delete(requestId);
    await this.append({ release: { request_id: requestId } });
  }

  /** Waits for the writes under way, then closes the file and gives up the lock. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    while (this.flushing || this.queue.length) await new Promise((resolve) => setImmediate(resolve));
    await this.file.close();
    openHere.delete(this.dir);
    unlinkSync(path.join(this.dir, LOCK_FILE));
  }

  private append(record: LedgerRecord): Promise<void> {
    if (this.broken) return Promise.reject(this.broken);
    if (this.closed) return Promise.reject(new GymError('INTERNAL', `the request ledger in ${this.dir} is closed`));
    return new Promise<void>((done, fail) => {
      this.queue.push({ line: JSON.stringify(record) + '\n', done, fail });
      if (!this.flushing) {
        this.flushing = true;
        // After the current turn of the event loop: what the requests read in it claim goes in one write.
        setImmediate(() => void this.flush());
      }
    });
  }

  /** Writes what is queued, one write and one fdatasync per batch, until nothing is; a failure fails its batch and every later one. */
  private async flush(): Promise<void> {
    try {
      while (this.queue.length) {
        const batch = this.queue;
        this.queue = [];
        try {
          if (this.broken) throw this.broken;
          await this.file.appendFile(batch.map((q) => q.line).join(''));
          await this.file.datasync();
          for (const q of batch) q.done();
        } catch (e) {
          this.broken ??= e instanceof GymError ? e : ioError(`cannot write the request ledger ${path.join(this.dir, LEDGER_FILE)}; restart gym api serve once that is fixed`, e);
          for (const q of batch) q.fail(this.broken);
        }
      }
    } finally {
      this.flushing = false;
    }
  }
}

/**
 * Makes the lock file naming this process, whole (written aside, then hard-linked to its name); a lock whose
 * process is gone is taken over. Another live process's lock is refused: two processes' indexes would diverge.
 */
function takeLock(dir: string): void {
  const lock = path.join(dir, LOCK_FILE);
  const tmp = path.join(dir, `.${randomUUID()}.lock`);
  writeWhole(tmp, `${process.pid}\n`);
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(tmp, lock);
        return;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw e;
      }
      const holder = Number.parseInt(readFileSync(lock, 'utf8'), 10);
      const stale = holder === process.pid ? !openHere.has(dir) : !pidAlive(holder);
      if (!stale) {
        throw new GymError(
          'CONFLICT',
          `the request ledger in ${dir} is in use by process ${holder}${holder === process.pid ? ' (this one)' : ''}; give each gym api serve its own --state-dir (if no API runs on it, remove ${lock})`,
        );
      }
      unlinkSync(lock);
    }
  } finally {
    unlinkSync(tmp);
  }
}

function writeWhole(file: string, text: string): void {
  const fd = openSync(file, 'wx');
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * The entries of the ledger file, how many records it holds (undefined: no file), and whether its last line is
 * incomplete (a write cut short, never acknowledged: left out). A broken line elsewhere is refused.
 */
function readLedger(file: string): { entries: Map<string, LedgerEntry>; records?: number; torn?: boolean } {
  const entries = new Map<string, LedgerEntry>();
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { entries };
    throw ioError(`cannot read the request ledger ${file}`, e);
  }
  const end = text.lastIndexOf('\n') + 1;
  const lines = text.slice(0, end).split('\n').slice(0, -1);
  lines.forEach((line, i) => {
    let parsed;
    try {
      parsed = LedgerRecord.safeParse(JSON.parse(line));
    } catch (e) {
      throw new GymError('INTERNAL', `${file} line ${i + 1} is not a ledger record: ${(e as Error).message}`);
    }
    if (!parsed.success) throw new GymError('INTERNAL', `${file} line ${i + 1} is not a ledger record: ${parsed.error.issues[0]?.message}`);
    const record = parsed.data;
    if ('claim' in record) entries.set(record.claim.request_id, record.claim);
    else if ('start' in record) {
      const held = entries.get(record.start.request_id);
      if (held) entries.set(held.request_id, { ...held, started_at: record.start.started_at });
    } else entries.delete(record.release.request_id);
  });
  return { entries, records: lines.length, torn: end < text.length };
}

/** The per-id files of the ledger's earlier version. */
function readLegacy(dir: string): LedgerEntry[] {
  return readdirSync(dir)
    .filter((n) => LEGACY_FILE.test(n))
    .map((n) => {
      const file = path.join(dir, n);
      let parsed;
      try {
        parsed = LedgerEntry.safeParse(JSON.parse(readFileSync(file, 'utf8')));
      } catch (e) {
        throw new GymError('INTERNAL', `${file} is not a request record: ${(e as Error).message}`);
      }
      if (!parsed.success) throw new GymError('INTERNAL', `${file} is not a request record: ${parsed.error.issues[0]?.message}`);
      return parsed.data;
    });
}

/** Replaces the ledger with one claim per entry (its start folded in), written aside and renamed over it. */
function rewrite(file: string, entries: Iterable<LedgerEntry>): void {
  const tmp = `${file}.${randomUUID()}.tmp`;
  writeWhole(tmp, [...entries].map((claim) => JSON.stringify({ claim }) + '\n').join(''));
  renameSync(tmp, file);
  const dir = openSync(path.dirname(file), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}

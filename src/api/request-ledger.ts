// Which run each client request id started, in files under the API's state folder, so a request sent
// again (after a timeout, or to a restarted API) finds its run instead of starting another.
// A request's own reads and claim use the synchronous calls: on a local disk each is a few microseconds,
// where a call through the thread pool costs the event loop a hundred or more, and a burst of submissions
// is answered on one event loop.
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { GymError } from '../errors';
import { canonicalJson } from '../gateway/canonical';
import { RunRequest } from './schemas';

/** What must match when a request id comes again: the body without the id itself. */
export function bodySha256(req: RunRequest): string {
  const { request_id: _id, ...settings } = req;
  return createHash('sha256').update(canonicalJson(settings)).digest('hex');
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

export class RequestLedger {
  constructor(private readonly dir: string) {}

  private file(requestId: string): string {
    return path.join(this.dir, `${createHash('sha256').update(requestId).digest('hex')}.json`);
  }

  read(requestId: string): LedgerEntry | undefined {
    const file = this.file(requestId);
    // A new id, the usual case, costs a stat instead of a thrown ENOENT (whose stack is costly to make).
    if (!existsSync(file)) return undefined;
    let raw: string;
    try {
      raw = readFileSync(file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
    return this.parse(file, raw);
  }

  private parse(file: string, raw: string): LedgerEntry {
    let parsed;
    try {
      parsed = LedgerEntry.safeParse(JSON.parse(raw));
    } catch (e) {
      throw new GymError('INTERNAL', `${file} is not a request record: ${(e as Error).message}`);
    }
    if (!parsed.success) throw new GymError('INTERNAL', `${file} is not a request record: ${parsed.error.issues[0]?.message}`);
    return parsed.data;
  }

  /** The entries whose run is not known to have started, oldest first. */
  async unstarted(): Promise<LedgerEntry[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw e;
    }
    const files = names.filter((n) => /^[0-9a-f]{64}\.json$/.test(n)).map((n) => path.join(this.dir, n));
    const entries = await Promise.all(
      files.map((file) =>
        readFile(file, 'utf8').then(
          (raw) => this.parse(file, raw),
          (e: NodeJS.ErrnoException) => {
            // Released since the folder was listed.
            if (e.code === 'ENOENT') return undefined;
            throw e;
          },
        ),
      ),
    );
    return entries.filter((e): e is LedgerEntry => e !== undefined && e.started_at === undefined).sort((a, b) => a.created_at.localeCompare(b.created_at));
  }

  /** Records that the entry's run has started (replacing the file whole, so a reader sees the old or the new). */
  async markStarted(entry: LedgerEntry): Promise<void> {
    const tmp = path.join(this.dir, `.${randomUUID()}.tmp`);
    await writeFile(tmp, JSON.stringify({ ...entry, started_at: new Date().toISOString() }, null, 2) + '\n', { flag: 'wx' });
    await rename(tmp, this.file(entry.request_id));
  }

  /**
   * Records the entry unless the id already has one, atomically across processes: the entry is written
   * whole to a private file, then hard-linked to its name, which fails if another got there first.
   * Answers the entry that holds the id.
   */
  claim(entry: LedgerEntry): { claimed: boolean; entry: LedgerEntry } {
    const tmp = path.join(this.dir, `.${randomUUID()}.tmp`);
    const text = JSON.stringify(entry, null, 2) + '\n';
    try {
      writeFileSync(tmp, text, { flag: 'wx' });
    } catch (e) {
      // The folder is made by the first claim.
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      mkdirSync(this.dir, { recursive: true });
      writeFileSync(tmp, text, { flag: 'wx' });
    }
    try {
      linkSync(tmp, this.file(entry.request_id));
      return { claimed: true, entry };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      return { claimed: false, entry: this.read(entry.request_id)! };
    } finally {
      // unlink, not rm: rm's walk of what might be a folder costs more than the rest of a claim.
      unlinkSync(tmp);
    }
  }

  /** Forgets an id whose run could not be started, so sending it again tries again. */
  async release(requestId: string): Promise<void> {
    await rm(this.file(requestId), { force: true });
  }
}

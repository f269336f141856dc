// A rollout's journal in the object store: one object per entry, `work/<rollout id>/<seq>.json`, each written
// with a conditional put, so two workers appending at once never overwrite each other's entries (the later
// takes the next number). Objects never change once written: a read lists the keys and fetches only new ones.
import type { Journal, JournalEntry } from '../journal';
import type { ObjectStore } from './client';

/** Entries of journals this process read or wrote, by journal folder and then key: objects never change. */
const seen = new Map<string, Map<string, JournalEntry>>();
const SEEN_JOURNALS = 4096;

const SEQ_DIGITS = 6;
const seqName = (dir: string, seq: number) => `${dir}/${String(seq).padStart(SEQ_DIGITS, '0')}.json`;

function known(dir: string): Map<string, JournalEntry> {
  let entries = seen.get(dir);
  if (entries) seen.delete(dir);
  else entries = new Map();
  seen.set(dir, entries);
  if (seen.size > SEEN_JOURNALS) seen.delete(seen.keys().next().value!);
  return entries;
}

export class ObjectJournal implements Journal {
  /** The next entry number this process expects to be free. */
  private next = 0;

  constructor(
    private readonly store: ObjectStore,
    private readonly rolloutId: string,
  ) {}

  private get dir(): string {
    return `work/${this.rolloutId}`;
  }

  async read(): Promise<JournalEntry[]> {
    const names = await this.store.list(this.dir);
    const entries = known(this.dir);
    const missing = names.filter((n) => !entries.has(n));
    await Promise.all(
      missing.map(async (n) => {
        const text = await this.store.get(n);
        // Removed between the listing and the read: the rollout was recorded and its journal dropped.
        if (text !== undefined) entries.set(n, JSON.parse(text) as JournalEntry);
      }),
    );
    this.next = Math.max(this.next, names.length);
    return names.filter((n) => entries.has(n)).map((n) => entries.get(n)!);
  }

  async append(entry: JournalEntry): Promise<void> {
    const body = JSON.stringify(entry);
    for (;;) {
      const name = seqName(this.dir, this.next);
      if (await this.store.putIfAbsent(name, body)) {
        known(this.dir).set(name, JSON.parse(body) as JournalEntry);
        this.next++;
        return;
      }
      // Another worker wrote this number (a stalled attempt of the same rollout): take the one after the last.
      this.next = Math.max(this.next + 1, (await this.store.list(this.dir)).length);
    }
  }

  /**
   * The seed goes first: a journal cut short by a kill then has no seed, which tells the next try to look
   * for the rollout's record instead of playing on from a part of its episode.
   */
  async remove(): Promise<void> {
    const names = await this.store.list(this.dir);
    const entries = known(this.dir);
    const seed = names.find((n) => entries.get(n)?.kind === 'seed') ?? names[0];
    if (seed) await this.store.remove(seed);
    await Promise.all(names.filter((n) => n !== seed).map((n) => this.store.remove(n)));
    seen.delete(this.dir);
    this.next = 0;
  }

  /** Copies the entries to `work/attempts/<id>-a<n>/` (kept for the audit) and removes them here. */
  async setAside(attemptIndex: number): Promise<void> {
    const names = await this.store.list(this.dir);
    const aside = `work/attempts/${this.rolloutId}-a${attemptIndex}`;
    for (const n of names) {
      const text = await this.store.get(n);
      if (text !== undefined) await this.store.put(`${aside}/${n.slice(this.dir.length + 1)}`, text);
    }
    await Promise.all(names.map((n) => this.store.remove(n)));
    seen.delete(this.dir);
    this.next = 0;
  }
}

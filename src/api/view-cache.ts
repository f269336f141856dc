// The trigger API's memory of each run's last status: polls are answered from it at once, and one lookup
// per run at a time refreshes it in the background, so a poll's latency does not depend on Temporal's.
// A reading past maxStaleMs whose refresh failed is not served: the poll waits for a lookup, so an outage shows.

export interface ViewCacheOptions<V> {
  /** A reading younger than this is served without a lookup. */
  freshMs: number;
  /** The same for a run that has ended (its status changes only if it is resumed). */
  endedFreshMs: number;
  /**
   * A reading this old whose last refresh failed is not served: the poll waits for a lookup of its own, so an
   * outage shows as an error. One only slow to refresh (Temporal busy) is served, with the time it was read.
   */
  maxStaleMs: number;
  isEnded(view: V): boolean;
  /** Told of a background refresh that failed (the reading it was to replace is still served until maxStaleMs). */
  onRefreshError(key: string, error: unknown): void;
  /** Whether a lookup's error means the run is gone: its reading is then forgotten. */
  isGone(error: unknown): boolean;
  /** Background refreshes under way at most at once: a burst of stale readings is refreshed a few at a time. */
  maxRefreshing?: number;
  maxEntries?: number;
  now?: () => number;
}

interface Entry<V> {
  view?: Promise<V>;
  at: number;
  ended: boolean;
  pending?: Promise<V>;
  /** The last lookup failed. */
  failed: boolean;
}

export class ViewCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly now: () => number;
  private refreshing = 0;

  constructor(private readonly opts: ViewCacheOptions<V>) {
    this.now = opts.now ?? Date.now;
  }

  get(key: string, lookup: () => Promise<V>): Promise<V> {
    const entry = this.entries.get(key);
    if (!entry) return this.refresh(key, this.add(key), lookup);
    if (!entry.view) return entry.pending ?? this.refresh(key, entry, lookup);
    const age = this.now() - entry.at;
    if (age < (entry.ended ? this.opts.endedFreshMs : this.opts.freshMs)) return entry.view;
    if (age >= this.opts.maxStaleMs && entry.failed) return this.refresh(key, entry, lookup);
    if (!entry.pending && this.refreshing < (this.opts.maxRefreshing ?? 8)) {
      this.refreshing++;
      this.refresh(key, entry, lookup)
        .catch((e: unknown) => this.opts.onRefreshError(key, e))
        .finally(() => this.refreshing--);
    }
    return entry.view;
  }

  /** Records a reading made elsewhere (the run this process just started is running). */
  set(key: string, view: V): void {
    const entry = this.entries.get(key) ?? this.add(key);
    this.settle(entry, view);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  private add(key: string): Entry<V> {
    const entry: Entry<V> = { at: 0, ended: false, failed: false };
    this.entries.set(key, entry);
    const max = this.opts.maxEntries ?? 10_000;
    if (this.entries.size > max) this.entries.delete(this.entries.keys().next().value!);
    return entry;
  }

  private settle(entry: Entry<V>, view: V): void {
    entry.view = Promise.resolve(view);
    entry.failed = false;
    entry.at = this.now();
    entry.ended = this.opts.isEnded(view);
  }

  private refresh(key: string, entry: Entry<V>, lookup: () => Promise<V>): Promise<V> {
    if (entry.pending) return entry.pending;
    const pending = lookup().then(
      (view) => {
        if (entry.pending === pending) entry.pending = undefined;
        this.settle(entry, view);
        return view;
      },
      (e: unknown) => {
        if (entry.pending === pending) entry.pending = undefined;
        entry.failed = true;
        // A run nobody has read yet, or one that is gone, is not remembered: the next poll looks it up again.
        if ((!entry.view || this.opts.isGone(e)) && this.entries.get(key) === entry) this.entries.delete(key);
        throw e;
      },
    );
    entry.pending = pending;
    return pending;
  }
}

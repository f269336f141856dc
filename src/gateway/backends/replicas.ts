// The replicas of one upstream and which one serves a call: a rollout stays on the replica it started
// on (its prompt prefix is cached there) unless that replica stops taking connections, and the list
// follows an `endpoint_file` that a serving job rewrites when it moves, without a restart.
import { readFile, stat } from 'node:fs/promises';
import { hash32 } from '../../util/rng';
import type { Rotation } from '../spec';

/** Bounds the session → replica table; a session forgotten this way is placed again by hash, usually on the same replica. */
const MAX_SESSIONS = 100_000;

export interface Placement {
  /** Fixed replicas; with an endpoint file, the ones used until the file names any. */
  baseUrls: string[];
  endpointFile?: string;
}

/** Why no replica can be offered right now; the caller retries within its bounds, then reports it. */
export class NoEndpoint extends Error {}

export class Replicas {
  private urls: string[];
  private readonly dead = new Map<string, number>();
  private readonly sessions = new Map<string, string>();
  private roundRobin = 0;
  private fileMtime: number | undefined;
  private lastCheck = Number.NEGATIVE_INFINITY;
  private unpublishedSince: number | undefined;
  private fileProblem: string | undefined;

  constructor(
    private readonly placement: Placement,
    private readonly rotation: Rotation,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.urls = [...placement.baseUrls];
  }

  /** The replicas currently known (after the last look at the endpoint file). */
  get current(): readonly string[] {
    return this.urls;
  }

  /**
   * The replica for a call: the session's own while it is alive, else a live one chosen by rendezvous
   * hash (stable across gateway processes), or the next in turn for calls without a session.
   * `recheck` reads the endpoint file now, as after a failed connection.
   */
  async pick(session: string | undefined, recheck = false): Promise<string> {
    await this.refresh(recheck);
    if (this.urls.length === 0) {
      throw new NoEndpoint(`${this.placement.endpointFile} names no endpoint${this.fileProblem ? ` (${this.fileProblem})` : ''}`);
    }
    const now = this.now();
    let live = this.urls.filter((url) => (this.dead.get(url) ?? 0) <= now);
    // All refused lately: try them anyway rather than fail without a connection attempt.
    if (live.length === 0) live = this.urls;
    if (session === undefined) return live[this.roundRobin++ % live.length]!;
    const bound = this.sessions.get(session);
    if (bound !== undefined && live.includes(bound)) return bound;
    const chosen = live.reduce((best, url) => (hash32(`${session}\n${url}`) > hash32(`${session}\n${best}`) ? url : best));
    this.sessions.delete(session);
    this.sessions.set(session, chosen);
    if (this.sessions.size > MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
    return chosen;
  }

  /** A replica that refused or dropped a connection is passed over for `dead_for_ms`. */
  markDead(url: string): void {
    this.dead.set(url, this.now() + this.rotation.dead_for_ms);
  }

  private async refresh(recheck: boolean): Promise<void> {
    const file = this.placement.endpointFile;
    if (file === undefined) return;
    const now = this.now();
    if (!recheck && now - this.lastCheck < this.rotation.endpoint_check_ms) return this.checkGrace(now);
    this.lastCheck = now;
    let mtime: number;
    let text: string;
    try {
      mtime = (await stat(file)).mtimeMs;
      // An unchanged file is not read again (it is stat'ed at most every endpoint_check_ms), except after a
      // failed connection: a rewrite within the file system's mtime granularity must not go unseen then.
      if (!recheck && mtime === this.fileMtime && this.unpublishedSince === undefined) return;
      text = await readFile(file, 'utf8');
    } catch (e) {
      // Serving jobs remove the file while they rotate: keep the last endpoints until a successor publishes.
      return this.unpublished(now, (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'the file is missing' : (e as Error).message);
    }
    this.fileMtime = mtime;
    const named = text
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'));
    const bad = named.find((url) => !URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol));
    if (named.length === 0) return this.unpublished(now, 'the file is empty');
    if (bad !== undefined) return this.unpublished(now, `"${bad}" is not an http(s) URL`);
    this.unpublishedSince = undefined;
    this.fileProblem = undefined;
    const urls = named.map((url) => url.replace(/\/+$/, ''));
    if (urls.join('\n') === this.urls.join('\n')) return;
    this.urls = urls;
    // Sessions on a replica that is still listed stay there; the others are placed again.
    for (const [session, url] of this.sessions) if (!urls.includes(url)) this.sessions.delete(session);
    for (const url of this.dead.keys()) if (!urls.includes(url)) this.dead.delete(url);
  }

  private unpublished(now: number, problem: string): void {
    this.fileProblem = problem;
    this.unpublishedSince ??= now;
    this.checkGrace(now);
  }

  private checkGrace(now: number): void {
    if (this.unpublishedSince === undefined || now - this.unpublishedSince <= this.rotation.endpoint_stale_grace_ms) return;
    // Past the grace period the last endpoints are no longer trusted to be the published ones.
    this.urls = [];
  }
}

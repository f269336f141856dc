// Starts the runs the API has accepted, in the background and a few at a time, so a submission is answered
// once its request is recorded instead of after Temporal's start. A start that fails for a passing reason
// (Temporal busy or away) is tried again after a growing pause; one that cannot succeed is handed back.

export interface StartProblem {
  code: string;
  message: string;
}

export interface StartState {
  /** When the run was accepted. */
  since: string;
  attempts: number;
  /** Why the last attempt failed, when one has. */
  lastError?: StartProblem;
}

interface Job extends StartState {
  start: () => Promise<void>;
  failed: (e: unknown) => void;
  timer?: NodeJS.Timeout;
}

export interface RunStarterOptions {
  /** Starts under way at most at once. */
  concurrency: number;
  /** Whether an error means trying again cannot help: the run is handed to `failed` instead. */
  isPermanent(e: unknown): boolean;
  /** The error as the run's view tells it. */
  describe(e: unknown): StartProblem;
  onRetry(runId: string, e: unknown, inMs: number): void;
  /** Awaited before each attempt: starts give way to the submissions being answered. */
  whenQuiet?: () => Promise<void> | undefined;
  /** The pause before attempt n + 1 (default 1 s, doubling, at most 30 s). */
  retryMs?: (attempts: number) => number;
}

const defaultRetryMs = (attempts: number) => Math.min(30_000, 1000 * 2 ** (attempts - 1));

export class RunStarter {
  private readonly jobs = new Map<string, Job>();
  private readonly ready: string[] = [];
  private running = 0;

  constructor(private readonly opts: RunStarterOptions) {}

  /** The start of this run while it is under way or waiting. */
  state(runId: string): StartState | undefined {
    const job = this.jobs.get(runId);
    return job && { since: job.since, attempts: job.attempts, ...(job.lastError ? { lastError: job.lastError } : {}) };
  }

  /** Queues the run's start; a run already queued is left as it is. */
  enqueue(runId: string, start: () => Promise<void>, failed: (e: unknown) => void): void {
    if (this.jobs.has(runId)) return;
    this.jobs.set(runId, { since: new Date().toISOString(), attempts: 0, start, failed });
    this.ready.push(runId);
    this.pump();
  }

  /** Stops the pending retries (their requests are still in the ledger, and are started again after a restart). */
  close(): void {
    for (const job of this.jobs.values()) clearTimeout(job.timer);
    this.jobs.clear();
    this.ready.length = 0;
  }

  private pump(): void {
    while (this.running < this.opts.concurrency && this.ready.length) {
      const runId = this.ready.shift()!;
      const job = this.jobs.get(runId);
      if (!job) continue;
      this.running++;
      void this.attempt(runId, job).finally(() => {
        this.running--;
        this.pump();
      });
    }
  }

  private async attempt(runId: string, job: Job): Promise<void> {
    await this.opts.whenQuiet?.();
    if (this.jobs.get(runId) !== job) return;
    job.attempts++;
    try {
      await job.start();
      if (this.jobs.get(runId) === job) this.jobs.delete(runId);
    } catch (e) {
      if (this.jobs.get(runId) !== job) return;
      if (this.opts.isPermanent(e)) {
        this.jobs.delete(runId);
        job.failed(e);
        return;
      }
      job.lastError = this.opts.describe(e);
      const inMs = (this.opts.retryMs ?? defaultRetryMs)(job.attempts);
      this.opts.onRetry(runId, e, inMs);
      job.timer = setTimeout(() => {
        job.timer = undefined;
        if (this.jobs.get(runId) !== job) return;
        this.ready.push(runId);
        this.pump();
      }, inMs);
      job.timer.unref();
    }
  }
}

/**
 * Counts work under way (the submissions being answered) and tells when there has been none for settleMs,
 * waiting at most maxWaitMs so a steady stream of submissions cannot hold the starts back for good. The
 * settling matters in a burst: a submission is answered in well under a millisecond, so the count touches
 * zero between one request and the next many times before the burst is over.
 */
export class QuietGate {
  private busy = 0;
  private lastBusyAt = 0;
  private waiters: (() => void)[] = [];
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly maxWaitMs: number,
    private readonly settleMs = 20,
  ) {}

  async during<T>(work: () => Promise<T>): Promise<T> {
    this.busy++;
    try {
      return await work();
    } finally {
      this.lastBusyAt = performance.now();
      if (--this.busy === 0 && this.waiters.length) this.settle();
    }
  }

  whenQuiet(): Promise<void> | undefined {
    if (this.isQuiet()) return undefined;
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      setTimeout(resolve, this.maxWaitMs).unref();
      if (this.busy === 0) this.settle();
    });
  }

  private isQuiet(): boolean {
    return this.busy === 0 && performance.now() - this.lastBusyAt >= this.settleMs;
  }

  /** Wakes the waiters once the quiet has lasted settleMs. */
  private settle(): void {
    if (this.timer) return;
    const wait = Math.max(0, this.settleMs - (performance.now() - this.lastBusyAt));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.isQuiet()) for (const wake of this.waiters.splice(0)) wake();
      else if (this.busy === 0) this.settle();
    }, wait);
    this.timer.unref();
  }
}

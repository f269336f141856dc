// Following a run through a Temporal outage: which errors mean the server went away (rather than the
// run failing), and a bounded-backoff wait for it to answer again before a deadline.
import { setTimeout as sleep } from 'node:timers/promises';
import { isGrpcServiceError, WorkflowFailedError } from '@temporalio/client';
import { TemporalFailure } from '@temporalio/common';
import { GymError, isGymError } from '../errors';
import { numberFlag } from './args';

export const RECONNECT_USAGE = '  --reconnect-timeout S   how long to wait for a lost Temporal server before giving up (default 600; env GYMFLOW_RECONNECT_TIMEOUT)';

const DEFAULT_RECONNECT_TIMEOUT_S = 600;
// gRPC status codes (grpc/status.h) for a server that is down, unreachable, or too slow to answer.
const UNAVAILABLE = 14;
const DEADLINE_EXCEEDED = 4;
const NETWORK_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);

/** Milliseconds to wait for a lost server: the flag, else GYMFLOW_RECONNECT_TIMEOUT, else 600 s. */
export function reconnectTimeoutMs(values: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): number {
  if (values['reconnect-timeout'] !== undefined) return numberFlag(values, 'reconnect-timeout', { min: 0, max: 7 * 86_400 })! * 1000;
  const raw = env.GYMFLOW_RECONNECT_TIMEOUT;
  if (raw === undefined || raw === '') return DEFAULT_RECONNECT_TIMEOUT_S * 1000;
  const s = Number(raw);
  if (!Number.isFinite(s) || s < 0) throw new GymError('BAD_FLAG', `GYMFLOW_RECONNECT_TIMEOUT must be a number of seconds ≥ 0, got "${raw}"`);
  return s * 1000;
}

/** True when `e` says the Temporal server could not be reached, as opposed to a run or request that failed. */
export function isConnectionLoss(e: unknown): boolean {
  let x: unknown = e;
  for (let depth = 0; x instanceof Error && depth < 20; depth++, x = x.cause) {
    // A failure that travelled through Temporal is the run's own (a model endpoint refusing connections is one).
    if (x instanceof WorkflowFailedError || x instanceof TemporalFailure) return false;
    if (isGymError(x)) return x.code === 'UNREACHABLE';
    if (isGrpcServiceError(x)) return x.code === UNAVAILABLE || x.code === DEADLINE_EXCEEDED;
    const code = (x as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_ERRNO.has(code)) return true;
  }
  return false;
}

/** Waits 0.5 s, 1 s, 2 s, … up to 10 s between attempts. */
export function backoff(initialMs = 500, maxMs = 10_000): () => number {
  let next = initialMs;
  return () => {
    const d = next;
    next = Math.min(next * 2, maxMs);
    return d;
  };
}

/**
 * The CLI's hold on the Temporal server while it follows a run. After a connection-class failure,
 * `recover` says so once, retries its attempt with backoff until it works (and says so) or until the
 * deadline, which ends the command with UNREACHABLE and the resume hint.
 */
export class ServerLink {
  private lostAt: number | undefined;

  constructor(
    private readonly opts: {
      address: string;
      timeoutMs: number;
      runDir: string;
      say: (line: string) => void;
      /** Aborted on Ctrl-C: a wait in progress ends at once. */
      signal: AbortSignal;
      /** Called before each line, so a progress bar drawn in place is not overwritten. */
      beforeSay?: () => void;
    },
  ) {}

  get lost(): boolean {
    return this.lostAt !== undefined;
  }

  async recover<T>(attempt: () => Promise<T>): Promise<T> {
    const { say, address, timeoutMs, signal } = this.opts;
    if (this.lostAt === undefined) {
      this.lostAt = Date.now();
      this.opts.beforeSay?.();
      say(`lost the Temporal server at ${address}; reconnecting (the run is safe) …`);
    }
    const since = this.lostAt;
    const delay = backoff();
    for (;;) {
      signal.throwIfAborted();
      try {
        const value = await attempt();
        if (this.lostAt !== undefined) {
          this.lostAt = undefined;
          this.opts.beforeSay?.();
          say(`reconnected to the Temporal server at ${address} after ${Math.round((Date.now() - since) / 1000)} s`);
        }
        return value;
      } catch (e) {
        if (!isConnectionLoss(e)) throw e;
      }
      const left = since + timeoutMs - Date.now();
      if (left <= 0) throw this.unreachable();
      await sleep(Math.min(delay(), left), undefined, { signal });
    }
  }

  private unreachable(): GymError {
    const s = Math.round(this.opts.timeoutMs / 1000);
    return new GymError(
      'UNREACHABLE',
      `lost the Temporal server at ${this.opts.address}, and it did not come back within ${s} s (--reconnect-timeout); the run is kept in Temporal: ` +
        `continue it with \`gym eval resume ${this.opts.runDir}\` once the server is back`,
    );
  }
}

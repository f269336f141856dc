// Retries inside an activity, for work the workflow does not retry step by step: bounded exponential
// backoff on retryable codes, then a sidecar description of the failure. A run-stopping failure
// (the disk is full) is thrown, not described, so the whole run stops with it.
import { setTimeout as sleep } from 'node:timers/promises';
import { failureClassOf, RUN_STOPPING_TYPES, STAGE_CODE, type RolloutStage } from '../src/errors';
import { retryAfterOf } from '../src/gateway/errors';
import type { FailureClass } from '../src/schemas/records';
import type { RetrySettings } from '../workflows/definitions';
import { stageError } from './envelope';

/** A rollout's failure as the sidecar records it. */
export interface FailureDescription {
  failureClass: FailureClass;
  message: string;
  stage: RolloutStage;
  attempt: number;
}

export type Retried<T> = { ok: true; value: T } | { ok: false; failure: FailureDescription };

/**
 * The longest Retry-After obeyed: an upstream asking for hours would otherwise hold a rollout (and
 * the run) that long; past it the retry goes ahead and meets the upstream's answer again.
 */
export const RETRY_AFTER_CAP_MS = 120_000;

/** The wait before the next attempt: the backoff, or longer when the upstream asked for longer (up to the cap). */
export function backoffMs(retry: RetrySettings, attempt: number, retryAfterMs?: number): number {
  const backoff = Math.min(retry.maximumIntervalMs, retry.initialIntervalMs * 2 ** (attempt - 1));
  return Math.max(backoff, Math.min(retryAfterMs ?? 0, RETRY_AFTER_CAP_MS));
}

export async function retrying<T>(retry: RetrySettings, signal: AbortSignal, stage: () => RolloutStage, run: () => Promise<T>): Promise<Retried<T>> {
  for (let attempt = 1; ; attempt++) {
    try {
      return { ok: true, value: await run() };
    } catch (e) {
      if (signal.aborted) throw e;
      const err = stageError(stage(), e);
      if (RUN_STOPPING_TYPES.includes(err.code)) throw err;
      if (err.retryable && attempt < retry.maximumAttempts) {
        await sleep(backoffMs(retry, attempt, retryAfterOf(err)), undefined, { signal });
        continue;
      }
      return {
        ok: false,
        failure: {
          failureClass: failureClassOf(err.code) ?? failureClassOf(STAGE_CODE[err.stage]) ?? 'internal',
          message: err.message,
          stage: err.stage,
          attempt,
        },
      };
    }
  }
}

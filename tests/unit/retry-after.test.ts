// An upstream's Retry-After: read from its headers, carried on the error, and obeyed (up to a cap) by
// the in-activity retries. The fault matrix checks the same end to end against a fake upstream.
import { describe, expect, it } from 'vitest';
import { backoffMs, RETRY_AFTER_CAP_MS, retrying } from '../../activities/step-retry';
import { GymError } from '../../src/errors';
import { retryAfterMs, retryAfterOf, withRetryAfter } from '../../src/gateway/errors';
import { DEFAULT_RETRY } from '../../workflows/definitions';

const headers = (h: Record<string, string>) => new Headers(h);

describe('retryAfterMs', () => {
  it('reads seconds, an HTTP date and retry-after-ms, and nothing from garbage', () => {
    expect(retryAfterMs(headers({ 'retry-after': '2' }))).toBe(2000);
    expect(retryAfterMs(headers({ 'retry-after': '0.5' }))).toBe(500);
    expect(retryAfterMs(headers({ 'retry-after-ms': '750', 'retry-after': '9' }))).toBe(750);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs(headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }), now)).toBe(3000);
    expect(retryAfterMs(headers({ 'retry-after': 'Wed, 31 Dec 2025 23:00:00 GMT' }), now)).toBe(0);
    expect(retryAfterMs(headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(retryAfterMs(headers({}))).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
  });
});

describe('backoffMs', () => {
  const retry = { ...DEFAULT_RETRY, initialIntervalMs: 200, maximumIntervalMs: 1000 };
  it('waits the longer of the backoff and the Retry-After, never past the cap', () => {
    expect(backoffMs(retry, 1)).toBe(200);
    expect(backoffMs(retry, 1, 2000)).toBe(2000);
    expect(backoffMs(retry, 4, 100)).toBe(1000);
    expect(backoffMs(retry, 1, 10 * RETRY_AFTER_CAP_MS)).toBe(RETRY_AFTER_CAP_MS);
  });
});

describe('retrying', () => {
  it('sleeps out the Retry-After carried by the error before the next attempt', async () => {
    const retry = { ...DEFAULT_RETRY, initialIntervalMs: 1, maximumIntervalMs: 1, maximumAttempts: 2 };
    const at: number[] = [];
    const result = await retrying(
      retry,
      new AbortController().signal,
      () => 'model',
      async () => {
        at.push(Date.now());
        if (at.length === 1) throw withRetryAfter(new GymError('MODEL_ERROR', 'rate limited'), 300);
        return 'ok';
      },
    );
    expect(result).toEqual({ ok: true, value: 'ok' });
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(299);
  });

  it('keeps the hint through re-stamping, and ignores a malformed one', () => {
    expect(retryAfterOf(withRetryAfter(new Error('x'), 5))).toBe(5);
    expect(retryAfterOf(withRetryAfter(new Error('x'), undefined))).toBeUndefined();
    expect(retryAfterOf(Object.assign(new Error('x'), { retryAfterMs: -1 }))).toBeUndefined();
  });
});

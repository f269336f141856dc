// How a step that keeps failing becomes a sidecar entry: retried with backoff while its code allows,
// then described by the class its code (or, without one, its stage) stands for, with the attempt it
// stopped on and whether a retry could fix it (NeMo Gym's terminal flag); a failure class may have its
// own attempts. A full disk is not a rollout failure: it is thrown, so the run stops.
import { describe, expect, it } from 'vitest';
import { backoffMs, classRetry, retrying } from '../../activities/step-retry';
import { JudgeError } from '../../src/environments/types';
import { GymError } from '../../src/errors';

const retry = { maximumAttempts: 3, initialIntervalMs: 1, maximumIntervalMs: 2, heartbeatTimeoutMs: 1000 };
const signal = new AbortController().signal;

function failing(errors: unknown[]) {
  let calls = 0;
  return { run: async () => Promise.reject(errors[Math.min(calls++, errors.length - 1)]), calls: () => calls };
}

describe('failure classification', () => {
  it('retries a retryable error up to the attempt limit and keeps the attempt', async () => {
    const f = failing([new GymError('MODEL_ERROR', 'HTTP 502')]);
    expect(await retrying(retry, signal, () => 'model', f.run)).toEqual({ ok: false, failure: { failureClass: 'model_error', message: 'HTTP 502', stage: 'model', attempt: 3, terminal: false } });
    expect(f.calls()).toBe(3);
  });

  it('never retries a bad task or a refused request, and marks them terminal', async () => {
    const bad = failing([new GymError('BAD_TASK', 'no field')]);
    expect(await retrying(retry, signal, () => 'seed', bad.run)).toMatchObject({ ok: false, failure: { failureClass: 'bad_task', attempt: 1, terminal: true } });
    const refused = failing([new GymError('MODEL_REJECTED', 'HTTP 400')]);
    expect(await retrying(retry, signal, () => 'model', refused.run)).toMatchObject({ ok: false, failure: { failureClass: 'model_error', attempt: 1, terminal: true } });
  });

  it("gives a failure class its own attempts, leaving the other classes the run's", async () => {
    const byClass = { ...retry, byClass: { timeout: { maximumAttempts: 5 }, tool_error: { maximumAttempts: 1 } } };
    const timeout = failing([new GymError('TIMEOUT', 'no answer')]);
    expect(await retrying(byClass, signal, () => 'model', timeout.run)).toMatchObject({ ok: false, failure: { failureClass: 'timeout', attempt: 5 } });
    expect(timeout.calls()).toBe(5);
    const tool = failing([new GymError('TOOL_ERROR', 'tool down')]);
    expect(await retrying(byClass, signal, () => 'tool', tool.run)).toMatchObject({ ok: false, failure: { failureClass: 'tool_error', attempt: 1 } });
    const model = failing([new GymError('MODEL_ERROR', 'HTTP 502')]);
    expect(await retrying(byClass, signal, () => 'model', model.run)).toMatchObject({ ok: false, failure: { failureClass: 'model_error', attempt: 3 } });
  });

  it('bounds each class backoff by its own maximum interval', () => {
    const settings = classRetry({ ...retry, initialIntervalMs: 100, maximumIntervalMs: 1000, byClass: { model_error: { initialIntervalMs: 2000, maximumIntervalMs: 5000 } } }, 'model_error');
    expect([1, 2, 3, 4].map((a) => backoffMs(settings, a))).toEqual([2000, 4000, 5000, 5000]);
    expect(backoffMs(classRetry({ ...retry, initialIntervalMs: 100, maximumIntervalMs: 1000 }, 'timeout'), 5)).toBe(1000);
  });

  it('classifies by the code first, then by the stage', async () => {
    const judge = failing([new JudgeError('judge unreachable')]);
    expect(await retrying(retry, signal, () => 'verify', judge.run)).toMatchObject({ ok: false, failure: { failureClass: 'judge_failed', stage: 'verify' } });
    const plain = failing([new Error('boom')]);
    expect(await retrying(retry, signal, () => 'tool', plain.run)).toMatchObject({ ok: false, failure: { failureClass: 'tool_error', message: 'boom' } });
    const timeout = failing([new GymError('TIMEOUT', 'no answer in 120 s')]);
    expect(await retrying(retry, signal, () => 'model', timeout.run)).toMatchObject({ ok: false, failure: { failureClass: 'timeout' } });
  });

  it('succeeds once a retry works', async () => {
    let calls = 0;
    const run = async () => (++calls < 2 ? Promise.reject(new GymError('MODEL_ERROR', 'HTTP 503')) : 'ok');
    expect(await retrying(retry, signal, () => 'model', run)).toEqual({ ok: true, value: 'ok' });
  });

  it('throws a full disk instead of describing it', async () => {
    const full = failing([Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC', path: '/r/rollouts.jsonl' })]);
    await expect(retrying(retry, signal, () => 'record', full.run)).rejects.toMatchObject({ code: 'DISK_FULL' });
  });
});

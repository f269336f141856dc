// How a step that keeps failing becomes a sidecar entry: retried with backoff while its code allows,
// then described by the class its code (or, without one, its stage) stands for, with the attempt it
// stopped on. A full disk is not a rollout failure: it is thrown, so the run stops.
import { describe, expect, it } from 'vitest';
import { retrying } from '../../activities/step-retry';
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
    expect(await retrying(retry, signal, () => 'model', f.run)).toEqual({ ok: false, failure: { failureClass: 'model_error', message: 'HTTP 502', stage: 'model', attempt: 3 } });
    expect(f.calls()).toBe(3);
  });

  it('never retries a bad task or a refused request', async () => {
    const bad = failing([new GymError('BAD_TASK', 'no field')]);
    expect(await retrying(retry, signal, () => 'seed', bad.run)).toMatchObject({ ok: false, failure: { failureClass: 'bad_task', attempt: 1 } });
    const refused = failing([new GymError('MODEL_REJECTED', 'HTTP 400')]);
    expect(await retrying(retry, signal, () => 'model', refused.run)).toMatchObject({ ok: false, failure: { failureClass: 'model_error', attempt: 1 } });
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

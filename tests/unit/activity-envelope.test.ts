// The activity envelope, run in Temporal's MockActivityEnvironment: it heartbeats while the body
// works, and turns errors into ApplicationFailures whose type is the error code and that carry the
// stage and attempt; codes a retry cannot fix are marked non-retryable.
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { inStage, runActivity } from '../../activities/envelope';
import { modelFailureCode } from '../../activities/model-client';
import { JudgeError } from '../../src/environments/types';
import { GymError } from '../../src/errors';

describe('runActivity', () => {
  it('heartbeats while the body runs', async () => {
    const env = new MockActivityEnvironment({ heartbeatTimeoutMs: 300 });
    let beats = 0;
    env.on('heartbeat', () => beats++);
    await env.run(() => runActivity(() => new Promise((r) => setTimeout(() => r('done'), 450))));
    expect(beats).toBeGreaterThanOrEqual(3);
  });

  it('reports the code, stage and attempt, and never retries a bad task', async () => {
    const env = new MockActivityEnvironment({ attempt: 2 });
    const retryable = await env.run(() => runActivity(() => inStage('model', () => Promise.reject(new Error('socket hang up'))))).catch((e) => e);
    expect(retryable).toBeInstanceOf(ApplicationFailure);
    expect(retryable).toMatchObject({ type: 'MODEL_ERROR', message: 'socket hang up', nonRetryable: false, details: [{ attempt: 2, stage: 'model' }] });
    const bad = await env.run(() => runActivity(() => inStage('seed', () => Promise.reject(new GymError('BAD_TASK', 'missing field'))))).catch((e) => e);
    expect(bad).toMatchObject({ type: 'BAD_TASK', nonRetryable: true, details: [{ stage: 'seed' }] });
    const judge = await env.run(() => runActivity(() => inStage('verify', () => Promise.reject(new JudgeError('no verdict'))))).catch((e) => e);
    expect(judge).toMatchObject({ type: 'JUDGE_FAILED', nonRetryable: false });
    const full = await env.run(() => runActivity(() => inStage('record', () => Promise.reject(Object.assign(new Error('no space'), { code: 'ENOSPC', path: '/x/rollouts.jsonl' }))))).catch((e) => e);
    expect(full).toMatchObject({ type: 'DISK_FULL', nonRetryable: true });
    expect((full as Error).message).toContain('disk full at /x/rollouts.jsonl');
  });
});

describe('model call failures', () => {
  it('are never retried when the upstream refused the request, and time-outs are their own class', () => {
    expect(modelFailureCode(400)).toBe('MODEL_REJECTED');
    expect(modelFailureCode(401)).toBe('MODEL_REJECTED');
    expect(modelFailureCode(404)).toBe('MODEL_REJECTED');
    expect(modelFailureCode(429)).toBe('MODEL_ERROR');
    expect(modelFailureCode(409)).toBe('MODEL_ERROR');
    expect(modelFailureCode(408)).toBe('TIMEOUT');
    expect(modelFailureCode(504)).toBe('TIMEOUT');
    expect(modelFailureCode(503)).toBe('MODEL_ERROR');
  });
});

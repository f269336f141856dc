// The activity envelope, run in Temporal's MockActivityEnvironment: it heartbeats while the body
// works, and turns errors into ApplicationFailures that carry their type and attempt.
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { BadTask, ModelCallError, runActivity } from '../../activities/envelope';

describe('runActivity', () => {
  it('heartbeats while the body runs', async () => {
    const env = new MockActivityEnvironment({ heartbeatTimeoutMs: 300 });
    let beats = 0;
    env.on('heartbeat', () => beats++);
    await env.run(() => runActivity(() => new Promise((r) => setTimeout(() => r('done'), 450))));
    expect(beats).toBeGreaterThanOrEqual(3);
  });

  it('reports the error type and the attempt, and never retries a bad task', async () => {
    const env = new MockActivityEnvironment({ attempt: 2 });
    const retryable = await env.run(() => runActivity(() => Promise.reject(new ModelCallError('HTTP 502')))).catch((e) => e);
    expect(retryable).toBeInstanceOf(ApplicationFailure);
    expect(retryable).toMatchObject({ type: 'ModelCallError', message: 'HTTP 502', nonRetryable: false, details: [{ attempt: 2 }] });
    const bad = await env.run(() => runActivity(() => Promise.reject(new BadTask('missing field')))).catch((e) => e);
    expect(bad).toMatchObject({ type: 'BadTask', nonRetryable: true });
  });
});

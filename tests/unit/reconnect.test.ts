// Telling a lost Temporal server from a failed run, the reconnect deadline's settings, and the
// wait itself: said once, retried with backoff, ended at the deadline with the resume hint.
import { ServiceError, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, RetryState } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { GymError } from '../../src/errors';
import { backoff, isConnectionLoss, reconnectTimeoutMs, ServerLink } from '../../src/cli/reconnect';

/** The shape @grpc/grpc-js gives a failed call (what `isGrpcServiceError` recognises). */
const grpcError = (code: number, details: string) => Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {} });

describe('isConnectionLoss', () => {
  it('is true for the client errors of a server that went away', () => {
    expect(isConnectionLoss(new ServiceError('Failed to get Workflow execution history', { cause: grpcError(14, 'No connection established. Last error: connect ECONNREFUSED') }))).toBe(true);
    expect(isConnectionLoss(new ServiceError('Failed to query Workflow', { cause: grpcError(4, 'Deadline exceeded') }))).toBe(true);
    expect(isConnectionLoss(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:7233'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isConnectionLoss(new GymError('UNREACHABLE', 'cannot connect to Temporal at 127.0.0.1:7233'))).toBe(true);
  });

  it('is false for a run that failed, a refused request, or a bug', () => {
    const refusedEndpoint = ApplicationFailure.create({ type: 'ModelCallError', message: 'connect ECONNREFUSED 127.0.0.1:9' });
    expect(isConnectionLoss(new WorkflowFailedError('Workflow execution failed', refusedEndpoint, RetryState.NON_RETRYABLE_FAILURE))).toBe(false);
    expect(isConnectionLoss(new ServiceError('Failed to start Workflow', { cause: grpcError(3, 'invalid argument') }))).toBe(false);
    expect(isConnectionLoss(new GymError('BAD_FLAG', 'nope'))).toBe(false);
    expect(isConnectionLoss(new TypeError('x is undefined'))).toBe(false);
  });
});

describe('reconnectTimeoutMs', () => {
  it('takes the flag, else the environment, else 600 s', () => {
    expect(reconnectTimeoutMs({ 'reconnect-timeout': '5' }, { GYMFLOW_RECONNECT_TIMEOUT: '90' })).toBe(5000);
    expect(reconnectTimeoutMs({}, { GYMFLOW_RECONNECT_TIMEOUT: '90' })).toBe(90_000);
    expect(reconnectTimeoutMs({}, {})).toBe(600_000);
  });

  it('names the flag or variable it refuses', () => {
    expect(() => reconnectTimeoutMs({ 'reconnect-timeout': 'soon' }, {})).toThrow(/--reconnect-timeout must be a number/);
    expect(() => reconnectTimeoutMs({}, { GYMFLOW_RECONNECT_TIMEOUT: '-1' })).toThrow(/GYMFLOW_RECONNECT_TIMEOUT must be a number of seconds/);
  });
});

describe('backoff', () => {
  it('doubles from 0.5 s and stays at 10 s', () => {
    const next = backoff();
    expect(Array.from({ length: 7 }, next)).toEqual([500, 1000, 2000, 4000, 8000, 10_000, 10_000]);
  });
});

describe('ServerLink.recover', () => {
  const lost = () => new ServiceError('Failed to get Workflow execution history', { cause: grpcError(14, 'unavailable') });

  it('says it lost the server once, retries, and says when it is back', async () => {
    const lines: string[] = [];
    const link = new ServerLink({ address: '127.0.0.1:7233', timeoutMs: 60_000, runDir: '/runs/a', say: (l) => lines.push(l), signal: new AbortController().signal });
    let calls = 0;
    const value = await link.recover(async () => {
      if (++calls < 3) throw lost();
      return 'ok';
    });
    expect(value).toBe('ok');
    expect(calls).toBe(3);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe('lost the Temporal server at 127.0.0.1:7233; reconnecting (the run is safe) …');
    expect(lines[1]).toMatch(/^reconnected to the Temporal server at 127\.0\.0\.1:7233/);
    expect(link.lost).toBe(false);
  });

  it('gives up at the deadline with UNREACHABLE and the resume hint', async () => {
    const link = new ServerLink({ address: '127.0.0.1:7233', timeoutMs: 1200, runDir: '/runs/a', say: () => {}, signal: new AbortController().signal });
    const err = await link.recover(() => Promise.reject(lost())).catch((e) => e);
    expect(err).toBeInstanceOf(GymError);
    expect(err.code).toBe('UNREACHABLE');
    expect(err.message).toMatch(/gym eval resume \/runs\/a/);
  });

  it('passes on an error that is not a lost server', async () => {
    const link = new ServerLink({ address: 'a:1', timeoutMs: 60_000, runDir: '/r', say: () => {}, signal: new AbortController().signal });
    await expect(link.recover(() => Promise.reject(new TypeError('bug')))).rejects.toThrow('bug');
  });
});

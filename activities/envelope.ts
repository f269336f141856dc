// What every activity body runs inside: a heartbeat while it works (so a killed worker's activities
// are retried elsewhere within the heartbeat timeout, not after the long start-to-close timeout),
// and failures reported as an ApplicationFailure whose type names the cause (BadTask is never
// retried) and whose details carry the attempt, for the sidecar record.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';

export class BadTask extends Error {
  override name = 'BadTask';
}

export class ModelCallError extends Error {
  override name = 'ModelCallError';
}

export async function runActivity<T>(fn: () => Promise<T>): Promise<T> {
  const ctx = Context.current();
  const timeoutMs = ctx.info.heartbeatTimeoutMs;
  const beat = timeoutMs ? setInterval(() => ctx.heartbeat(), Math.max(100, timeoutMs / 3)) : undefined;
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ApplicationFailure) throw err;
    const e = err instanceof Error ? err : new Error(String(err));
    throw ApplicationFailure.create({
      type: e.name,
      message: e.message,
      nonRetryable: e instanceof BadTask,
      details: [{ attempt: ctx.info.attempt }],
      cause: e,
    });
  } finally {
    clearInterval(beat);
  }
}

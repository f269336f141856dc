// How activities report failures to the workflow: an ApplicationFailure whose type names the cause
// (BadTask is never retried) and whose details carry the attempt, for the sidecar record.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';

export class BadTask extends Error {
  override name = 'BadTask';
}

export class ModelCallError extends Error {
  override name = 'ModelCallError';
}

export async function reportingFailures<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ApplicationFailure) throw err;
    const e = err instanceof Error ? err : new Error(String(err));
    throw ApplicationFailure.create({
      type: e.name,
      message: e.message,
      nonRetryable: e instanceof BadTask,
      details: [{ attempt: Context.current().info.attempt }],
      cause: e,
    });
  }
}

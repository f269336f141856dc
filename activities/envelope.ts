// What every activity body runs inside: a heartbeat while it works (so a killed worker's activity is
// retried elsewhere within the heartbeat timeout), and errors turned into Temporal failures whose type
// is the GymError code — non-retryable codes are never retried — with the stage and attempt as details.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { JudgeError } from '../src/environments/types';
import { GymError, STAGE_CODE, isGymError, type RolloutStage } from '../src/errors';

export interface FailureDetail {
  stage?: RolloutStage;
  attempt: number;
}

/** Runs one stage of a rollout; an error without a code of its own gets the stage's code. */
export async function inStage<T>(stage: RolloutStage, fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw stageError(stage, e);
  }
}

export function stageError(stage: RolloutStage, e: unknown): GymError & { stage: RolloutStage } {
  const stamped = (err: GymError) => Object.assign(err, { stage: (err as { stage?: RolloutStage }).stage ?? stage });
  if (isGymError(e)) return stamped(e);
  if (e instanceof JudgeError) return stamped(new GymError('JUDGE_FAILED', e.message));
  const err = e instanceof Error ? e : new Error(String(e));
  if ((err as NodeJS.ErrnoException).code === 'ENOSPC') return stamped(new GymError('DISK_FULL', `disk full at ${(err as NodeJS.ErrnoException).path ?? 'the run folder'}: ${err.message}`));
  return stamped(new GymError(STAGE_CODE[stage], `${err.name === 'Error' ? '' : `${err.name}: `}${err.message}`));
}

export function toApplicationFailure(e: unknown, attempt: number): ApplicationFailure {
  if (e instanceof ApplicationFailure) return e;
  const err = isGymError(e) ? e : new GymError('INTERNAL', e instanceof Error ? e.message : String(e));
  const detail: FailureDetail = { stage: (err as { stage?: RolloutStage }).stage, attempt };
  return ApplicationFailure.create({
    type: err.code,
    message: [err.message, ...(err.details ?? [])].join('\n'),
    nonRetryable: !err.retryable,
    details: [detail],
    cause: e instanceof Error ? e : undefined,
  });
}

export async function runActivity<T>(fn: () => Promise<T>): Promise<T> {
  const ctx = Context.current();
  const timeoutMs = ctx.info.isLocal ? undefined : ctx.info.heartbeatTimeoutMs;
  const beat = timeoutMs ? setInterval(() => ctx.heartbeat(), Math.max(100, timeoutMs / 3)) : undefined;
  try {
    return await fn();
  } catch (err) {
    throw toApplicationFailure(err, ctx.info.attempt);
  } finally {
    clearInterval(beat);
  }
}

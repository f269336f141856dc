// Why a run's workflow failed, in the user's terms: the cause chain Temporal hands back (workflow →
// child workflow → activity → application failure) reduced to the one message that says what broke.
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, TemporalFailure } from '@temporalio/common';
import { ERROR_CODES, GymError, type ErrorCode } from '../errors';

/** 'DISK_FULL' and 'DiskFull' both name the GymError code DISK_FULL. */
function errorCode(type: string | undefined | null): ErrorCode | undefined {
  const code = (type ?? '').replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
  return code in ERROR_CODES ? (code as ErrorCode) : undefined;
}

function causeChain(e: unknown): Error[] {
  const chain: Error[] = [];
  for (let x: unknown = e; x instanceof Error && chain.length < 50; x = x.cause) chain.push(x);
  return chain;
}

/**
 * A GymError for a run that ended in failure, or undefined when `e` is not a run's failure. The message
 * is the deepest ApplicationFailure's, preferring one whose type is a GymError code (an activity wraps
 * the original error, whose own type is only "Error"), and its exit status is that code's.
 */
export function runFailureError(e: unknown, runDir: string): GymError | undefined {
  if (!(e instanceof WorkflowFailedError)) return undefined;
  const chain = causeChain(e);
  const failures = chain.filter((x): x is ApplicationFailure => x instanceof ApplicationFailure);
  const coded = failures.filter((f) => errorCode(f.type)).at(-1);
  const innermost = coded ?? failures.at(-1) ?? chain.filter((x) => x instanceof TemporalFailure).at(-1) ?? e;
  const type = innermost instanceof ApplicationFailure ? innermost.type : undefined;
  // An activity that let a raw ENOSPC escape says so only in its message.
  const code = errorCode(type) ?? (/\bENOSPC\b/.test(innermost.message) ? 'DISK_FULL' : 'RUN_FAILED');
  return new GymError(code, `the run failed: ${innermost.message}${type ? ` (${type})` : ''}`, [
    `rollouts recorded so far are kept; once the cause is fixed, continue with \`gym eval resume ${runDir}\``,
  ]);
}

// One error type for the whole product: a stable code that the CLI maps to an exit status, that
// activities turn into Temporal's failure type (retryable or not), and that names a rollout's failure class.
import type { FailureClass } from './schemas/records';

/** Exit status of the `gym` command per code. */
export const ERROR_CODES = {
  BAD_FLAG: 2,
  BAD_INPUT: 3,
  NOT_FOUND: 4,
  UNREACHABLE: 5,
  CONFLICT: 6,
  SETUP_FAILED: 7,
  RUN_FAILED: 8,
  // A run that finished with less coverage than --min-coverage asks for; its files are written.
  INCOMPLETE: 9,
  DISK_FULL: 10,
  INTERNAL: 1,
  // A rollout's own failures: they end up in failures.jsonl, and exit with RUN_FAILED if they surface.
  BAD_TASK: 8,
  MODEL_ERROR: 8,
  MODEL_REJECTED: 8,
  TIMEOUT: 8,
  TOOL_ERROR: 8,
  ENV_ERROR: 8,
  VERIFY_ERROR: 8,
  JUDGE_FAILED: 8,
  /** A task's (or a model's) regex ran past its deadline: the same pattern on the same text would again. */
  REGEX_TIMEOUT: 8,
  /** A rollout reached its cap on model calls or generated tokens (a runaway loop): retrying it runs into the same cap. */
  CAP_EXCEEDED: 8,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * Codes a retry cannot fix: bad input or task, and an upstream that refused the request (4xx other
 * than 408/409/429). Temporal is told never to retry them.
 */
const NON_RETRYABLE = new Set<ErrorCode>(['BAD_FLAG', 'BAD_INPUT', 'NOT_FOUND', 'CONFLICT', 'SETUP_FAILED', 'BAD_TASK', 'MODEL_REJECTED', 'DISK_FULL', 'REGEX_TIMEOUT', 'CAP_EXCEEDED']);

/**
 * Codes that stop the whole run instead of one rollout: with the disk full even the sidecar cannot be
 * written, so the run fails with a clear error and resumes once there is space.
 */
export const RUN_STOPPING_TYPES: readonly string[] = ['DISK_FULL'];

/** The sidecar's failure class of each rollout-level code. */
const FAILURE_CLASS: Partial<Record<ErrorCode, FailureClass>> = {
  BAD_TASK: 'bad_task',
  BAD_INPUT: 'bad_task',
  MODEL_ERROR: 'model_error',
  MODEL_REJECTED: 'model_error',
  TIMEOUT: 'timeout',
  TOOL_ERROR: 'tool_error',
  ENV_ERROR: 'env_error',
  VERIFY_ERROR: 'verify_error',
  JUDGE_FAILED: 'judge_failed',
  CAP_EXCEEDED: 'cap_exceeded',
};

export class GymError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: string[],
  ) {
    super(message);
    this.name = 'GymError';
  }

  get exitStatus(): number {
    return ERROR_CODES[this.code];
  }

  get retryable(): boolean {
    return isRetryableCode(this.code);
  }
}

export function isGymError(e: unknown): e is GymError {
  return e instanceof GymError;
}

export function isErrorCode(s: unknown): s is ErrorCode {
  return typeof s === 'string' && Object.hasOwn(ERROR_CODES, s);
}

export function isRetryableCode(code: ErrorCode): boolean {
  return !NON_RETRYABLE.has(code);
}

/** The failure class a code stands for, if it is a rollout-level code. */
export function failureClassOf(code: string | undefined): FailureClass | undefined {
  return isErrorCode(code) ? FAILURE_CLASS[code] : undefined;
}

/** Temporal's failure types that must never be retried: every non-retryable code. */
export const NON_RETRYABLE_TYPES: readonly string[] = [...NON_RETRYABLE];

/** Where in a rollout a failure happened; an error without a code of its own takes its stage's. */
export type RolloutStage = 'seed' | 'model' | 'tool' | 'verify' | 'record';

export const STAGE_CODE: Record<RolloutStage, ErrorCode> = {
  seed: 'ENV_ERROR',
  model: 'MODEL_ERROR',
  tool: 'TOOL_ERROR',
  verify: 'VERIFY_ERROR',
  record: 'INTERNAL',
};

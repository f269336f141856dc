// One error type for the whole product: a stable code the CLI maps to an exit status, and a message
// that tells the user what to do next.

export const ERROR_CODES = {
  BAD_FLAG: 2,
  BAD_INPUT: 3,
  NOT_FOUND: 4,
  UNREACHABLE: 5,
  CONFLICT: 6,
  SETUP_FAILED: 7,
  RUN_FAILED: 8,
  DISK_FULL: 9,
  INTERNAL: 1,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

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
}

export function isGymError(e: unknown): e is GymError {
  return e instanceof GymError;
}

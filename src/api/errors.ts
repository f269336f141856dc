// GymError as the API answers it: an HTTP status per code, the body `{error: {code, message, field?}}`,
// and the request field an error is about, carried on the error itself.
import { GymError, isGymError, type ErrorCode } from '../errors';
import { isConnectionLoss } from '../cli/reconnect';
import type { ErrorBody } from './schemas';

export type FieldError = GymError & { field?: string };

/** A GymError about one field of the request, in the body's spelling (`mock.accuracy`). */
export function fieldError(code: ErrorCode, message: string, field: string): FieldError {
  return Object.assign(new GymError(code, message), { field });
}

const STATUS: Partial<Record<ErrorCode, number>> = {
  BAD_FLAG: 400,
  BAD_INPUT: 400,
  NOT_FOUND: 404,
  CONFLICT: 409,
  UNREACHABLE: 503,
};

/** The status and body of any error a handler threw: a GymError as it is, a lost Temporal server as UNREACHABLE, anything else INTERNAL without its text. */
export function errorResponse(e: unknown): { status: number; body: ErrorBody; unexpected: boolean } {
  let err: FieldError;
  if (isGymError(e)) err = e;
  else if (isConnectionLoss(e)) err = new GymError('UNREACHABLE', 'the Temporal server does not answer; try again shortly');
  else return { status: 500, body: { error: { code: 'INTERNAL', message: 'internal error; the API log has the details' } }, unexpected: true };
  const body: ErrorBody = { error: { code: err.code, message: err.message } };
  if (err.field !== undefined) body.error.field = err.field;
  if (err.details?.length) body.error.details = err.details;
  return { status: STATUS[err.code] ?? 500, body, unexpected: false };
}

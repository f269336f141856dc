// The E2B SDK's errors as Gymflow's: one GymError with a stable code and a message that says what to do.
// The SDK's messages never carry the API key, and neither do these.
import { AuthenticationError, InvalidArgumentError, NotFoundError, RateLimitError, SandboxError, ServiceBusyError, TemplateError, TimeoutError } from 'e2b';
import { GymError, isGymError } from '../../errors';

/** `what` says what was being done, e.g. `creating a sandbox`, `reading /workspace/a`. */
export function gymErrorOf(error: unknown, what: string, keyEnv: string): GymError {
  if (isGymError(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  const prefix = `e2b: ${what}`;
  if (error instanceof AuthenticationError) return new GymError('SETUP_FAILED', `${prefix}: E2B refused the API key in ${keyEnv} (${message}); set ${keyEnv} to a valid key`);
  if (error instanceof NotFoundError) return new GymError('NOT_FOUND', `${prefix}: ${message}`);
  if (error instanceof InvalidArgumentError) return new GymError('BAD_INPUT', `${prefix}: ${message}`);
  if (error instanceof TemplateError) return new GymError('SETUP_FAILED', `${prefix}: ${message}`);
  if (error instanceof RateLimitError || error instanceof ServiceBusyError || error instanceof TimeoutError) return new GymError('UNREACHABLE', `${prefix}: ${message}`);
  if (error instanceof SandboxError) {
    const status = error.statusCode;
    if (status === 404) return new GymError('NOT_FOUND', `${prefix}: ${message}`);
    if (status === 400 || status === 422) return new GymError('BAD_INPUT', `${prefix}: ${message}`);
    if (status === 409) return new GymError('CONFLICT', `${prefix}: ${message}`);
    if (status !== undefined && status >= 500) return new GymError('UNREACHABLE', `${prefix}: ${message}`);
    return new GymError('ENV_ERROR', `${prefix}: ${message}`);
  }
  // fetch's own failures (refused, reset, DNS): the service is not there.
  if (error instanceof TypeError) return new GymError('UNREACHABLE', `${prefix}: cannot reach E2B (${causeOf(error)})`);
  return new GymError('ENV_ERROR', `${prefix}: ${message}`);
}

function causeOf(error: TypeError): string {
  const cause = (error as TypeError & { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? error.message;
}

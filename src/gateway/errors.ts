// The gateway's errors as OpenAI-compatible clients expect them: an HTTP status and a body
// `{error:{message,type,code,param}}`. They are GymErrors, so in-process callers see the usual codes.
import { GymError, isGymError, type ErrorCode } from '../errors';

export type OpenAIErrorType = 'invalid_request_error' | 'upstream_error' | 'server_error';

export interface OpenAIErrorBody {
  error: { message: string; type: OpenAIErrorType; code: string; param: string | null };
}

const HTTP_BY_CODE: Partial<Record<ErrorCode, [number, OpenAIErrorType]>> = {
  BAD_INPUT: [400, 'invalid_request_error'],
  NOT_FOUND: [404, 'invalid_request_error'],
  UNREACHABLE: [502, 'upstream_error'],
};

function gymCodeFor(status: number): ErrorCode {
  if (status === 404) return 'NOT_FOUND';
  if (status >= 400 && status < 500) return 'BAD_INPUT';
  // A bad gateway and a gateway timeout are both an upstream that did not answer usefully.
  if (status === 502 || status === 504) return 'UNREACHABLE';
  return 'INTERNAL';
}

export class GatewayError extends GymError {
  constructor(
    readonly status: number,
    readonly type: OpenAIErrorType,
    readonly errorCode: string,
    message: string,
    readonly param: string | null = null,
    /** The product's code when the status alone does not say it (a rollout's cap). */
    code?: ErrorCode,
    /** How long the upstream asked callers to wait before trying again (its Retry-After), if it said. */
    readonly retryAfterMs?: number,
  ) {
    super(code ?? gymCodeFor(status), message);
    this.name = 'GatewayError';
  }
}

/**
 * An upstream's wish to be left alone for a while: `retry-after-ms` (OpenAI's), else `Retry-After` in
 * seconds or as an HTTP date. Undefined when absent or unreadable.
 */
export function retryAfterMs(headers: { get(name: string): string | null } | undefined, now = Date.now()): number | undefined {
  const ms = Number(headers?.get('retry-after-ms') ?? NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers?.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The Retry-After a failed call carries to whoever retries it (the property survives re-stamping with a stage). */
export function withRetryAfter<E extends Error>(err: E, ms: number | undefined): E & { retryAfterMs?: number } {
  return ms === undefined ? err : Object.assign(err, { retryAfterMs: ms });
}

export function retryAfterOf(e: unknown): number | undefined {
  const ms = (e as { retryAfterMs?: unknown } | undefined)?.retryAfterMs;
  return typeof ms === 'number' && Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}

/** Status and body for any thrown value: GymError codes keep their meaning, anything else is a 500. */
export function toHttpError(e: unknown): { status: number; body: OpenAIErrorBody } {
  if (e instanceof GatewayError) {
    return { status: e.status, body: { error: { message: e.message, type: e.type, code: e.errorCode, param: e.param } } };
  }
  const message = e instanceof Error ? e.message : String(e);
  const [status, type] = (isGymError(e) && HTTP_BY_CODE[e.code]) || [500, 'server_error' as const];
  const code = isGymError(e) ? e.code.toLowerCase() : 'internal_error';
  return { status, body: { error: { message, type, code, param: null } } };
}

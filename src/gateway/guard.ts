// Who may call the gateway over HTTP: a local program holding the gateway's secret token, never a
// web page. Without this any process (or a browser tab) could spend the worker's upstream key.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { GymError } from '../errors';
import { GatewayError } from './errors';

/** Header-safe and long enough not to be guessed; a generated token is 43 characters. */
const TOKEN_PATTERN = /^[\x21-\x7e]{32,}$/;

/** The explicit token if given (checked), else a fresh random one. */
export function gatewayToken(explicit?: string): string {
  if (explicit === undefined) return randomBytes(32).toString('base64url');
  if (!TOKEN_PATTERN.test(explicit)) {
    throw new GymError('BAD_INPUT', 'the gateway token must be at least 32 visible ASCII characters, without spaces');
  }
  return explicit;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** The token a client sent: `Authorization: Bearer <token>` (OpenAI SDKs) or `x-api-key` (Anthropic's). */
function presented(headers: IncomingHttpHeaders): string[] {
  const found: string[] = [];
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '');
  if (bearer) found.push(bearer[1]!);
  const apiKey = headers['x-api-key'];
  if (typeof apiKey === 'string' && apiKey) found.push(apiKey.trim());
  return found;
}

/**
 * Throws 403 for a request a browser made on a page's behalf (browsers always send `Origin` on
 * cross-origin and POST requests, and `Sec-Fetch-Site` other than `none`), then 401 unless the
 * request carries the token. Digests are compared so the check takes the same time for any guess.
 */
export function admitHttp(headers: IncomingHttpHeaders, token: string): void {
  const site = headers['sec-fetch-site'];
  if (headers.origin !== undefined || (site !== undefined && site !== 'none')) {
    throw new GatewayError(403, 'invalid_request_error', 'browser_origin', 'the gateway does not answer requests made by web pages (an Origin or Sec-Fetch-Site header was sent)');
  }
  const sent = presented(headers);
  if (sent.length === 0) {
    throw new GatewayError(
      401,
      'invalid_request_error',
      'missing_gateway_token',
      "this gateway needs its token: send 'Authorization: Bearer <token>' (an OpenAI client's API key) or 'x-api-key: <token>'",
    );
  }
  const expected = digest(token);
  if (!sent.some((candidate) => timingSafeEqual(digest(candidate), expected))) {
    throw new GatewayError(401, 'invalid_request_error', 'invalid_gateway_token', "the token sent is not this gateway's token; use the token of the gateway at this address");
  }
}

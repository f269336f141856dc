// One HTTP client for every upstream backend: undici's pooled `request` (no SDK in the hot path), each
// call bounded by the spec's timeouts, connection failures ridden out across replicas and endpoint
// rotation within `rotation`'s bounds, and every upstream failure turned into a GatewayError that
// names its class (rejected, failed, unreachable, timeout) without ever carrying the key.
import { StringDecoder } from 'node:string_decoder';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request, type Dispatcher } from 'undici';
import { GymError } from '../../errors';
import { GatewayError, retryAfterMs } from '../errors';
import { ModelTimeouts, Rotation } from '../spec';
import { NoEndpoint, Replicas } from './replicas';

type Bound = keyof ModelTimeouts;

const BOUND_BY_UNDICI_CODE: Record<string, Bound> = {
  UND_ERR_CONNECT_TIMEOUT: 'connect_ms',
  UND_ERR_HEADERS_TIMEOUT: 'first_byte_ms',
  UND_ERR_BODY_TIMEOUT: 'idle_ms',
};

const WAITED_FOR: Record<Bound, string> = {
  connect_ms: 'a connection',
  first_byte_ms: 'the first byte of the answer',
  idle_ms: 'the next part of the answer',
  total_ms: 'the whole answer',
};

/** Failures before any answer arrived: the replica is down or moving, so another (or a re-read endpoint) may serve. */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_CLOSED']);

const MAX_BACKOFF_MS = 2_000;
/** How long a stream's body may stay open after its [DONE] before it is cut off (the answer is whole by then). */
const DRAIN_AFTER_DONE_MS = 1_000;

function causeCode(e: unknown): string | undefined {
  for (let cause = e, depth = 0; cause && depth < 5; cause = (cause as { cause?: unknown }).cause, depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/** Rotation settings with the retry count decided. */
export type RotationBounds = Rotation & { connection_retries: number };

export interface UpstreamSettings {
  /** How the upstream is named in errors (never with a key in it). */
  label: string;
  replicas: Replicas;
  timeouts: ModelTimeouts;
  rotation: RotationBounds;
  /** Headers of every request, the key among them: resolved per call so a rotated key is used. */
  headers(): Record<string, string>;
  /** Text that must never leave in an error message (the key). */
  secret(): string | undefined;
}

export interface UpstreamCall {
  signal: AbortSignal;
  /** Keeps a rollout's calls on one replica. */
  session?: string;
  /** Headers of this call only (e.g. the session id a routing proxy reads), under the upstream's own. */
  headers?: Record<string, string>;
}

/** A path under the base URL, or the URL itself made from the chosen replica's base URL. */
export type UpstreamPath = string | ((base: string) => string);

export interface Upstream {
  /** POSTs JSON to `<base url><path>` (or where `path` maps the base URL to); the parsed JSON of a 2xx answer. */
  postJson(path: UpstreamPath, body: unknown, call: UpstreamCall): Promise<unknown>;
  /**
   * POSTs JSON and yields the JSON of each server-sent `data:` event until `[DONE]` or the end; an answer
   * that is not an event stream (an upstream that does not stream) is yielded as its one item.
   */
  postStream(path: UpstreamPath, body: unknown, call: UpstreamCall): AsyncGenerator<unknown>;
  close(): Promise<void>;
}

export function createUpstream(settings: UpstreamSettings): Upstream {
  const { timeouts, rotation, label } = settings;
  // undici enforces the connect, first-byte and idle bounds itself; the total is a timer per call.
  const dispatcher = new Agent({ connect: { timeout: timeouts.connect_ms }, headersTimeout: timeouts.first_byte_ms, bodyTimeout: timeouts.idle_ms });
  const redact = (text: string) => {
    const secret = settings.secret();
    return secret ? text.split(secret).join('[redacted]') : text;
  };
  const timeoutError = (bound: Bound) =>
    new GatewayError(
      504,
      'upstream_error',
      'timeout',
      `${label} timed out waiting for ${WAITED_FOR[bound]} (timeouts.${bound} = ${timeouts[bound]} ms); raise it in the model spec if the model needs longer`,
    );

  /** Sends one request, trying again on connection failures, and returns the open answer (2xx only). */
  async function open(path: UpstreamPath, body: unknown, call: UpstreamCall, total: AbortSignal): Promise<Dispatcher.ResponseData> {
    const signal = AbortSignal.any([call.signal, total]);
    const payload = JSON.stringify(body);
    const tried: string[] = [];
    let last = '';
    for (let attempt = 0; ; attempt++) {
      let base: string | undefined;
      try {
        base = await settings.replicas.pick(call.session, attempt > 0);
        tried.push(base);
        const reply = await request(typeof path === 'string' ? `${base}${path}` : path(base), {
          method: 'POST',
          dispatcher,
          signal,
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...call.headers, ...settings.headers() },
          body: payload,
        });
        if (reply.statusCode >= 200 && reply.statusCode < 300) return reply;
        throw await refusal(reply);
      } catch (e) {
        if (call.signal.aborted || e instanceof GatewayError) throw e;
        if (total.aborted) throw timeoutError('total_ms');
        const code = causeCode(e);
        const retryable = e instanceof NoEndpoint || (code !== undefined && CONNECTION_CODES.has(code));
        if (!retryable) {
          const bound = code === undefined ? undefined : BOUND_BY_UNDICI_CODE[code];
          if (bound) throw timeoutError(bound);
          throw new GatewayError(502, 'upstream_error', 'upstream_unreachable', redact(`cannot reach ${label}: ${(e as Error).message}`));
        }
        if (base !== undefined) settings.replicas.markDead(base);
        last = code === 'UND_ERR_CONNECT_TIMEOUT' ? `no connection within timeouts.connect_ms = ${timeouts.connect_ms} ms` : (e as Error).message || String(code);
        if (attempt >= rotation.connection_retries) {
          const where = tried.length > 0 ? ` (tried ${[...new Set(tried)].join(', ')})` : '';
          throw new GatewayError(502, 'upstream_error', 'upstream_unreachable', redact(`cannot reach ${label} after ${attempt + 1} attempt${attempt === 0 ? '' : 's'}${where}: ${last}`));
        }
        try {
          await sleep(Math.min(MAX_BACKOFF_MS, rotation.retry_backoff_ms * 2 ** attempt), undefined, { signal });
        } catch {
          if (call.signal.aborted) throw e;
          throw timeoutError('total_ms');
        }
      }
    }
  }

  /** An upstream's non-2xx answer: refused (4xx but 408, 409, 429: the same request fails again) or failed. */
  async function refusal(reply: Dispatcher.ResponseData): Promise<GatewayError> {
    const text = await reply.body.text().catch(() => '');
    let detail = text.slice(0, 2_000);
    try {
      const parsed = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
      const message = typeof parsed.error === 'object' ? parsed.error?.message : (parsed.error ?? parsed.message);
      if (typeof message === 'string') detail = message;
    } catch {
      // Not JSON: the text itself says what went wrong.
    }
    const status = reply.statusCode;
    const refused = status >= 400 && status < 500 && ![408, 409, 429].includes(status);
    const header = (name: string) => {
      const value = reply.headers[name];
      return (Array.isArray(value) ? value[0] : value) ?? null;
    };
    // A refused request is not retried, so its Retry-After is moot; a failed one is waited out for at least that long.
    const wait = refused ? undefined : retryAfterMs({ get: header });
    return new GatewayError(502, 'upstream_error', refused ? 'upstream_rejected' : 'upstream_error', redact(`${label} answered ${status}: ${detail}`), null, undefined, wait);
  }

  /** Runs `read` on an open answer within total_ms, mapping transport failures to their class. */
  async function within<T>(path: UpstreamPath, body: unknown, call: UpstreamCall, read: (reply: Dispatcher.ResponseData, total: AbortSignal) => Promise<T>): Promise<T> {
    const total = new AbortController();
    const timer = setTimeout(() => total.abort(), timeouts.total_ms);
    try {
      const reply = await open(path, body, call, total.signal);
      try {
        return await read(reply, total.signal);
      } catch (e) {
        if (call.signal.aborted || e instanceof GatewayError) throw e;
        if (total.signal.aborted) throw timeoutError('total_ms');
        const code = causeCode(e);
        const bound = code === undefined ? undefined : BOUND_BY_UNDICI_CODE[code];
        if (bound) throw timeoutError(bound);
        throw new GatewayError(502, 'upstream_error', 'upstream_unreachable', redact(`${label} broke off its answer: ${(e as Error).message}`));
      }
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    postJson: (path, body, call) =>
      within(path, body, call, async (reply) => {
        const text = await reply.body.text();
        try {
          return JSON.parse(text) as unknown;
        } catch {
          throw new GatewayError(502, 'upstream_error', 'invalid_upstream_response', `${label} answered with a body that is not JSON: ${redact(text.slice(0, 200))}`);
        }
      }),
    async *postStream(path, body, call) {
      // A generator cannot run inside `within`, so events are collected by the reader and handed out as they come.
      const queue: unknown[] = [];
      let wake: (() => void) | undefined;
      let finished = false;
      let failure: unknown;
      const reading = within(path, body, call, async (reply, total) => {
        let buffer = '';
        const signal = AbortSignal.any([call.signal, total]);
        // A character split across two network chunks must not turn into two replacement characters.
        const decoder = new StringDecoder('utf8');
        const whole = !String(reply.headers['content-type'] ?? '').includes('text/event-stream');
        let done = false;
        let drain: NodeJS.Timeout | undefined;
        try {
          for await (const chunk of reply.body) {
            if (signal.aborted) throw signal.reason;
            // After [DONE] the body is read to its end, not broken off: breaking it off throws away the
            // keep-alive connection (the next call pays a new one) and makes an AbortError, stack and all.
            if (done) continue;
            buffer += decoder.write(chunk as Buffer);
            // An upstream that ignored `stream: true` sends its whole answer as JSON: it is the one item.
            if (whole) continue;
            let end: number;
            while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
              const event = buffer.slice(0, end);
              buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '');
              const data = event
                .split(/\r?\n/)
                .filter((line) => line.startsWith('data:'))
                .map((line) => line.slice(5).trimStart())
                .join('\n');
              if (!data) continue;
              if (data === '[DONE]') {
                done = true;
                drain = setTimeout(() => reply.body.destroy(), DRAIN_AFTER_DONE_MS);
                break;
              }
              try {
                queue.push(JSON.parse(data));
              } catch {
                throw new GatewayError(502, 'upstream_error', 'invalid_upstream_response', `${label} streamed an event that is not JSON: ${redact(data.slice(0, 200))}`);
              }
              wake?.();
            }
          }
        } catch (e) {
          // An upstream that said [DONE] and then held its body open is cut off: the answer is whole.
          if (!done) throw e;
        } finally {
          clearTimeout(drain);
        }
        if (whole) {
          try {
            queue.push(JSON.parse(buffer + decoder.end()));
          } catch {
            throw new GatewayError(
              502,
              'upstream_error',
              'invalid_upstream_response',
              `${label} answered a streamed request with a body that is neither server-sent events nor JSON: ${redact(buffer.slice(0, 200))}`,
            );
          }
        }
      })
        .then(
          () => void (finished = true),
          (e: unknown) => void ((failure = e), (finished = true)),
        )
        .finally(() => wake?.());
      try {
        while (true) {
          while (queue.length > 0) yield queue.shift();
          if (finished) break;
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
        }
        if (failure !== undefined) throw failure;
      } finally {
        await reading;
      }
    },
    close: () => dispatcher.destroy(),
  };
}

/** The replicas and bounds a spec's upstream fields describe; `fallback` is the base URL when the spec names none. */
export function upstreamPlacement(
  spec: { backend: string; model: string; base_url?: string | string[]; endpoint_file?: string; rotation?: unknown; timeouts?: unknown },
  fallback: string | undefined,
): { replicas: Replicas; rotation: RotationBounds; timeouts: ModelTimeouts } {
  const settings = Rotation.parse(spec.rotation ?? {});
  const timeouts = ModelTimeouts.parse(spec.timeouts ?? {});
  const given = spec.base_url === undefined ? [] : Array.isArray(spec.base_url) ? spec.base_url : [spec.base_url];
  const baseUrls = (given.length > 0 ? given : fallback !== undefined && spec.endpoint_file === undefined ? [fallback] : []).map((u) => u.replace(/\/+$/, ''));
  if (baseUrls.length === 0 && spec.endpoint_file === undefined) {
    throw new GymError('BAD_INPUT', `invalid model spec (${spec.backend} ${spec.model}): give base_url (one URL or a list of replicas) or endpoint_file`);
  }
  const rotating = spec.endpoint_file !== undefined || baseUrls.length > 1;
  const rotation = { ...settings, connection_retries: settings.connection_retries ?? (rotating ? 4 : 0) };
  return { replicas: new Replicas({ baseUrls, endpointFile: spec.endpoint_file }, rotation), rotation, timeouts };
}

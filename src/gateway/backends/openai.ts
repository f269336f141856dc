// Any OpenAI-compatible upstream through the official SDK: requests pass through with the model
// forced to the spec's, each call bounded by the spec's timeouts. The key is read from the
// environment at call time and never logged or echoed.
import OpenAI from 'openai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { ResponseCreateParamsNonStreaming } from 'openai/resources/responses/responses';
import { Agent, fetch as undiciFetch } from 'undici';
import type { z } from 'zod';
import { ResponseObject } from '../../schemas/responses';
import { GatewayError, retryAfterMs } from '../errors';
import { ModelTimeouts, type OpenAIModelSpec } from '../spec';
import { ChatCompletion } from '../wire';
import type { Backend } from './backend';

interface Connection {
  client: OpenAI;
  apiKey: string;
  baseURL: string | undefined;
}

type Bound = keyof ModelTimeouts;

/** The undici errors behind each bound, found anywhere in an error's cause chain. */
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

function undiciBound(e: unknown): Bound | undefined {
  // Both the SDK and undici's fetch wrap the transport error; a few levels are enough.
  for (let cause = e, depth = 0; cause && depth < 5; cause = (cause as { cause?: unknown }).cause, depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && code in BOUND_BY_UNDICI_CODE) return BOUND_BY_UNDICI_CODE[code];
  }
  return undefined;
}

function redact(text: string, secret: string): string {
  return text.split(secret).join('[redacted]');
}

export function openaiBackend(spec: OpenAIModelSpec): Backend {
  const timeouts = ModelTimeouts.parse(spec.timeouts ?? {});
  // undici enforces the connect, first-byte and idle bounds itself; the total is a timer per call.
  const dispatcher = new Agent({ connect: { timeout: timeouts.connect_ms }, headersTimeout: timeouts.first_byte_ms, bodyTimeout: timeouts.idle_ms });
  let connection: Connection | undefined;

  // Resolved per call so a key set (or rotated) after registration is used; the client is rebuilt only then.
  function connect(): Connection {
    const apiKey = process.env[spec.api_key_env];
    if (!apiKey) {
      throw new GatewayError(500, 'server_error', 'missing_api_key', `environment variable ${spec.api_key_env} is not set where the gateway runs; set it to the upstream's API key`);
    }
    const baseURL = spec.base_url ?? process.env.OPENAI_BASE_URL;
    if (connection?.apiKey !== apiKey || connection.baseURL !== baseURL) {
      // No SDK retries: the caller (a Temporal activity) owns the retry policy, and hidden retries
      // would multiply with it. The SDK's own logging stays off so it can never print a header.
      // The undici fetch matching the Agent, since Node's built-in fetch may not accept its dispatcher.
      const client = new OpenAI({
        apiKey,
        baseURL,
        maxRetries: 0,
        timeout: timeouts.total_ms,
        logLevel: 'off',
        fetch: undiciFetch as unknown as typeof fetch,
        fetchOptions: { dispatcher } as Record<string, unknown>,
      });
      connection = { apiKey, baseURL, client };
    }
    return connection;
  }

  async function call<T extends z.ZodType>(
    send: (client: OpenAI, signal: AbortSignal) => { asResponse(): Promise<Response> },
    schema: T,
    what: string,
    callerSignal: AbortSignal,
  ): Promise<z.infer<T>> {
    const { client, apiKey, baseURL } = connect();
    const upstream = baseURL ?? 'the OpenAI API';
    // The SDK's own timeout stops at the headers; this one also covers reading the body.
    const total = new AbortController();
    const timer = setTimeout(() => total.abort(), timeouts.total_ms);
    const signal = AbortSignal.any([callerSignal, total.signal]);

    function timedOut(e: unknown): GatewayError | undefined {
      const bound = total.signal.aborted ? 'total_ms' : (undiciBound(e) ?? (e instanceof OpenAI.APIConnectionTimeoutError ? 'total_ms' : undefined));
      if (!bound) return undefined;
      return new GatewayError(504, 'upstream_error', 'timeout', `${upstream} timed out waiting for ${WAITED_FOR[bound]} (timeouts.${bound} = ${timeouts[bound]} ms); raise it in the model spec if the model needs longer`);
    }

    try {
      let reply: Response;
      try {
        reply = await send(client, signal).asResponse();
      } catch (e) {
        if (callerSignal.aborted) throw e;
        const timeout = timedOut(e);
        if (timeout) throw timeout;
        if (e instanceof OpenAI.APIUserAbortError || !(e instanceof OpenAI.APIError)) throw e;
        if (e instanceof OpenAI.APIConnectionError) {
          throw new GatewayError(502, 'upstream_error', 'upstream_unreachable', redact(`cannot reach ${upstream}: ${e.message}`, apiKey));
        }
        // A request the upstream refused (4xx but 408, 409, 429) fails the same way when retried.
        const refused = e.status !== undefined && e.status >= 400 && e.status < 500 && ![408, 409, 429].includes(e.status);
        throw new GatewayError(502, 'upstream_error', refused ? 'upstream_rejected' : 'upstream_error', redact(`${upstream} answered ${e.message}`, apiKey), null, refused ? undefined : retryAfterMs(e.headers));
      }
      let text: string;
      try {
        text = await reply.text();
      } catch (e) {
        if (callerSignal.aborted) throw e;
        throw timedOut(e) ?? new GatewayError(502, 'upstream_error', 'upstream_unreachable', redact(`${upstream} broke off its answer: ${(e as Error).message}`, apiKey));
      }
      const parsed = schema.safeParse(parseOrUndefined(text));
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new GatewayError(502, 'upstream_error', 'invalid_upstream_response', `${upstream} returned an invalid ${what}: ${issue.path.join('.') || '(body)'}: ${issue.message}`);
      }
      return parsed.data;
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    kind: 'openai',
    responses: (request, ctx) =>
      call(
        // The edge validated the body loosely; the upstream is the judge of the fields it does not know.
        (client, signal) => client.responses.create({ ...request, model: spec.model, stream: false } as unknown as ResponseCreateParamsNonStreaming, { signal }),
        ResponseObject,
        'Responses object',
        ctx.signal,
      ),
    chatCompletions: (request, ctx) =>
      call(
        (client, signal) => client.chat.completions.create({ ...request, model: spec.model, stream: false } as unknown as ChatCompletionCreateParamsNonStreaming, { signal }),
        ChatCompletion,
        'chat completion',
        ctx.signal,
      ),
    close: () => dispatcher.destroy(),
  };
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

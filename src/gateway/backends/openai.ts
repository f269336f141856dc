// Any OpenAI-compatible upstream through the official SDK: requests pass through with the model
// forced to the spec's. The key is read from the environment at call time and never logged or echoed.
import OpenAI from 'openai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { ResponseCreateParamsNonStreaming } from 'openai/resources/responses/responses';
import type { z } from 'zod';
import { ResponseObject } from '../../schemas/responses';
import { GatewayError } from '../errors';
import type { OpenAIModelSpec } from '../spec';
import { ChatCompletion } from '../wire';
import type { Backend } from './backend';

interface Connection {
  client: OpenAI;
  apiKey: string;
  baseURL: string | undefined;
}

function redact(text: string, secret: string): string {
  return text.split(secret).join('[redacted]');
}

export function openaiBackend(spec: OpenAIModelSpec): Backend {
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
      connection = { apiKey, baseURL, client: new OpenAI({ apiKey, baseURL, maxRetries: 0, logLevel: 'off' }) };
    }
    return connection;
  }

  async function call<T extends z.ZodType>(
    send: (client: OpenAI) => { asResponse(): Promise<Response> },
    schema: T,
    what: string,
  ): Promise<z.infer<T>> {
    const { client, apiKey, baseURL } = connect();
    const upstream = baseURL ?? 'the OpenAI API';
    let reply: Response;
    try {
      reply = await send(client).asResponse();
    } catch (e) {
      if (e instanceof OpenAI.APIUserAbortError || !(e instanceof OpenAI.APIError)) throw e;
      if (e instanceof OpenAI.APIConnectionError) {
        throw new GatewayError(502, 'upstream_error', 'upstream_unreachable', redact(`cannot reach ${upstream}: ${e.message}`, apiKey));
      }
      throw new GatewayError(502, 'upstream_error', 'upstream_error', redact(`${upstream} answered ${e.message}`, apiKey));
    }
    const body: unknown = await reply.json().catch(() => undefined);
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new GatewayError(502, 'upstream_error', 'invalid_upstream_response', `${upstream} returned an invalid ${what}: ${issue.path.join('.') || '(body)'}: ${issue.message}`);
    }
    return parsed.data;
  }

  return {
    kind: 'openai',
    responses: (request, ctx) =>
      call(
        // The edge validated the body loosely; the upstream is the judge of the fields it does not know.
        (client) => client.responses.create({ ...request, model: spec.model, stream: false } as unknown as ResponseCreateParamsNonStreaming, { signal: ctx.signal }),
        ResponseObject,
        'Responses object',
      ),
    chatCompletions: (request, ctx) =>
      call(
        (client) => client.chat.completions.create({ ...request, model: spec.model, stream: false } as unknown as ChatCompletionCreateParamsNonStreaming, { signal: ctx.signal }),
        ChatCompletion,
        'chat completion',
      ),
  };
}

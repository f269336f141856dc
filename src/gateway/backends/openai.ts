// Any OpenAI-compatible upstream (OpenAI, LiteLLM's proxy, …): requests pass through with the model
// forced to the spec's. `api: chat` is for upstreams that speak only Chat Completions: Responses callers
// are then served through the Responses↔Chat conversion. The key is read from the environment at call
// time and never logged or echoed.
import { ResponseObject } from '../../schemas/responses';
import { chatCompletionToResponse, responsesToChatRequest } from '../convert';
import { responsesEventDeltas } from '../deltas';
import { GatewayError } from '../errors';
import type { OpenAIModelSpec } from '../spec';
import { ChatCompletion } from '../wire';
import type { Backend, CallContext } from './backend';
import { validUpstreamReply } from './backend';
import { streamChat } from './chat-chunks';
import { createUpstream, upstreamPlacement } from './upstream';

const OPENAI_API = 'https://api.openai.com/v1';

/** How a backend built on this one (Switchyard's) reaches its upstream differently. */
export interface OpenAIUpstreamOptions {
  /** The key to send, read per call; undefined sends none. Default: the spec's `api_key_env`, required. */
  key?: () => string | undefined;
  /** Headers of one call, from its context (e.g. the session id a routing proxy reads). */
  callHeaders?: (ctx: CallContext) => Record<string, string>;
  label?: string;
}

export function openaiBackend(spec: OpenAIModelSpec, options: OpenAIUpstreamOptions = {}): Backend {
  const fallback = process.env.OPENAI_BASE_URL ?? OPENAI_API;
  const { replicas, rotation, timeouts } = upstreamPlacement(spec, fallback);
  const key =
    options.key ??
    ((): string => {
      const apiKey = process.env[spec.api_key_env];
      if (!apiKey) {
        throw new GatewayError(500, 'server_error', 'missing_api_key', `environment variable ${spec.api_key_env} is not set where the gateway runs; set it to the upstream's API key`);
      }
      return apiKey;
    });
  const label =
    options.label ??
    (spec.base_url === undefined && spec.endpoint_file === undefined && fallback === OPENAI_API ? 'the OpenAI API' : `${spec.model} at ${replicas.current.join(', ') || spec.endpoint_file}`);
  const upstream = createUpstream({
    label,
    replicas,
    rotation,
    timeouts,
    headers: (): Record<string, string> => {
      const k = key();
      return k === undefined ? {} : { authorization: `Bearer ${k}` };
    },
    secret: () => (options.key ? options.key() : process.env[spec.api_key_env]),
  });
  const call = (ctx: CallContext) => {
    key();
    return { signal: ctx.signal, session: ctx.session, headers: options.callHeaders?.(ctx) };
  };

  // A streaming caller gets the upstream's pieces as they come, unless the spec says to ask for whole answers.
  const streams = (ctx: CallContext) => spec.stream_upstream ?? Boolean(ctx.onDelta);

  async function chat(body: object, ctx: CallContext): Promise<ChatCompletion> {
    const request = { ...body, model: spec.model };
    const reply = streams(ctx)
      ? await streamChat(upstream, '/chat/completions', request, ctx, call(ctx), label)
      : await upstream.postJson('/chat/completions', { ...request, stream: false }, call(ctx));
    return validUpstreamReply(ChatCompletion, reply, label, 'chat completion');
  }

  /** A Responses stream's pieces passed on; its answer is the one its last event carries. */
  async function streamResponses(request: object, ctx: CallContext): Promise<unknown> {
    const deltas = responsesEventDeltas();
    for await (const raw of upstream.postStream('/responses', { ...request, model: spec.model, stream: true }, call(ctx))) {
      const event = raw as Record<string, any>;
      // An upstream that ignored `stream: true` answered whole.
      if (event.object === 'response') return event;
      if (event.type === 'response.completed' || event.type === 'response.incomplete') return event.response;
      if (event.type === 'response.failed' || event.type === 'error') {
        const error = event.response?.error ?? event;
        throw new GatewayError(502, 'upstream_error', 'upstream_error', `${label} failed mid-stream: ${String(error.message ?? JSON.stringify(error)).slice(0, 500)}`);
      }
      for (const delta of deltas(event)) ctx.onDelta?.(delta);
    }
    throw new GatewayError(502, 'upstream_error', 'invalid_upstream_response', `${label} ended its Responses stream without response.completed`);
  }

  return {
    kind: 'openai',
    // A chat-only upstream gets Responses callers through the conversion, which has no place for them.
    hostedTools: spec.api !== 'chat',
    async responses(request, ctx) {
      if (spec.api === 'chat') return chatCompletionToResponse(await chat(responsesToChatRequest(request), ctx), { params: request });
      // The edge validated the body loosely; the upstream is the judge of the fields it does not know.
      const reply = streams(ctx) ? await streamResponses(request, ctx) : await upstream.postJson('/responses', { ...request, model: spec.model, stream: false }, call(ctx));
      return validUpstreamReply(ResponseObject, reply, label, 'Responses object');
    },
    chatCompletions: (request, ctx) => chat(request, ctx),
    close: () => upstream.close(),
  };
}

// The model gateway: one OpenAI-compatible HTTP server in front of every registered model (mock or
// upstream). Rollouts, agents and external harnesses all point their base URL here, so each model
// call is tied to its rollout, logged once, and answered the same way whatever serves it. The
// worker's own activities can make the same call in-process, skipping the loopback hop.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { contextFromHeaders, failSpan, inSpan, SpanKind, type Context } from '../tracing/spans';
import { createLogger } from '../util/logger';
import type { Backend, CallContext } from './backends/backend';
import { mockBackend, mockFiles } from './backends/mock';
import { openaiBackend } from './backends/openai';
import { GatewayError, toHttpError, type OpenAIErrorBody } from './errors';
import { admitHttp, gatewayToken } from './guard';
import { readJson, sendJson, validateBody } from './http';
import { modelName, parseModelSpec, type ModelSpec, type ModelSpecInput } from './spec';
import { ChatCompletionRequest, ResponsesRequest } from './wire';

export const ROLLOUT_ID_HEADER = 'x-gymflow-rollout-id';
export const CALL_ID_HEADER = 'x-gymflow-call-id';
export const BACKEND_HEADER = 'x-gymflow-backend';

/** A call made in-process: what an HTTP request would carry, minus the transport. */
export interface GatewayCall {
  /** The route, as over HTTP: `/v1/responses`, `/v1/chat/completions`, `/v1/models`. */
  path: string;
  /** Defaults to POST when there is a body, GET otherwise. */
  method?: 'GET' | 'POST';
  body?: unknown;
  rolloutId?: string;
  signal?: AbortSignal;
}

/** What HTTP would send: the status, the JSON body (the gateway's own object: read it, do not change it) and the two headers. */
export interface GatewayReply {
  status: number;
  body: unknown;
  callId: string;
  backend: string;
}

export interface Gateway {
  /** Base URL for OpenAI clients, e.g. `http://127.0.0.1:PORT/v1`. */
  url: string;
  /** The secret every HTTP request must carry (an OpenAI client's API key). Never log it. */
  token: string;
  /** Registers a model and returns the name to call it by; the same spec always gives the same name. */
  register(spec: ModelSpecInput): string;
  /** Answers like an HTTP request to the same route (validation, backend, log line, call id), without HTTP. */
  call(request: GatewayCall): Promise<GatewayReply>;
  close(): Promise<void>;
}

interface Registered {
  backend: Backend;
  created: number;
}

/** One request as the routes see it, whichever way it arrived. */
interface Exchange {
  method: string;
  path: string;
  rolloutId: string | undefined;
  signal: AbortSignal;
  /** The trace the call belongs to: the request's `traceparent` over HTTP, the caller's active span in-process. */
  parent?: Context;
  /** HTTP's checks on who is calling; an in-process caller is the worker itself. */
  admit(): void;
  body(): Promise<unknown>;
}

interface Call {
  body(): Promise<unknown>;
  /** Resolves a model name, and records which backend answers for the reply and the log line. */
  useModel(name: string): { backend: Backend; ctx: CallContext };
}

type Handler = (call: Call) => Promise<unknown>;

function rejectStreaming(stream: boolean | null | undefined): void {
  if (stream === true) {
    throw new GatewayError(400, 'invalid_request_error', 'stream_unsupported', 'stream: streaming is not supported by the gateway yet; send "stream": false', 'stream');
  }
}

const CLIENT_CLOSED = 'the caller disconnected before the answer was ready';

export async function startGateway(opts: { host?: string; port?: number; logger?: Logger; token?: string } = {}): Promise<Gateway> {
  const host = opts.host ?? '127.0.0.1';
  const logger = opts.logger ?? createLogger('gymflow-gateway');
  const token = gatewayToken(opts.token);
  const models = new Map<string, Registered>();
  const files = mockFiles();

  function createBackend(spec: ModelSpec): Backend {
    return spec.backend === 'mock' ? mockBackend(spec, files) : openaiBackend(spec);
  }

  const routes: Record<string, Record<string, Handler>> = {
    '/v1/responses': {
      POST: async (call) => {
        const body = validateBody(ResponsesRequest, await call.body());
        rejectStreaming(body.stream);
        const { backend, ctx } = call.useModel(body.model);
        return backend.responses(body, ctx);
      },
    },
    '/v1/chat/completions': {
      POST: async (call) => {
        const body = validateBody(ChatCompletionRequest, await call.body());
        rejectStreaming(body.stream);
        const { backend, ctx } = call.useModel(body.model);
        return backend.chatCompletions(body, ctx);
      },
    },
    '/v1/models': {
      GET: async () => ({
        object: 'list',
        data: [...models].map(([id, m]) => ({ id, object: 'model', created: m.created, owned_by: `gymflow-${m.backend.kind}` })),
      }),
    },
  };

  function serve(exchange: Exchange): Promise<GatewayReply> {
    const kind = exchange.parent ? SpanKind.SERVER : SpanKind.INTERNAL;
    return inSpan(`gateway ${exchange.method} ${exchange.path}`, { kind, parent: exchange.parent }, async (span) => {
      const reply = await answer(exchange);
      span.setAttributes({ 'http.response.status_code': reply.status, 'gymflow.call_id': reply.callId, 'gymflow.model.backend': reply.backend });
      if (exchange.rolloutId) span.setAttribute('gymflow.rollout.id', exchange.rolloutId);
      if (reply.status >= 500) failSpan(span, `HTTP ${reply.status}`);
      return reply;
    });
  }

  async function answer(exchange: Exchange): Promise<GatewayReply> {
    const started = performance.now();
    const callId = randomUUID();
    const { method, path, rolloutId, signal } = exchange;
    const log = logger.child({ call_id: callId, rollout_id: rolloutId, method, path });
    let model: string | undefined;
    let backendKind = 'gateway';

    const call: Call = {
      body: exchange.body,
      useModel(name) {
        const registered = models.get(name);
        if (!registered) {
          throw new GatewayError(404, 'invalid_request_error', 'model_not_found', `model "${name}" is not registered with this gateway; registered: ${[...models.keys()].join(', ') || 'none'}`, 'model');
        }
        model = name;
        backendKind = registered.backend.kind;
        return { backend: registered.backend, ctx: { model: name, rolloutId, log, signal } };
      },
    };

    let status = 200;
    let body: unknown;
    let failure: { error_code: string; error: string } | undefined;
    try {
      exchange.admit();
      const methods = routes[path];
      if (!methods) throw new GatewayError(404, 'invalid_request_error', 'unknown_route', `no route ${path}; the gateway serves /v1/responses, /v1/chat/completions and /v1/models`);
      const handler = methods[method];
      if (!handler) throw new GatewayError(405, 'invalid_request_error', 'method_not_allowed', `${path} accepts ${Object.keys(methods).join(', ')}, not ${method}`);
      body = await handler(call);
    } catch (e) {
      if (signal.aborted) {
        // Nobody is listening any more; 499 (nginx's "client closed request") keeps it out of the 5xx counts.
        status = 499;
        failure = { error_code: 'client_closed', error: CLIENT_CLOSED };
        body = { error: { message: CLIENT_CLOSED, type: 'invalid_request_error', code: 'client_closed', param: null } } satisfies OpenAIErrorBody;
      } else {
        const reply = toHttpError(e);
        status = reply.status;
        body = reply.body;
        failure = { error_code: reply.body.error.code, error: reply.body.error.message };
      }
    }
    const level = status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
    log[level]({ status, model, backend: backendKind, ms: Math.round(performance.now() - started), ...failure }, 'gateway call');
    return { status, body, callId, backend: backendKind };
  }

  async function handleHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rolloutHeader = req.headers[ROLLOUT_ID_HEADER];
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    const reply = await serve({
      method: req.method ?? '',
      path: (req.url ?? '/').split('?')[0]!,
      rolloutId: typeof rolloutHeader === 'string' && rolloutHeader ? rolloutHeader : undefined,
      signal: abort.signal,
      parent: contextFromHeaders(req.headers),
      admit: () => admitHttp(req.headers, token),
      body: () => readJson(req),
    });
    if (res.destroyed || res.writableEnded) return;
    res.setHeader(CALL_ID_HEADER, reply.callId);
    res.setHeader(BACKEND_HEADER, reply.backend);
    sendJson(res, reply.status, reply.body);
  }

  const server = createServer((req, res) => void handleHttp(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}/v1`;
  logger.info({ url }, 'gateway listening');

  return {
    url,
    token,
    register(input) {
      const spec = parseModelSpec(input);
      const name = modelName(spec);
      if (!models.has(name)) models.set(name, { backend: createBackend(spec), created: Math.floor(Date.now() / 1000) });
      return name;
    },
    call: (request) =>
      serve({
        method: request.method ?? (request.body === undefined ? 'GET' : 'POST'),
        path: request.path,
        rolloutId: request.rolloutId || undefined,
        signal: request.signal ?? new AbortController().signal,
        admit: () => {},
        body: async () => request.body,
      }),
    close: async () => {
      await new Promise<void>((resolve, reject) => {
        server.close((e) => (e ? reject(e) : resolve()));
        // Keep-alive sockets from SDK clients would otherwise hold close() open.
        server.closeAllConnections();
      });
      await Promise.all([...models.values()].map((m) => m.backend.close?.()));
    },
  };
}

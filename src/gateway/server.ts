// The model gateway: one OpenAI- and Anthropic-compatible HTTP server in front of every registered
// model (mock or upstream). Rollouts, agents and external harnesses all point their base URL here (a
// rollout-scoped `/r/<attempt id>/v1` ties each call to its rollout and logs it into the run folder),
// answered the same way whatever serves it, whole or streamed. The worker's own activities make the
// same call in-process, skipping the loopback hop. Design: docs/gateway.md.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { contextFromHeaders, failSpan, inSpan, SpanKind, type Context } from '../tracing/spans';
import type { ResponseObject } from '../schemas/responses';
import { callLog } from '../store/call-log';
import { createLogger } from '../util/logger';
import { anthropicError, MessagesRequest, messagesToResponses, responseToMessage } from './anthropic';
import type { Backend, CallContext, CallRouting } from './backends/backend';
import { mockBackend, mockFiles } from './backends/mock';
import { anthropicBackend } from './backends/anthropic';
import { openaiBackend } from './backends/openai';
import { vllmBackend } from './backends/vllm';
import { routedBackend } from './backends/routed/backend';
import { switchyardBackend } from './backends/switchyard/backend';
import { servedCallRecord, wireTokens } from './call-record';
import type { TrainingTokenIds } from './convert';
import { GatewayError, retryAfterOf, toHttpError, type OpenAIErrorBody } from './errors';
import { admitHttp, gatewayToken } from './guard';
import { readJson, sendJson, validateBody } from './http';
import { parseRegistration, RolloutTable, type RolloutRegistrationInput, type RolloutScope } from './rollouts';
import { withOverrides, withTokenCeiling, type RequestShape } from './sampling';
import { modelName, parseModelSpec, type ModelSpec, type ModelSpecInput, type TargetModelSpec } from './spec';
import { chatStream, messagesStream, responsesStream, sseText, type SseEvent, type StreamProtocol } from './streams';
import { ChatCompletionRequest, ResponsesEdgeRequest, withoutHostedTools, type ResponsesRequest } from './wire';

export const ROLLOUT_ID_HEADER = 'x-gymflow-rollout-id';
export const CALL_ID_HEADER = 'x-gymflow-call-id';
export const BACKEND_HEADER = 'x-gymflow-backend';

/** A call made in-process: what an HTTP request would carry, minus the transport. */
export interface GatewayCall {
  /** The route, as over HTTP: `/v1/responses`, `/v1/chat/completions`, `/v1/messages`, `/v1/models`. */
  path: string;
  /** Defaults to POST when there is a body, GET otherwise. */
  method?: 'GET' | 'POST';
  body?: unknown;
  rolloutId?: string;
  signal?: AbortSignal;
  /** The caller's run folder: where a routing backend records the condition the run is served under. */
  runDir?: string;
  /** The task row being played: what Gymflow's `rules` routing strategy reads. */
  task?: Record<string, unknown>;
}

/** What HTTP would send: the status, the JSON body (the gateway's own object: read it, do not change it) and the two headers. */
export interface GatewayReply {
  status: number;
  body: unknown;
  callId: string;
  backend: string;
  /** The answer went out as server-sent events (HTTP only); `body` is then what the client assembled. */
  streamed: boolean;
  /** The upstream's Retry-After on a failed call, passed on (over HTTP as a `retry-after` header). */
  retryAfterMs?: number;
  /** Which target of a router (Switchyard's or Gymflow's) served the call. */
  routing?: CallRouting;
}

export interface Gateway {
  /** Base URL for OpenAI clients, e.g. `http://127.0.0.1:PORT/v1`. */
  url: string;
  /** The secret every HTTP request must carry (an OpenAI client's API key). Never log it. */
  token: string;
  /** Registers a model and returns the name to call it by; the same spec always gives the same name. */
  register(spec: ModelSpecInput): string;
  /**
   * Ties a URL id to a rollout attempt and its run folder: every call through the returned base URL
   * (`…/r/<id>/v1`) is logged into that folder's model_calls/. Register before starting a harness.
   */
  registerRollout(registration: RolloutRegistrationInput): { id: string; baseUrl: string };
  /** Ends a rollout-scoped URL (its later calls get 404); false when the id was not registered. */
  unregisterRollout(id: string): boolean;
  /** Answers like an HTTP request to the same route (validation, backend, log line, call id), without HTTP. */
  call(request: GatewayCall): Promise<GatewayReply>;
  close(): Promise<void>;
}

export interface GatewayOptions {
  host?: string;
  port?: number;
  logger?: Logger;
  token?: string;
}

interface Registered {
  backend: Backend;
  spec: ModelSpec;
  created: number;
}

/** How long a stream's headers and opening events wait for the answer's first piece to leave with it. */
const OPENING_HOLD_MS = 50;
/**
 * How long later pieces wait for more to leave with them. A model's tokens come tens of milliseconds apart, so
 * this delays none of them noticeably, while an answer whose last pieces and end arrive together (a fast or
 * buffered upstream) leaves in one write instead of two.
 */
const PIECES_HOLD_MS = 2;

/** Where an answer goes as server-sent events; only HTTP callers can take one. */
interface EventSink {
  /** Queues the events; what is queued within PIECES_HOLD_MS leaves in one write. */
  write(events: readonly SseEvent[]): void;
  end(): void;
}

/** One request as the routes see it, whichever way it arrived. */
interface Exchange {
  method: string;
  path: string;
  rolloutId: string | undefined;
  /** The id of a rollout-scoped URL (`/r/<id>/v1/...`), looked up once the caller is admitted. */
  scopeId: string | undefined;
  signal: AbortSignal;
  /** The trace the call belongs to: the request's `traceparent` over HTTP, the caller's active span in-process. */
  parent?: Context;
  /** An in-process caller's run folder and task row (a rollout-scoped URL's run folder is its scope's). */
  runDir?: string;
  task?: Record<string, unknown>;
  /** HTTP's checks on who is calling; an in-process caller is the worker itself. */
  admit(): void;
  body(): Promise<unknown>;
  /** Sends the stream's headers; throws for an in-process caller, which takes answers whole. */
  openStream(headers: Record<string, string>): EventSink;
}

interface Model {
  backend: Backend;
  ctx: CallContext;
  /**
   * The request the backend gets: the model's sampling overrides forced on, max tokens lowered to the
   * rollout's remaining token budget. Counts the call against the rollout's cap on model calls.
   */
  prepare<T extends object>(request: T, shape: RequestShape): T;
}

interface Call {
  body(): Promise<unknown>;
  /** Resolves a model name (or the rollout's model), and records which backend answers for the reply and the log line. */
  useModel(name: string): Model;
  /** Token ids the route's wire shape cannot carry, kept for the call log. */
  capture(tokens: TrainingTokenIds | undefined): void;
}

/** A whole answer, or a stream that opens at once and closes with the answer `result` resolves to. */
type Answer = { body: unknown } | { stream: StreamProtocol<any>; result: () => Promise<unknown> };
type Handler = (call: Call) => Promise<Answer>;

const CLIENT_CLOSED = 'the caller disconnected before the answer was ready';

const SCOPED_PATH = /^\/r\/([^/]+)(\/v1\/.*)$/;
const ROLLOUTS_PATH = '/gymflow/rollouts';
/** The routes whose calls a rollout-scoped URL logs. */
const MODEL_ROUTES = new Set(['/v1/responses', '/v1/chat/completions', '/v1/messages']);

/**
 * Admits one more model call of a rollout under its caps, or refuses it with its own failure class
 * (CAP_EXCEEDED: a runaway loop, not a model fault); the tokens the call may still generate.
 */
function admitUnderCaps(scope: RolloutScope): number | undefined {
  if (scope.max_model_calls !== undefined && scope.modelCalls >= scope.max_model_calls) {
    throw new GatewayError(
      400,
      'invalid_request_error',
      'rollout_cap_exceeded',
      `rollout attempt "${scope.id}" has made its ${scope.max_model_calls} model calls (max_model_calls); the rollout is stopped as a runaway loop`,
      null,
      'CAP_EXCEEDED',
    );
  }
  const remaining = scope.max_generated_tokens === undefined ? undefined : scope.max_generated_tokens - scope.generatedTokens;
  if (remaining !== undefined && remaining <= 0) {
    throw new GatewayError(
      400,
      'invalid_request_error',
      'rollout_cap_exceeded',
      `rollout attempt "${scope.id}" has generated its ${scope.max_generated_tokens} tokens (max_generated_tokens); the rollout is stopped as a runaway loop`,
      null,
      'CAP_EXCEEDED',
    );
  }
  scope.modelCalls++;
  return remaining;
}

/** Generated tokens as the route's usage counts them, for answers without token ids. */
function generatedByUsage(usage: Record<string, unknown> | null | undefined): number {
  const n = usage?.output_tokens ?? usage?.completion_tokens;
  return typeof n === 'number' ? n : 0;
}

function originOf(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

export async function startGateway(opts: GatewayOptions = {}): Promise<Gateway> {
  const host = opts.host ?? '127.0.0.1';
  const logger = opts.logger ?? createLogger('gymflow-gateway');
  const token = gatewayToken(opts.token);
  const models = new Map<string, Registered>();
  const rollouts = new RolloutTable();
  const files = mockFiles();
  let origin = '';

  function createBackend(spec: ModelSpec | TargetModelSpec): Backend {
    switch (spec.backend) {
      case 'mock':
        return mockBackend(spec, files);
      case 'openai':
        return openaiBackend(spec);
      case 'vllm':
        return vllmBackend(spec);
      case 'anthropic':
        return anthropicBackend(spec);
      case 'switchyard':
        return switchyardBackend(spec, logger.child({ backend: 'switchyard', route: spec.model }));
      case 'routed':
        return routedBackend(spec, createBackend, logger.child({ backend: 'routed', route: spec.model }));
    }
  }

  function registerRollout(input: RolloutRegistrationInput): { id: string; baseUrl: string } {
    const registration = parseRegistration(input);
    if (registration.model !== undefined && !models.has(registration.model)) {
      throw new GatewayError(
        404,
        'invalid_request_error',
        'model_not_found',
        `model: "${registration.model}" is not registered with this gateway; registered: ${[...models.keys()].join(', ') || 'none'}`,
        'model',
      );
    }
    const scope = rollouts.add(registration);
    return { id: scope.id, baseUrl: `${origin}/r/${scope.id}/v1` };
  }

  const routes: Record<string, Record<string, Handler>> = {
    '/v1/responses': {
      POST: async (call) => {
        const body = validateBody(ResponsesEdgeRequest, await call.body());
        const { backend, ctx, prepare } = call.useModel(body.model);
        const request = prepare({ ...(backend.hostedTools ? (body as ResponsesRequest) : withoutHostedTools(body)), stream: false }, 'responses');
        const result = () => backend.responses(request, ctx);
        if (!body.stream) return { body: await result() };
        return { stream: responsesStream({ model: body.model, request: body }), result };
      },
    },
    '/v1/chat/completions': {
      POST: async (call) => {
        const { stream, stream_options: options, ...body } = validateBody(ChatCompletionRequest, await call.body());
        const { backend, ctx, prepare } = call.useModel(body.model);
        const request = prepare(body, 'chat');
        const result = () => backend.chatCompletions(request, ctx);
        if (!stream) return { body: await result() };
        const includeUsage = (options as { include_usage?: unknown } | undefined)?.include_usage === true;
        return { stream: chatStream({ model: body.model, includeUsage }), result };
      },
    },
    '/v1/messages': {
      POST: async (call) => {
        const request = validateBody(MessagesRequest, await call.body());
        const { backend, ctx, prepare } = call.useModel(request.model);
        const params = prepare({ ...messagesToResponses(request), model: ctx.model }, 'responses');
        const result = async () => {
          const response: ResponseObject = await backend.responses(params, ctx);
          call.capture(wireTokens(response));
          return responseToMessage(response, request.model);
        };
        if (!request.stream) return { body: await result() };
        return { stream: messagesStream({ model: request.model }), result };
      },
    },
    '/v1/models': {
      GET: async () => ({
        body: {
          object: 'list',
          data: [...models].map(([id, m]) => ({ id, object: 'model', created: m.created, owned_by: `gymflow-${m.backend.kind}` })),
        },
      }),
    },
    [ROLLOUTS_PATH]: {
      POST: async (call) => {
        const { id, baseUrl } = registerRollout((await call.body()) as RolloutRegistrationInput);
        return { body: { id, base_url: baseUrl } };
      },
    },
  };

  /** The one route with an id after its path: `DELETE /gymflow/rollouts/<id>`. */
  function rolloutRoute(path: string, method: string): Handler | undefined {
    if (!path.startsWith(`${ROLLOUTS_PATH}/`) || method !== 'DELETE') return undefined;
    const id = decodeURIComponent(path.slice(ROLLOUTS_PATH.length + 1));
    return async () => {
      if (!rollouts.remove(id)) throw new GatewayError(404, 'invalid_request_error', 'unknown_rollout', `no rollout attempt "${id}" is registered with this gateway`);
      return { body: { id, deleted: true } };
    };
  }

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
    const startedAt = Date.now();
    const started = performance.now();
    const callId = randomUUID();
    const { method, path, signal } = exchange;
    let rolloutId = exchange.rolloutId;
    let log = logger.child({ call_id: callId, rollout_id: rolloutId, method, path });
    let model: string | undefined;
    let backendKind = 'gateway';
    let scope: RolloutScope | undefined;
    let request: unknown;
    let tokens: TrainingTokenIds | undefined;
    let overrides: Record<string, unknown> | undefined;
    let routing: CallRouting | undefined;
    let modelCtx: CallContext | undefined;

    const call: Call = {
      body: async () => (request = await exchange.body()),
      useModel(name) {
        // A harness names models its own way (e.g. claude-…): a rollout-scoped call falls back to the rollout's model.
        const chosen = models.has(name) ? name : scope?.model;
        const registered = chosen === undefined ? undefined : models.get(chosen);
        if (!registered) {
          throw new GatewayError(
            404,
            'invalid_request_error',
            'model_not_found',
            `model "${name}" is not registered with this gateway; registered: ${[...models.keys()].join(', ') || 'none'}`,
            'model',
          );
        }
        model = chosen;
        backendKind = registered.backend.kind;
        const { spec } = registered;
        // A routed model's targets carry their own overrides; the router applies the serving one's.
        overrides = spec.backend === 'mock' || spec.backend === 'routed' ? undefined : spec.sampling_overrides;
        modelCtx = {
          model: chosen!,
          rolloutId,
          session: scope?.id ?? rolloutId,
          log,
          signal,
          runDir: scope?.run_dir ?? exchange.runDir,
          task: exchange.task ?? scope?.task,
          served: (r) => void (routing = r),
        };
        return {
          backend: registered.backend,
          ctx: modelCtx,
          prepare: (request, shape) => {
            const remaining = scope ? admitUnderCaps(scope) : undefined;
            return withTokenCeiling(withOverrides(request, overrides, shape), remaining, shape);
          },
        };
      },
      capture: (captured) => void (tokens = captured),
    };

    let status = 200;
    let body: unknown;
    let streamed = false;
    let failure: { error_code: string; error: string } | undefined;
    let retryAfterMs: number | undefined;
    const fail = (e: unknown): { status: number; body: OpenAIErrorBody } => {
      if (signal.aborted) {
        // Nobody is listening any more; 499 (nginx's "client closed request") keeps it out of the 5xx counts.
        status = 499;
        failure = { error_code: 'client_closed', error: CLIENT_CLOSED };
        return { status, body: { error: { message: CLIENT_CLOSED, type: 'invalid_request_error', code: 'client_closed', param: null } } };
      }
      const reply = toHttpError(e);
      status = reply.status;
      retryAfterMs = retryAfterOf(e);
      failure = { error_code: reply.body.error.code, error: reply.body.error.message };
      return reply;
    };
    /** Writes the call's log line when it came through a rollout-scoped URL: before the caller sees the end of the answer. */
    const record = async () => {
      if (!scope || !MODEL_ROUTES.has(path)) return;
      const answered = status < 300;
      const line = servedCallRecord({
        scope,
        step: scope.calls++,
        callId,
        backend: backendKind,
        model,
        route: path,
        startedAt,
        latencyMs: performance.now() - started,
        status,
        stream: streamed,
        request,
        ...(overrides ? { samplingOverrides: overrides } : {}),
        ...(routing ? { routing } : {}),
        ...(answered ? { response: body, tokens } : { error: { code: failure!.error_code, message: failure!.error } }),
      });
      if (answered) scope.generatedTokens += line.tokens?.generation_token_ids.length ?? generatedByUsage(line.usage);
      try {
        await callLog(scope.run_dir).append(line);
      } catch (e) {
        // An unrecorded call must not pass as a recorded one, so the caller retries it.
        log.error({ err: e, run_dir: scope.run_dir }, 'gateway: cannot write the model call log');
        const reply = fail(new GatewayError(500, 'server_error', 'call_log_failed', `the gateway could not record this call in ${scope.run_dir}: ${(e as Error).message}`));
        return reply;
      }
      return undefined;
    };
    try {
      exchange.admit();
      if (exchange.scopeId !== undefined) {
        scope = rollouts.get(exchange.scopeId);
        if (!scope) {
          throw new GatewayError(
            404,
            'invalid_request_error',
            'unknown_rollout',
            `no rollout attempt "${exchange.scopeId}" is registered with this gateway; register it before pointing a client at its URL (docs/gateway.md)`,
          );
        }
        rolloutId = scope.rollout_id;
        log = log.child({ rollout_id: rolloutId, attempt: scope.attempt });
      }
      const methods = routes[path];
      const handler = methods?.[method] ?? rolloutRoute(path, method);
      if (!handler && !methods)
        throw new GatewayError(404, 'invalid_request_error', 'unknown_route', `no route ${path}; the gateway serves /v1/responses, /v1/chat/completions, /v1/messages and /v1/models`);
      if (!handler) throw new GatewayError(405, 'invalid_request_error', 'method_not_allowed', `${path} accepts ${Object.keys(methods!).join(', ')}, not ${method}`);
      const answer = await handler(call);
      if ('body' in answer) body = answer.body;
      else {
        const sink = exchange.openStream({ [CALL_ID_HEADER]: callId, [BACKEND_HEADER]: backendKind });
        streamed = true;
        sink.write(answer.stream.opening());
        // A backend streaming from its upstream hands its pieces over as they come: they go on at once.
        if (modelCtx) modelCtx.onDelta = (piece) => void (signal.aborted || sink.write(answer.stream.delta(piece)));
        let closing: SseEvent[];
        try {
          const final = await answer.result();
          closing = answer.stream.closing(final);
          body = answer.stream.assembled(final);
        } catch (e) {
          const reply = fail(e);
          body = reply.body;
          closing = signal.aborted ? [] : answer.stream.failure(reply.status, reply.body.error);
        }
        // The closing events wait for the log line, so a caller that saw the answer end knows it is recorded.
        const unrecorded = await record();
        sink.write([...closing.slice(0, -1), ...(unrecorded ? answer.stream.failure(unrecorded.status, unrecorded.body.error) : closing.slice(-1))]);
        sink.end();
      }
    } catch (e) {
      body = fail(e).body;
    }
    if (!streamed) {
      const unrecorded = await record();
      if (unrecorded) body = unrecorded.body;
    }
    const latencyMs = performance.now() - started;
    if (path === '/v1/messages' && status >= 300 && !streamed) body = anthropicError(status, (body as OpenAIErrorBody).error.message);
    const level = status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
    log[level]({ status, model, backend: backendKind, stream: streamed || undefined, ms: Math.round(latencyMs), ...failure }, 'gateway call');
    return { status, body, callId, backend: backendKind, streamed, retryAfterMs, ...(routing ? { routing } : {}) };
  }

  /**
   * A stream's events, written as few times as they can be: each socket write is a system call that on
   * loopback also runs the receiver's side of TCP, and a streamed answer used to take eight of them.
   * The headers and opening events wait up to OPENING_HOLD_MS for the answer's first piece to go with it;
   * pieces that come within PIECES_HOLD_MS go together; the end goes with the last events.
   */
  function eventSink(res: ServerResponse, headers: Record<string, string>): EventSink {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...headers });
    let pending = '';
    let held: NodeJS.Timeout | undefined;
    let soon = false;
    const gone = () => res.destroyed || res.writableEnded;
    const flush = () => {
      clearTimeout(held);
      soon = false;
      if (pending && !gone()) res.write(pending);
      pending = '';
    };
    let first = true;
    return {
      write: (events) => {
        if (gone() || events.length === 0) return;
        pending += events.map(sseText).join('');
        if (first) {
          first = false;
          held = setTimeout(flush, OPENING_HOLD_MS);
        } else if (!soon) {
          soon = true;
          clearTimeout(held);
          held = setTimeout(flush, PIECES_HOLD_MS);
        }
      },
      end: () => {
        clearTimeout(held);
        if (gone()) return;
        const text = pending;
        pending = '';
        res.end(text);
      },
    };
  }

  async function handleHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rolloutHeader = req.headers[ROLLOUT_ID_HEADER];
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    const rawPath = (req.url ?? '/').split('?')[0]!;
    const scoped = SCOPED_PATH.exec(rawPath);
    const reply = await serve({
      method: req.method ?? '',
      path: scoped ? scoped[2]! : rawPath,
      // A scoped URL names its rollout; the header is for unscoped callers.
      rolloutId: !scoped && typeof rolloutHeader === 'string' && rolloutHeader ? rolloutHeader : undefined,
      scopeId: scoped ? decodeURIComponent(scoped[1]!) : undefined,
      signal: abort.signal,
      parent: contextFromHeaders(req.headers),
      admit: () => admitHttp(req.headers, token),
      body: () => readJson(req),
      openStream: (headers) => eventSink(res, headers),
    });
    if (reply.streamed || res.destroyed || res.writableEnded) return;
    res.setHeader(CALL_ID_HEADER, reply.callId);
    res.setHeader(BACKEND_HEADER, reply.backend);
    if (reply.retryAfterMs !== undefined) res.setHeader('retry-after', String(Math.ceil(reply.retryAfterMs / 1000)));
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
  origin = originOf(host, port);
  const url = `${origin}/v1`;
  logger.info({ url }, 'gateway listening');

  return {
    url,
    token,
    register(input) {
      const spec = parseModelSpec(input);
      const name = modelName(spec);
      if (!models.has(name)) models.set(name, { backend: createBackend(spec), spec, created: Math.floor(Date.now() / 1000) });
      return name;
    },
    registerRollout,
    unregisterRollout: (id) => rollouts.remove(id),
    call: (request) =>
      serve({
        method: request.method ?? (request.body === undefined ? 'GET' : 'POST'),
        path: request.path,
        rolloutId: request.rolloutId || undefined,
        scopeId: undefined,
        signal: request.signal ?? new AbortController().signal,
        runDir: request.runDir,
        task: request.task,
        admit: () => {},
        body: async () => request.body,
        openStream: () => {
          throw new GatewayError(400, 'invalid_request_error', 'stream_unsupported', 'stream: in-process calls are answered whole; send "stream": false', 'stream');
        },
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

// The model gateway: one OpenAI-compatible HTTP server in front of every registered model (mock or
// upstream). Rollouts, agents and external harnesses all point their base URL here, so each model
// call is tied to its rollout, logged once, and answered the same way whatever serves it.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { createLogger } from '../util/logger';
import type { Backend, CallContext } from './backends/backend';
import { mockBackend, mockFiles } from './backends/mock';
import { openaiBackend } from './backends/openai';
import { GatewayError, toHttpError } from './errors';
import { readJson, sendJson, validateBody } from './http';
import { modelName, parseModelSpec, type ModelSpec, type ModelSpecInput } from './spec';
import { ChatCompletionRequest, ResponsesRequest } from './wire';

export const ROLLOUT_ID_HEADER = 'x-gymflow-rollout-id';
export const CALL_ID_HEADER = 'x-gymflow-call-id';
export const BACKEND_HEADER = 'x-gymflow-backend';

export interface Gateway {
  /** Base URL for OpenAI clients, e.g. `http://127.0.0.1:PORT/v1`. */
  url: string;
  /** Registers a model and returns the name to call it by; the same spec always gives the same name. */
  register(spec: ModelSpecInput): string;
  close(): Promise<void>;
}

interface Registered {
  backend: Backend;
  created: number;
}

interface Call {
  req: IncomingMessage;
  /** Resolves a model name, and records which backend answers for the response header and the log line. */
  useModel(name: string): { backend: Backend; ctx: CallContext };
}

type Handler = (call: Call) => Promise<unknown>;

function rejectStreaming(stream: boolean | null | undefined): void {
  if (stream === true) {
    throw new GatewayError(400, 'invalid_request_error', 'stream_unsupported', 'stream: streaming is not supported by the gateway yet; send "stream": false', 'stream');
  }
}

export async function startGateway(opts: { host?: string; port?: number; logger?: Logger } = {}): Promise<Gateway> {
  const host = opts.host ?? '127.0.0.1';
  const logger = opts.logger ?? createLogger('gymflow-gateway');
  const models = new Map<string, Registered>();
  const files = mockFiles();

  function createBackend(spec: ModelSpec): Backend {
    return spec.backend === 'mock' ? mockBackend(spec, files) : openaiBackend(spec);
  }

  const routes: Record<string, Record<string, Handler>> = {
    '/v1/responses': {
      POST: async (call) => {
        const body = validateBody(ResponsesRequest, await readJson(call.req));
        rejectStreaming(body.stream);
        const { backend, ctx } = call.useModel(body.model);
        return backend.responses(body, ctx);
      },
    },
    '/v1/chat/completions': {
      POST: async (call) => {
        const body = validateBody(ChatCompletionRequest, await readJson(call.req));
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

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const callId = randomUUID();
    const rolloutHeader = req.headers[ROLLOUT_ID_HEADER];
    const rolloutId = typeof rolloutHeader === 'string' && rolloutHeader ? rolloutHeader : undefined;
    const path = (req.url ?? '/').split('?')[0]!;
    const log = logger.child({ call_id: callId, rollout_id: rolloutId, method: req.method, path });
    let model: string | undefined;
    let backendKind = 'gateway';
    res.setHeader(CALL_ID_HEADER, callId);
    res.setHeader(BACKEND_HEADER, backendKind);

    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });

    const call: Call = {
      req,
      useModel(name) {
        const registered = models.get(name);
        if (!registered) {
          throw new GatewayError(404, 'invalid_request_error', 'model_not_found', `model "${name}" is not registered with this gateway; registered: ${[...models.keys()].join(', ') || 'none'}`, 'model');
        }
        model = name;
        backendKind = registered.backend.kind;
        res.setHeader(BACKEND_HEADER, backendKind);
        return { backend: registered.backend, ctx: { model: name, rolloutId, log, signal: abort.signal } };
      },
    };

    let status = 200;
    let failure: { error_code: string; error: string } | undefined;
    try {
      const methods = routes[path];
      if (!methods) throw new GatewayError(404, 'invalid_request_error', 'unknown_route', `no route ${path}; the gateway serves /v1/responses, /v1/chat/completions and /v1/models`);
      const handler = methods[req.method ?? ''];
      if (!handler) throw new GatewayError(405, 'invalid_request_error', 'method_not_allowed', `${path} accepts ${Object.keys(methods).join(', ')}, not ${req.method}`);
      sendJson(res, status, await handler(call));
    } catch (e) {
      if (abort.signal.aborted) {
        // Nobody is listening any more; 499 (nginx's "client closed request") keeps it out of the 5xx counts.
        status = 499;
        failure = { error_code: 'client_closed', error: 'the caller disconnected before the answer was ready' };
      } else {
        const { status: errorStatus, body } = toHttpError(e);
        status = errorStatus;
        failure = { error_code: body.error.code, error: body.error.message };
        sendJson(res, status, body);
      }
    }
    const level = status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
    log[level]({ status, model, backend: backendKind, ms: Math.round(performance.now() - started), ...failure }, 'gateway call');
  }

  const server = createServer((req, res) => void handle(req, res));
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
    register(input) {
      const spec = parseModelSpec(input);
      const name = modelName(spec);
      if (!models.has(name)) models.set(name, { backend: createBackend(spec), created: Math.floor(Date.now() / 1000) });
      return name;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((e) => (e ? reject(e) : resolve()));
        // Keep-alive sockets from SDK clients would otherwise hold close() open.
        server.closeAllConnections();
      }),
  };
}

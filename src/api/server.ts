// The trigger API's HTTP server: bearer auth and JSON checks at the edge, one table of routes onto the
// runs service, errors as `{error: {code, message, field?}}`, and a run's progress as server-sent events.
import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { GymError } from '../errors';
import { bearerCheck } from './auth';
import { errorResponse } from './errors';
import { openApiDocument } from './openapi';
import type { RunsService } from './runs-service';
import { LIVE_STATUSES, type RunView, type TRANSPORT_CODES } from './schemas';

const MAX_BODY_BYTES = 1 << 20;

export interface ApiServerOptions {
  host: string;
  port: number;
  token: string;
  runs: RunsService;
  logger: Logger;
  /** Between two progress lookups of an event stream. */
  eventIntervalMs?: number;
  /** Longest one progress lookup of an event stream may take before the stream says so and tries again. */
  lookupTimeoutMs?: number;
}

export interface ApiServer {
  url: string;
  close(): Promise<void>;
}

class Refusal {
  constructor(
    readonly status: number,
    readonly code: (typeof TRANSPORT_CODES)[number],
    readonly message: string,
  ) {}
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function isJson(contentType: string | undefined): boolean {
  const type = contentType?.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || (type !== undefined && /^application\/[a-z0-9.+-]+\+json$/.test(type));
}

/** The request's JSON body (undefined when empty); non-JSON media types and oversized bodies are refused. */
async function readJson(req: IncomingMessage, required: boolean): Promise<unknown> {
  const contentType = req.headers['content-type'];
  const chunks: Buffer[] = [];
  let size = 0;
  // Events, not `for await`: the async iterator costs more than the rest of reading a small body.
  await new Promise<void>((resolve, reject) => {
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.removeAllListeners('data').resume();
        reject(new Refusal(413, 'PAYLOAD_TOO_LARGE', `the body exceeds ${MAX_BODY_BYTES} bytes`));
      } else chunks.push(chunk);
    });
    let ended = false;
    req.once('end', () => {
      ended = true;
      resolve();
    });
    req.once('error', reject);
    // Before `end`, the client went away mid-body. (After it, nothing to say: an error made for nothing costs its stack.)
    req.once('close', () => ended || reject(new GymError('BAD_INPUT', 'the connection closed before the whole body came')));
  });
  if (contentType === undefined && !required && size === 0) return undefined;
  if (!isJson(contentType)) throw new Refusal(415, 'UNSUPPORTED_MEDIA_TYPE', `send the body as application/json, not ${contentType ?? 'without a Content-Type'}`);
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text.trim()) {
    if (required) throw new GymError('BAD_INPUT', 'the request body is empty; send the run as a JSON object');
    return undefined;
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new GymError('BAD_INPUT', `the body is not JSON: ${(e as Error).message}`);
  }
}

type Route = { method: string; pattern: RegExp; auth: boolean; handle: (m: RegExpExecArray, req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void> };

export async function startApiServer(opts: ApiServerOptions): Promise<ApiServer> {
  const authorized = bearerCheck(opts.token);
  const { runs } = opts;
  const interval = opts.eventIntervalMs ?? 1000;
  const lookupTimeout = opts.lookupTimeoutMs ?? 10_000;
  const openapi = JSON.stringify(openApiDocument());
  const streams = new Set<AbortController>();

  /** Progress while the run runs (sent when it changes), then one `end` event with the run's last view. */
  async function streamEvents(runId: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    // The first lookup answers errors (an unknown run) as a plain error response.
    let view: RunView = await runs.view(runId);
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive' });
    const stop = new AbortController();
    streams.add(stop);
    req.on('close', () => stop.abort());
    const event = (name: string, data: unknown) => res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
    let last = '';
    try {
      while (!stop.signal.aborted) {
        if (!LIVE_STATUSES.includes(view.status)) {
          event('end', view);
          break;
        }
        const progress = JSON.stringify(view.progress ?? null);
        if (progress !== last && view.progress) event('progress', view.progress);
        else res.write(': waiting\n\n');
        last = progress;
        await sleep(interval, undefined, { signal: stop.signal }).catch(() => undefined);
        if (stop.signal.aborted) break;
        const timeout = sleep(lookupTimeout, 'timeout' as const, { signal: stop.signal }).catch(() => 'timeout' as const);
        const next = await Promise.race([runs.view(runId), timeout]).catch((e: unknown) => errorResponse(e));
        if (next === 'timeout') event('error', { error: { code: 'UNREACHABLE', message: `no answer about the run within ${lookupTimeout} ms; trying again` } });
        else if ('body' in next) event('error', next.body);
        else view = next;
      }
    } finally {
      streams.delete(stop);
      res.end();
    }
  }

  const routes: Route[] = [
    {
      method: 'GET',
      pattern: /^\/v1\/openapi\.json$/,
      auth: false,
      handle: async (_m, _req, res) => {
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
        res.end(openapi);
      },
    },
    {
      method: 'POST',
      pattern: /^\/v1\/runs$/,
      auth: true,
      handle: async (_m, req, res) => {
        const body = await readJson(req, true);
        const key = req.headers['idempotency-key'];
        const created = await runs.submit(body, Array.isArray(key) ? key[0] : key);
        send(res, created.created ? 201 : 200, created, { location: `/v1/runs/${encodeURIComponent(created.run_id)}` });
      },
    },
    {
      method: 'GET',
      pattern: /^\/v1\/runs$/,
      auth: true,
      handle: async (_m, _req, res, url) => send(res, 200, await runs.list(Object.fromEntries(url.searchParams))),
    },
    {
      method: 'GET',
      pattern: /^\/v1\/runs\/([^/]+)$/,
      auth: true,
      handle: async (m, _req, res) => send(res, 200, await runs.view(decodeURIComponent(m[1]!))),
    },
    {
      method: 'GET',
      pattern: /^\/v1\/runs\/([^/]+)\/events$/,
      auth: true,
      handle: (m, req, res) => streamEvents(decodeURIComponent(m[1]!), req, res),
    },
    {
      method: 'POST',
      pattern: /^\/v1\/runs\/([^/]+)\/(cancel|pause|resume)$/,
      auth: true,
      handle: async (m, req, res) => {
        await readJson(req, false);
        send(res, 200, await runs.steer(decodeURIComponent(m[1]!), m[2] as 'cancel' | 'pause' | 'resume'));
      },
    },
  ];

  // The request's child logger is made only when something is logged: its bindings cost more than the rest of a
  // poll's answer, and at the default level a served request logs nothing.
  const infoLogged = opts.logger.isLevelEnabled('info');
  const server = http.createServer((req, res) => {
    let child: Logger | undefined;
    const log = () => (child ??= opts.logger.child({ request: randomUUID(), method: req.method, path: (req.url ?? '').split('?')[0] }));
    const url = new URL(req.url ?? '/', 'http://api.invalid');
    void (async () => {
      try {
        const matching = routes.filter((r) => r.pattern.test(url.pathname));
        if (!matching.length) throw new GymError('NOT_FOUND', `no route ${url.pathname}; see /v1/openapi.json`);
        const route = matching.find((r) => r.method === req.method);
        if (!route) throw new Refusal(405, 'METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${url.pathname}; use ${matching.map((r) => r.method).join(' or ')}`);
        // The token is never logged, nor echoed: a refusal says only that it is missing or wrong.
        if (route.auth && !authorized(req.headers.authorization)) {
          throw new Refusal(401, 'UNAUTHORIZED', req.headers.authorization ? 'the bearer token is wrong' : 'send the API token as `Authorization: Bearer <token>`');
        }
        await route.handle(route.pattern.exec(url.pathname)!, req, res, url);
        if (infoLogged) log().info({ status: res.statusCode }, 'answered');
      } catch (e) {
        if (e instanceof Refusal) {
          if (infoLogged) log().info({ status: e.status, code: e.code }, 'refused');
          // The body of a refused request is not read: the connection closes with the answer.
          return send(res, e.status, { error: { code: e.code, message: e.message } }, { ...(e.status === 401 ? { 'www-authenticate': 'Bearer' } : {}), connection: 'close' });
        }
        const { status, body, unexpected } = errorResponse(e);
        if (unexpected) log().error({ err: e }, 'unexpected error');
        else if (infoLogged) log().info({ status, code: body.error.code }, 'refused');
        if (res.headersSent) res.end();
        else send(res, status, body);
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    async close() {
      for (const s of streams) s.abort();
      server.closeIdleConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

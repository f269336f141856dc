// Serves one of our environments as a NeMo Gym resources server (`/seed_session`, a route per tool,
// `/verify`, `/aggregate_metrics`), with each rollout's state kept in memory behind a signed session
// cookie, so NeMo Gym agents and external harnesses can play our environments over HTTP.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { z } from 'zod';
import { runTool } from '../tools';
import { GymError } from '../../errors';
import { GatewayError } from '../../gateway/errors';
import { readJson, sendJson } from '../../gateway/http';
import { ResponseObject } from '../../schemas/responses';
import { contextFromHeaders, failSpan, inSpan, SpanKind } from '../../tracing/spans';
import { createLogger } from '../../util/logger';
import { JudgeError, type AnyEnvironment, type JudgeCall } from '../types';
import { aggregateVerifyResponses } from '../../metrics/nemo-gym-aggregate';
import { VERIFY_DEFAULTS } from '../../schemas/records';
import { RESERVED_ROUTES, stripRolloutPrefix } from './protocol';
import { SESSION_COOKIE, sessionCookies } from './session-cookie';

export interface EnvironmentServerOptions {
  env: AnyEnvironment;
  host?: string;
  port?: number;
  logger?: Logger;
  /** For environments that grade with a judge model; without one their verify answers `judge_failed`. */
  judge?: JudgeCall;
  /** Sessions kept before the oldest is dropped, so a long-lived server's memory stays bounded. */
  maxSessions?: number;
}

export interface EnvironmentServer {
  /** Base URL, e.g. `http://127.0.0.1:PORT`; the routes hang off it as in NeMo Gym. */
  url: string;
  close(): Promise<void>;
}

interface Session {
  task: unknown;
  state: unknown;
  /** Settles when the session's previous call has: calls on one session run one at a time, so none loses another's update. */
  turn: Promise<unknown>;
}

interface Call {
  req: IncomingMessage;
  log: Logger;
  /** The id this response's cookie carries: the request's own when validly signed, else a new one. */
  sessionId: string;
  /** Whether the request carried a validly signed session cookie. */
  carried: boolean;
}

interface Reply {
  status: number;
  body: unknown;
}

type Handler = (call: Call) => Promise<Reply>;

/** An answer other than 200, with FastAPI's `{"detail": ...}` body. */
class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: unknown,
  ) {
    super(typeof detail === 'string' ? detail : `HTTP ${status}`);
  }
}

const ok = (body: unknown): Reply => ({ status: 200, body });

const AggregateRequest = z.object({ verify_responses: z.array(z.record(z.string(), z.unknown())) });

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** FastAPI's 422 entries: `loc` is the path from `body` to the offending field. */
function validationDetail(result: z.ZodSafeParseResult<unknown>, loc: readonly PropertyKey[]) {
  if (result.success) return [];
  return result.error.issues.map((i) => ({ type: i.code, loc: [...loc, ...i.path].map((k) => (typeof k === 'number' ? k : String(k))), msg: i.message }));
}

function validated<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new HttpError(422, validationDetail(result, ['body']));
  return result.data;
}

function errorReply(e: unknown): Reply {
  if (e instanceof HttpError) return { status: e.status, body: { detail: e.detail } };
  if (e instanceof GatewayError) return { status: e.status, body: { detail: e.message } };
  // NeMo Gym answers an uncaught exception with a 500 whose body is the JSON string repr(e).
  return { status: 500, body: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
}

export async function startEnvironmentServer(opts: EnvironmentServerOptions): Promise<EnvironmentServer> {
  const { env } = opts;
  const shadowed = Object.keys(env.tools).filter((name) => RESERVED_ROUTES.includes(name));
  if (shadowed.length) throw new GymError('BAD_INPUT', `environment ${env.name} has tools named like resources-server routes (${shadowed.join(', ')}); rename them`);
  const host = opts.host ?? '127.0.0.1';
  const logger = (opts.logger ?? createLogger('gymflow-env-server')).child({ env: env.name });
  const maxSessions = opts.maxSessions ?? 100_000;
  const cookies = sessionCookies();
  const sessions = new Map<string, Session>();

  function sessionOf(call: Call): Session | undefined {
    return call.carried ? sessions.get(call.sessionId) : undefined;
  }

  function inTurn<T>(session: Session, fn: () => Promise<T>): Promise<T> {
    const run = session.turn.then(fn);
    session.turn = run.catch(() => undefined);
    return run;
  }

  async function seed(call: Call): Promise<Reply> {
    const task = validated(env.taskSchema, await readJson(call.req));
    const state = await env.seedSession(task);
    // Map order is seed order, so the first key is the oldest session.
    sessions.delete(call.sessionId);
    sessions.set(call.sessionId, { task, state, turn: Promise.resolve() });
    if (sessions.size > maxSessions) sessions.delete(sessions.keys().next().value!);
    return ok({});
  }

  async function tool(name: string, call: Call): Promise<Reply> {
    const session = sessionOf(call);
    if (!session) throw new HttpError(400, `no session: POST /seed_session first and send the "${SESSION_COOKIE}" cookie it sets with every tool call`);
    // runTool takes the arguments as the model wrote them, so the parsed body goes back to JSON text.
    const args = JSON.stringify(await readJson(call.req));
    return inTurn(session, async () => {
      const result = await runTool(env, session.task, session.state, name, args);
      session.state = result.state;
      return { status: result.status, body: JSON.parse(result.output) };
    });
  }

  async function verify(call: Call): Promise<Reply> {
    const body = await readJson(call.req);
    const fields = isRecord(body) ? body : undefined;
    const { response: _response, ...row } = fields ?? {};
    const taskResult = env.taskSchema.safeParse(fields ? row : body);
    const responseResult = ResponseObject.safeParse(fields?.response);
    if (!taskResult.success || !responseResult.success) {
      throw new HttpError(422, [...validationDetail(taskResult, ['body']), ...validationDetail(responseResult, ['body', 'response'])]);
    }
    const task = taskResult.data;
    const response = responseResult.data;
    const session = sessionOf(call);
    if (!session && env.reverifyMode !== 'stateless') {
      throw new HttpError(400, `no session: ${env.name} keeps state per rollout, so /verify needs the "${SESSION_COOKIE}" cookie of the rollout's /seed_session`);
    }
    const run = async (): Promise<Reply> => {
      const state = session ? session.state : await env.seedSession(task);
      try {
        // NeMo Gym's BaseVerifyResponse defaults: the reward is a valid measurement unless the environment says not.
        return ok({ ...task, response, ...VERIFY_DEFAULTS, ...(await env.verify(task, response, { state, judge: opts.judge })) });
      } catch (e) {
        if (!(e instanceof JudgeError)) throw e;
        call.log.warn({ err: e }, 'judge failed');
        // As NeMo Gym's judge failsafe answers: masked, so no quality metric counts it; the `_ng_failure_*`
        // fields for consumers that predate `failure_kind`.
        return ok({
          ...task,
          response,
          reward: 0,
          mask_sample: true,
          failure_kind: 'judge_failed',
          failure_reason: e.message,
          _ng_failure_class: 'judge_failed',
          _ng_failure_judge_error: e.message,
        });
      }
    };
    return session ? inTurn(session, run) : run();
  }

  const routes = new Map<string, Partial<Record<string, Handler>>>([
    ['/', { GET: async () => ok({ status: 'ok' }) }],
    ['/reverify_mode', { GET: async () => ok(env.reverifyMode === 'stateless' ? 'stateless' : 'unsupported') }],
    ['/seed_session', { POST: seed }],
    ['/verify', { POST: verify }],
    ['/aggregate_metrics', { POST: async (call) => ok(aggregateVerifyResponses(validated(AggregateRequest, await readJson(call.req)).verify_responses)) }],
    ...Object.keys(env.tools).map((name): [string, Partial<Record<string, Handler>>] => [`/${name}`, { POST: (call) => tool(name, call) }]),
  ]);

  function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { path, rolloutId } = stripRolloutPrefix((req.url ?? '/').split('?')[0]!);
    const attributes = { 'gymflow.environment': env.name, ...(rolloutId && { 'gymflow.rollout.id': rolloutId }) };
    return inSpan(`environment ${req.method} ${path}`, { kind: SpanKind.SERVER, parent: contextFromHeaders(req.headers), attributes }, async (span) => {
      const status = await answer(req, res, path, rolloutId);
      span.setAttribute('http.response.status_code', status);
      if (status >= 500) failSpan(span, `HTTP ${status}`);
    });
  }

  async function answer(req: IncomingMessage, res: ServerResponse, path: string, rolloutId: string | undefined): Promise<number> {
    const started = performance.now();
    const carriedId = cookies.read(req.headers.cookie);
    const sessionId = carriedId ?? cookies.newId();
    const log = logger.child({ request_id: randomUUID(), rollout_id: rolloutId, session_id: sessionId, method: req.method, path });
    // Like NeMo Gym's session middleware: every response carries the cookie, errors included.
    res.setHeader('set-cookie', cookies.setCookie(sessionId));
    let reply: Reply;
    try {
      const methods = routes.get(path);
      if (!methods) throw new HttpError(404, 'Not Found');
      const handler = methods[req.method ?? ''];
      if (!handler) throw new HttpError(405, 'Method Not Allowed');
      reply = await handler({ req, log, sessionId, carried: carriedId !== undefined });
    } catch (e) {
      reply = errorReply(e);
      if (reply.status >= 500) log.error({ err: e }, 'request failed');
    }
    sendJson(res, reply.status, reply.body);
    const level = reply.status >= 500 ? 'error' : reply.status >= 400 ? 'warn' : 'info';
    log[level]({ status: reply.status, ms: Math.round(performance.now() - started) }, 'environment server call');
    return reply.status;
  }

  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve, reject) => {
    const fail = (e: Error) => reject(new GymError('SETUP_FAILED', `environment server cannot listen on ${host}:${opts.port ?? 0}: ${e.message}`));
    server.once('error', fail);
    try {
      server.listen(opts.port ?? 0, host, () => {
        server.off('error', fail);
        // An unhandled 'error' event would end the process; a server error is logged instead.
        server.on('error', (e) => logger.error({ err: e }, 'environment server error'));
        resolve();
      });
    } catch (e) {
      fail(e as Error);
    }
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  logger.info({ url }, 'environment server listening');

  return {
    url,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((e) => (e ? reject(e) : resolve()));
        // Keep-alive sockets of agents would otherwise hold close() open.
        server.closeAllConnections();
      }),
  };
}

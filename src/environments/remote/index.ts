// A NeMo Gym resources server elsewhere, played as one of our environments over HTTP. The session
// cookie is the rollout's state, so a rollout resumed on another worker keeps its server session.
import { Agent, errors as undiciErrors, request } from 'undici';
import { z } from 'zod';
import { GymError } from '../../errors';
import { RemoteTimeouts, type RemoteTimeoutsInput } from '../names';
import { toNemoGymResponse } from '../../schemas/nemo-gym-response';
import { TaskRow } from '../../schemas/task';
import { inSpan, SpanKind, withTraceHeaders } from '../../tracing/spans';
import { VerifyResult } from '../../schemas/verify';
import { cookiePairs, toolNameProblem } from '../server/protocol';
import { defineEnvironment } from '../define';
import { JudgeError, type Environment, type Tool } from '../types';

export interface RemoteEnvironmentConfig {
  name: string;
  /** Where the resources server answers, e.g. `http://127.0.0.1:8000`. */
  baseUrl: string;
  /**
   * The tools to forward. A call to any other name is answered here with the 404 the server's own
   * router would give, without a request: the model picks the name, and forwarding any name would let
   * it reach `/seed_session` or `/verify`.
   */
  tools?: readonly string[];
  /** What `GET /reverify_mode` would say; taken from config because the interface is synchronous. */
  reverifyMode?: 'stateless' | 'stateful';
  description?: string;
  /** Bounds on each call (defaults: RemoteTimeouts). */
  timeouts?: RemoteTimeoutsInput;
}

/** The `Cookie` header to send, e.g. `session=…`; empty before the server has set one. */
export interface RemoteState {
  cookie: string;
}

/** Folds `Set-Cookie` headers into a `Cookie` header: a cookie set again replaces its old value. */
export function mergeCookies(cookie: string, setCookie: string | string[] | undefined): string {
  const jar = new Map(cookiePairs(cookie));
  for (const header of [setCookie ?? []].flat()) for (const [name, value] of cookiePairs(header.split(';')[0]!)) jar.set(name, value);
  return [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
}

/** Which of the call's bounds an error from undici says ran out, if one did. */
function timeoutBound(e: unknown): keyof RemoteTimeouts | undefined {
  if (e instanceof undiciErrors.ConnectTimeoutError) return 'connect_ms';
  if (e instanceof undiciErrors.HeadersTimeoutError) return 'first_byte_ms';
  if (e instanceof DOMException && e.name === 'TimeoutError') return 'total_ms';
  return undefined;
}

function parseJsonOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function createRemoteEnvironment(config: RemoteEnvironmentConfig): Environment<TaskRow, RemoteState> {
  const problems = (config.tools ?? []).flatMap((name) => toolNameProblem(name) ?? []);
  if (problems.length) throw new GymError('BAD_INPUT', `remote environment ${config.name}: ${problems.join('; ')}`);
  const base = new URL(config.baseUrl.endsWith('/') ? config.baseUrl : `${config.baseUrl}/`);
  const timeouts = RemoteTimeouts.parse(config.timeouts ?? {});
  const { connect_ms, first_byte_ms, total_ms } = timeouts;
  const dispatcher = new Agent({ connect: { timeout: connect_ms } });

  /** One POST; any status comes back, only a failure to get an answer throws (so the activity is retried). */
  function post(route: string, body: unknown, cookie: string): Promise<{ status: number; text: string; cookie: string }> {
    const url = new URL(route, base);
    // The server's span joins the rollout's trace through `traceparent`.
    return inSpan(`POST /${route}`, { kind: SpanKind.CLIENT, attributes: { 'server.address': url.host, 'gymflow.environment': config.name } }, async (span) => {
      const reply = await send(url, body, cookie);
      span.setAttribute('http.response.status_code', reply.status);
      return reply;
    });
  }

  async function send(url: URL, body: unknown, cookie: string): Promise<{ status: number; text: string; cookie: string }> {
    try {
      const res = await request(url, {
        method: 'POST',
        headers: withTraceHeaders({ 'content-type': 'application/json', ...(cookie ? { cookie } : {}) }),
        body: JSON.stringify(body),
        dispatcher,
        headersTimeout: first_byte_ms,
        // The whole call is bounded by total_ms; between body chunks only by that.
        bodyTimeout: 0,
        signal: AbortSignal.timeout(total_ms),
      });
      const text = await res.body.text();
      return { status: res.statusCode, text, cookie: mergeCookies(cookie, res.headers['set-cookie']) };
    } catch (e) {
      const bound = timeoutBound(e);
      if (bound) {
        throw new GymError(
          'TIMEOUT',
          `environment ${config.name}: POST ${url.href} gave no answer within ${bound} (${timeouts[bound]} ms); raise it with --remote-${bound.replace(/_ms$/, '').replace('_', '-')}-timeout-ms if the server is slow, not stuck`,
        );
      }
      throw new GymError('UNREACHABLE', `environment ${config.name}: POST ${url.href} failed: ${(e as Error).message}`);
    }
  }

  /** The JSON of a 2xx answer to a protocol route; anything else is the server's fault, not the model's. */
  function expectJson(route: string, reply: { status: number; text: string }): Record<string, unknown> {
    const body = parseJsonOrText(reply.text);
    if (reply.status < 200 || reply.status >= 300 || typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new GymError('UNREACHABLE', `environment ${config.name}: /${route} answered ${reply.status}: ${reply.text.slice(0, 500)}`);
    }
    return body as Record<string, unknown>;
  }

  const proxy = (name: string): Tool<TaskRow, RemoteState> => ({
    // The server validates the arguments and answers 422 itself, as it would for a NeMo Gym agent.
    args: z.unknown(),
    async run(args, { state }) {
      const reply = await post(name, args, state.cookie);
      return { status: reply.status, body: parseJsonOrText(reply.text), state: { cookie: reply.cookie } };
    },
  });

  return defineEnvironment<TaskRow, RemoteState>({
    name: config.name,
    description: config.description ?? `NeMo Gym resources server at ${base.href}`,
    taskSchema: TaskRow,
    reverifyMode: config.reverifyMode ?? 'stateful',
    tools: Object.fromEntries((config.tools ?? []).map((name) => [name, proxy(name)])),

    async seedSession(task) {
      const reply = await post('seed_session', task, '');
      expectJson('seed_session', reply);
      return { cookie: reply.cookie };
    },

    async verify(task, response, { state }) {
      // NeMo Gym validates the whole Responses object, so the fields our episode does not keep are filled in.
      const full = toNemoGymResponse(response, task.responses_create_params);
      // A null request setting means unset; NeMo Gym's own rollouts record them as null, but its schema refuses
      // null for some (parallel_tool_calls, tool_choice), so they are left out as NeMo Gym's client leaves them.
      const params = Object.fromEntries(Object.entries(task.responses_create_params).filter(([, v]) => v !== null));
      const body = expectJson('verify', await post('verify', { ...task, responses_create_params: params, response: full }, state.cookie));
      if (body._ng_failure_class === 'judge_failed') throw new JudgeError(String(body._ng_failure_judge_error ?? 'the remote judge gave no verdict'));
      if (body._ng_failure_class !== undefined) {
        throw new GymError('UNREACHABLE', `environment ${config.name}: /verify reported failure class ${String(body._ng_failure_class)}`);
      }
      // The server echoes the request; the record already holds the task and the episode.
      const { response: _response, responses_create_params: _params, ...fields } = body;
      const result = VerifyResult.safeParse(fields);
      if (!result.success) throw new GymError('UNREACHABLE', `environment ${config.name}: /verify answered without a numeric reward: ${JSON.stringify(fields).slice(0, 500)}`);
      return result.data;
    },
  });
}

// Calls a model through the worker's own gateway in-process (the same handler an external harness
// reaches over HTTP, minus the loopback hop), tagging the call with its rollout, and turns a failed
// call into the error code that decides whether it is retried and how the sidecar classes it.
import type { Gateway } from '../src/gateway/server';
import type { ModelSpec } from '../src/gateway/spec';
import { ResponseObject, type ResponseCreateParams } from '../src/schemas/responses';
import { GymError, type ErrorCode } from '../src/errors';
import { withRetryAfter } from '../src/gateway/errors';
import type { JudgeCall } from '../src/environments/types';
import type { CallRouting, ModelCallRecord } from '../src/schemas/records';
import { runFiles } from '../src/store/run-files';

export interface ModelCallResult {
  callId: string;
  backend: string;
  latencyMs: number;
  response: ResponseObject;
}

/**
 * A refused request (4xx but 408, 409, 429, at the gateway or upstream) is not retried; a timeout is its
 * own class; anything else is a model error worth retrying.
 */
export function modelFailureCode(status: number, errorCode?: string): ErrorCode {
  if (errorCode === 'timeout' || status === 408 || status === 504) return 'TIMEOUT';
  if (errorCode === 'upstream_rejected') return 'MODEL_REJECTED';
  if (status >= 400 && status < 500 && status !== 409 && status !== 429 && status !== 499) return 'MODEL_REJECTED';
  return 'MODEL_ERROR';
}

/** Drops null fields: recorded NeMo Gym rows spell out every unset parameter as null. */
function withoutNulls(params: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(params).filter(([, v]) => v !== null && v !== undefined));
}

/** The gateway's name for each spec object: a round's rollouts share one spec, so it is hashed once, not per call. */
const registered = new WeakMap<Gateway, WeakMap<ModelSpec, string>>();

function modelNameFor(gateway: Gateway, spec: ModelSpec): string {
  let names = registered.get(gateway);
  if (!names) registered.set(gateway, (names = new WeakMap()));
  let name = names.get(spec);
  if (name === undefined) {
    name = gateway.register(spec);
    names.set(spec, name);
  }
  return name;
}

/** A call as the gateway answered it, before it is judged: what the model call log keeps either way. */
export interface ModelReply {
  callId: string;
  backend: string;
  /** The gateway's name of the model. */
  model: string;
  /** ms since the epoch. */
  startedAt: number;
  latencyMs: number;
  status: number;
  body: unknown;
  /** The upstream's Retry-After, when the call failed with one. */
  retryAfterMs?: number;
  /** Which target of a router served the call. */
  routing?: CallRouting;
}

/** What a routing backend may use: the run folder (its condition is recorded there) and the task row (rules read it). */
export interface CallPlace {
  runDir?: string;
  task?: Record<string, unknown>;
}

export async function requestModel(gateway: Gateway, spec: ModelSpec, params: ResponseCreateParams, rolloutId: string, signal?: AbortSignal, place: CallPlace = {}): Promise<ModelReply> {
  const model = modelNameFor(gateway, spec);
  const startedAt = Date.now();
  const started = performance.now();
  const reply = await gateway.call({ path: '/v1/responses', body: { ...withoutNulls(params), model }, rolloutId, signal, ...place });
  return {
    callId: reply.callId,
    backend: reply.backend,
    model,
    startedAt,
    latencyMs: performance.now() - started,
    status: reply.status,
    body: reply.body,
    retryAfterMs: reply.retryAfterMs,
    ...(reply.routing ? { routing: reply.routing } : {}),
  };
}

/** The Responses object of an answered call, or the GymError a failed or malformed answer stands for. */
export function modelResponse(spec: ModelSpec, reply: ModelReply): ResponseObject {
  if (reply.status >= 300) {
    const error = (reply.body as { error?: { code?: string; message?: string } } | undefined)?.error;
    const err = new GymError(modelFailureCode(reply.status, error?.code), `model ${spec.backend} answered HTTP ${reply.status}: ${(error?.message ?? JSON.stringify(reply.body)).slice(0, 500)}`);
    throw withRetryAfter(err, reply.retryAfterMs);
  }
  const parsed = ResponseObject.safeParse(reply.body);
  if (!parsed.success) throw new GymError('MODEL_ERROR', `model ${spec.backend} returned an invalid Responses object: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

export async function callModelThroughGateway(gateway: Gateway, spec: ModelSpec, params: ResponseCreateParams, rolloutId: string, signal?: AbortSignal): Promise<ModelCallResult> {
  const reply = await requestModel(gateway, spec, params, rolloutId, signal);
  return { callId: reply.callId, backend: reply.backend, latencyMs: reply.latencyMs, response: modelResponse(spec, reply) };
}

/** Where a judge's calls are logged: the run folder's model_calls/, under the rollout they grade. */
export interface JudgeLogging {
  runDir: string;
  /** The run's object store, when its files are there (`--store`). */
  store?: string;
  rolloutId: string;
  attempt: number;
}

/**
 * A verify's judge: each call through the gateway like the policy's, and logged in model_calls/ with
 * role `judge`, answered or failed (the training rebuild leaves judge calls out and lists them as such).
 */
export function loggedJudge(gateway: Gateway, spec: ModelSpec, log: JudgeLogging, signal?: () => AbortSignal | undefined): JudgeCall {
  let step = 0;
  return async (params) => {
    const reply = await requestModel(gateway, spec, params, `${log.rolloutId}-judge`, signal?.(), { runDir: log.runDir });
    const logged: ModelCallRecord = {
      call_id: reply.callId,
      rollout_id: log.rolloutId,
      role: 'judge',
      step: step++,
      attempt: log.attempt,
      backend: reply.backend,
      model: reply.model,
      started_at: reply.startedAt,
      latency_ms: Math.round(reply.latencyMs * 10) / 10,
      status: reply.status,
      request: params,
      ...(reply.routing ? { routing: reply.routing } : {}),
    };
    let response: ResponseObject;
    try {
      response = modelResponse(spec, reply);
    } catch (e) {
      await runFiles(log)
        .callLog()
        .append({ ...logged, error: { code: (e as GymError).code, message: (e as Error).message } });
      throw e;
    }
    await runFiles(log)
      .callLog()
      .append({ ...logged, response });
    return response;
  };
}

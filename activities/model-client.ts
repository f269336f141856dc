// Calls a model through the gateway over HTTP (the same route an external harness uses), tagging
// the call with its rollout so the gateway can tie them together.
import { request } from 'undici';
import type { Gateway } from '../src/gateway/server';
import type { ModelSpec } from '../src/gateway/spec';
import { ResponseObject, type ResponseCreateParams } from '../src/schemas/responses';
import { GymError, type ErrorCode } from '../src/errors';

export interface ModelCallResult {
  callId: string;
  backend: string;
  latencyMs: number;
  response: ResponseObject;
}

/** A refused request (4xx but 408, 409, 429) is not retried; a timeout is its own class. */
export function modelFailureCode(status: number): ErrorCode {
  if (status === 408 || status === 504) return 'TIMEOUT';
  if (status >= 400 && status < 500 && status !== 409 && status !== 429) return 'MODEL_REJECTED';
  return 'MODEL_ERROR';
}

/** Drops null fields: recorded NeMo Gym rows spell out every unset parameter as null. */
function withoutNulls(params: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(params).filter(([, v]) => v !== null && v !== undefined));
}

export async function callModelThroughGateway(
  gateway: Gateway,
  spec: ModelSpec,
  params: ResponseCreateParams,
  rolloutId: string,
  signal?: AbortSignal,
): Promise<ModelCallResult> {
  const model = gateway.register(spec);
  const started = performance.now();
  const res = await request(`${gateway.url}/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.token}`, 'x-gymflow-rollout-id': rolloutId },
    body: JSON.stringify({ ...withoutNulls(params), model }),
    signal,
  });
  const text = await res.body.text();
  const latencyMs = performance.now() - started;
  if (res.statusCode >= 300) throw new GymError(modelFailureCode(res.statusCode), `model ${spec.backend} answered HTTP ${res.statusCode}: ${text.slice(0, 500)}`);
  const parsed = ResponseObject.safeParse(JSON.parse(text));
  if (!parsed.success) throw new GymError('MODEL_ERROR', `model ${spec.backend} returned an invalid Responses object: ${parsed.error.issues[0]?.message}`);
  return {
    callId: String(res.headers['x-gymflow-call-id'] ?? parsed.data.id),
    backend: String(res.headers['x-gymflow-backend'] ?? spec.backend),
    latencyMs,
    response: parsed.data,
  };
}

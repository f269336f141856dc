// The model call log line the gateway writes for a call that came through a rollout-scoped URL: the
// request summarized and digested, the answer in its route's wire shape, and its token ids pulled out.
import type { ModelCallRecord } from '../schemas/records';
import type { CallRouting } from './backends/backend';
import { canonicalJson, sha256Hex } from './canonical';
import { trainingTokensOf, type TrainingTokenIds } from './convert';
import type { RolloutScope } from './rollouts';

/** The conversation fields of each request shape: kept in the log as a count, the digest covers them. */
const CONVERSATION_FIELDS = ['input', 'messages'] as const;

/** The request without its conversation (a count of items instead), as the in-process log keeps it. */
export function requestSummary(body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const summary: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const field of CONVERSATION_FIELDS) {
    const value = summary[field];
    if (value === undefined) continue;
    delete summary[field];
    summary[`${field === 'input' ? 'input' : 'message'}_items`] = Array.isArray(value) ? value.length : 1;
  }
  return summary;
}

/** Token ids an answer carries on the wire: on its last output item that has them, or on the chat message. */
export function wireTokens(response: unknown): TrainingTokenIds | undefined {
  const r = response as { output?: unknown; choices?: { message?: object }[] } | undefined;
  if (Array.isArray(r?.output)) {
    for (let i = r.output.length - 1; i >= 0; i--) {
      const tokens = trainingTokensOf(r.output[i] as object);
      if (tokens) return tokens;
    }
    return undefined;
  }
  return trainingTokensOf(r?.choices?.[0]?.message);
}

export interface ServedCall {
  scope: RolloutScope;
  step: number;
  callId: string;
  backend: string;
  /** Undefined when the call failed before a model was chosen. */
  model: string | undefined;
  route: string;
  startedAt: number;
  latencyMs: number;
  status: number;
  stream: boolean;
  request: unknown;
  response?: unknown;
  /** The model's sampling overrides, forced onto the call. */
  samplingOverrides?: Record<string, unknown>;
  /** Which target of a router served the call. */
  routing?: CallRouting;
  /** Token ids the route's wire shape has no place for (Anthropic's), captured from the backend's answer. */
  tokens?: TrainingTokenIds;
  error?: { code: string; message: string };
}

export function servedCallRecord(call: ServedCall): ModelCallRecord {
  const response = call.response as { usage?: Record<string, unknown> | null } | undefined;
  const tokens = call.tokens ?? (call.response === undefined ? undefined : wireTokens(call.response));
  return {
    call_id: call.callId,
    rollout_id: call.scope.rollout_id,
    rollout_attempt_id: call.scope.id,
    step: call.step,
    attempt: call.scope.attempt,
    role: call.scope.role,
    backend: call.backend,
    ...(call.model ? { model: call.model } : {}),
    route: call.route,
    stream: call.stream,
    started_at: call.startedAt,
    latency_ms: Math.round(call.latencyMs * 10) / 10,
    status: call.status,
    request_digest: sha256Hex(canonicalJson(call.request ?? null)),
    request: requestSummary(call.request),
    ...(call.samplingOverrides ? { sampling_overrides: call.samplingOverrides } : {}),
    ...(call.routing ? { routing: call.routing } : {}),
    ...(call.error ? { error: call.error } : {}),
    ...(call.response !== undefined ? { response: call.response, usage: response?.usage ?? null } : {}),
    ...(tokens ? { tokens } : {}),
  };
}

// What a run writes: one rollout record per task × repeat (rollouts.jsonl) and one sidecar record per
// rollout that exhausted its retries (failures.jsonl). Wire names follow NeMo Gym's rollout rows.
import { z } from 'zod';
import { CompactionSummary, HistoryPolicy } from '../agents/history-policy';
import { ResponseObject } from './responses';

const count = z.number().int().nonnegative();
const ms = z.number().nonnegative();

/**
 * What a rollout cost and how long it took, written by the step that records it (docs/metrics.md
 * defines each field). Tokens are the policy model's; the judge's time is part of verify.
 */
export const RolloutDiagnostics = z.object({
  input_tokens: count,
  output_tokens: count,
  reasoning_tokens: count,
  turns: count,
  tool_calls: count,
  failed_tool_calls: count,
  latency_ms: z.object({ model: ms, tool: ms, verify: ms, sandbox: ms, queueing: ms, total: ms }),
  attempts: z.number().int().min(1),
});
export type RolloutDiagnostics = z.infer<typeof RolloutDiagnostics>;

/** A rollout played under a history policy: the policy, and each model call that was not shown the whole history. */
export const RolloutCompaction = z.object({
  policy: HistoryPolicy,
  compacted_calls: z.array(CompactionSummary.extend({ call_id: z.string(), step: z.number().int() })),
});
export type RolloutCompaction = z.infer<typeof RolloutCompaction>;

export const RolloutRecord = z.looseObject({
  _ng_task_index: z.number().int(),
  _ng_rollout_index: z.number().int(),
  _ng_rollout_id: z.string(),
  responses_create_params: z.unknown(),
  response: ResponseObject,
  reward: z.number(),
  reward_components: z.record(z.string(), z.number()).optional(),
  // NeMo Gym's BaseVerifyResponse fields (VERIFY_DEFAULTS when the environment sets none); absent in older records.
  mask_sample: z.boolean().optional(),
  failure_kind: z.string().nullish(),
  // NeMo Gym's is Optional[str]: its servers answer null when nothing went wrong.
  failure_reason: z.string().nullish(),
  /** The agent that played it (NeMo Gym's `agent_ref`): the task's own, else recordAgentRef's; absent in older records. */
  agent_ref: z.looseObject({ name: z.string() }).optional(),
  _gf_model_call_ids: z.array(z.string()),
  /** Absent only in records written before diagnostics were kept. */
  _gf_diagnostics: RolloutDiagnostics.optional(),
  /** NeMo Gym's attempt index: how many earlier attempts of this rollout ended in the sidecar (absent: none). */
  _ng_attempt_index: z.number().int().min(1).optional(),
  /** Present when the run has a history policy (`--history-policy`): the model did not see the whole history. */
  _gf_compaction: RolloutCompaction.optional(),
});
export type RolloutRecord = z.infer<typeof RolloutRecord>;

/** What NeMo Gym's verify response holds when nothing went wrong; an environment's verify result overrides them. */
export const VERIFY_DEFAULTS = { mask_sample: false, failure_kind: null, failure_reason: null } as const;

/**
 * The agent a record names: the task's own `agent_ref` (a routed run's), else `<environment>_<agent>`, the way
 * NeMo Gym names an environment's agent config (`mcqa_simple_agent`), so its tools can group the rows.
 */
export function recordAgentRef(row: Record<string, unknown>, envName: string, agent: string): { name: string } {
  const own = row.agent_ref as { name?: unknown } | undefined;
  if (own && typeof own === 'object' && typeof own.name === 'string') return own as { name: string };
  return { type: 'responses_api_agents', name: `${envName}_${agent}` } as { name: string };
}

export const FailureClass = z.enum([
  'model_error',
  'tool_error',
  'verify_error',
  'judge_failed',
  'env_error',
  'timeout',
  'bad_task',
  /** The rollout hit its cap on model calls or generated tokens (the gateway's per-rollout caps). */
  'cap_exceeded',
  'internal',
]);
export type FailureClass = z.infer<typeof FailureClass>;

export const FailureRecord = z.object({
  _ng_task_index: z.number().int(),
  _ng_rollout_index: z.number().int(),
  _ng_rollout_id: z.string(),
  _ng_failure_class: FailureClass,
  message: z.string(),
  stage: z.string(),
  /** Tries of the failing step within this attempt (in-activity retries included). */
  attempt: z.number().int(),
  failed_at: z.string(),
  /** NeMo Gym's terminal flag: a retry cannot fix it (a bad task, a refused request), so retries skip it. Absent in older sidecars: false. */
  _ng_failure_terminal: z.boolean().optional(),
  /** NeMo Gym's attempt index: 0 for the run's own attempt, one more for each `gym eval retry-failures` that played it again. */
  _ng_attempt_index: z.number().int().nonnegative().optional(),
});
export type FailureRecord = z.infer<typeof FailureRecord>;

/**
 * One line of the model call log (model_calls/*.jsonl): every policy call a rollout made, answered or
 * not, so the health checks can join a record's `_gf_model_call_ids` to what was really captured.
 */
/** Which target of a router served one call: kept in its model_calls/ record as `routing` (docs/gateway.md). */
export const CallRouting = z.object({
  /** `switchyard` (the proxy chose) or `gymflow` (Gymflow's own strategy chose). */
  by: z.enum(['switchyard', 'gymflow']),
  /** The Switchyard route id, or the routed model's name. */
  route: z.string(),
  /** Switchyard's target model id as it answered, or the name of Gymflow's target. */
  target: z.string(),
  /** The upstream model the target called, when it is known. */
  model: z.string().optional(),
  /** Gymflow's strategy: fixed, round_robin, random or rules. */
  strategy: z.string().optional(),
  /** The session id the router kept the rollout by (sent to Switchyard in its session headers). */
  session: z.string().optional(),
});
export type CallRouting = z.infer<typeof CallRouting>;

export const ModelCallRecord = z.looseObject({
  call_id: z.string(),
  rollout_id: z.string(),
  step: z.number().int(),
  attempt: z.number().int(),
  backend: z.string(),
  /** The gateway's name of the model called; calls to one model form one chain. */
  model: z.string().optional(),
  /** When the call started (ms since the epoch): orders a rollout's calls across attempts and workers. */
  started_at: z.number().optional(),
  latency_ms: z.number(),
  /** The HTTP status the gateway answered; absent in logs written before it was kept (they held only answered calls). */
  status: z.number().int().optional(),
  error: z.looseObject({ code: z.string().nullish(), message: z.string() }).optional(),
  request: z.unknown(),
  /** The Responses object of an answered call; absent when the call failed. */
  response: z.unknown().optional(),
  // Kept by the gateway for calls made through a rollout-scoped URL (docs/gateway.md); optional, so
  // older logs and the in-process policy calls still parse.
  /** `policy` (the default when absent) or `judge`. */
  role: z.enum(['policy', 'judge']).optional(),
  /** The route called: `/v1/responses`, `/v1/chat/completions` or `/v1/messages`; `response` is in its wire shape. */
  route: z.string().optional(),
  /** What the run's history policy left out of this call's input (absent: the whole history was sent). */
  compaction: CompactionSummary.optional(),
  /** The id in the rollout-scoped URL the call came through. */
  rollout_attempt_id: z.string().optional(),
  /** sha256 of the canonical JSON of the whole request body, which `request` summarizes. */
  request_digest: z.string().optional(),
  stream: z.boolean().optional(),
  /** Usage as the route's wire shape reports it (also inside `response`). */
  usage: z.record(z.string(), z.unknown()).nullish(),
  /** The generation's token ids and log-probs, whatever the route's wire shape (Anthropic's has no place for them). */
  /** The model's `sampling_overrides`, forced onto this call over what the caller sent. */
  sampling_overrides: z.record(z.string(), z.unknown()).optional(),
  routing: CallRouting.optional(),
  tokens: z.object({ prompt_token_ids: z.array(z.number().int()), generation_token_ids: z.array(z.number().int()), generation_log_probs: z.array(z.number()) }).optional(),
});
export type ModelCallRecord = z.infer<typeof ModelCallRecord>;

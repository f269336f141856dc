// What a run writes: one rollout record per task × repeat (rollouts.jsonl) and one sidecar record per
// rollout that exhausted its retries (failures.jsonl). Wire names follow NeMo Gym's rollout rows.
import { z } from 'zod';
import { ResponseObject } from './responses';

export const RolloutRecord = z.looseObject({
  _ng_task_index: z.number().int(),
  _ng_rollout_index: z.number().int(),
  _ng_rollout_id: z.string(),
  responses_create_params: z.unknown(),
  response: ResponseObject,
  reward: z.number(),
  reward_components: z.record(z.string(), z.number()).optional(),
  failure_reason: z.string().optional(),
  _gf_model_call_ids: z.array(z.string()),
});
export type RolloutRecord = z.infer<typeof RolloutRecord>;

export const FailureClass = z.enum([
  'model_error',
  'tool_error',
  'verify_error',
  'judge_failed',
  'env_error',
  'timeout',
  'bad_task',
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
  attempt: z.number().int(),
  failed_at: z.string(),
});
export type FailureRecord = z.infer<typeof FailureRecord>;

// The training record `gym eval export-training` writes, one JSONL line per rollout (docs/training.md),
// and the reasons a call is left out of it or a rollout is masked: defined once, as zod schemas.
import { z } from 'zod';

/** Why a call of the rollout is not part of its training response. */
export const DropReason = z.enum([
  /** A judge's call, not the policy's. */
  'judge_call',
  /** The call failed or was never answered: nothing was generated. */
  'failed_call',
  /** Answered with no generated token: no training signal (NeMo Gym drops these too). */
  'empty_generation',
  /** The same prompt as a call on the final path: a retry whose answer the episode did not keep. */
  'retry',
  /** Extends a call of the final path but is not on it: an abandoned fork or a side call. */
  'branch',
  /** Extends the final call: made after the answer that was scored. */
  'after_final_call',
  /** Before the call where the run's history policy compacted the input and the final chain starts. */
  'before_compaction',
  /** In another chain: before a rewrite of the context (not by the history policy), or unrelated to the final call. */
  'other_chain',
  /** The rollout is masked; the call's place could not be settled. */
  'unresolved',
]);
export type DropReason = z.infer<typeof DropReason>;

/** Why a whole rollout must not be trained on; its token arrays are then empty. */
export const MaskReason = z.enum([
  /** No call, or no call with generated tokens. */
  'no_calls',
  /** Which call the scored answer came from cannot be told (witnesses disagree, or several candidates). */
  'final_call_ambiguous',
  /** An answered call carries no token ids (its backend returned none). */
  'missing_token_ids',
  /** A call's token ids and log-probs are not a valid bundle. */
  'bad_token_metadata',
  /** A model call line of this rollout cannot be read, or two lines of one call id disagree. */
  'unreadable_call_record',
  /** The record names a model call that the call log does not hold. */
  'call_log_incomplete',
]);
export type MaskReason = z.infer<typeof MaskReason>;

const ids = z.array(z.number().int().nonnegative());

/** A call whose generation is in the response, and where. */
export const UsedCall = z.object({
  call_id: z.string(),
  step: z.number().int(),
  attempt: z.number().int(),
  /** Prompt tokens added since the previous call (tool outputs, new user turns): mask 0. The first call's is 0. */
  interstitial_tokens: z.number().int().nonnegative(),
  /** Where this call's generated tokens start in `response_token_ids`. */
  generation_start: z.number().int().nonnegative(),
  generation_tokens: z.number().int().nonnegative(),
});
export type UsedCall = z.infer<typeof UsedCall>;

/** A call whose input the run's history policy compacted, and whether its prompt therefore started a new chain. */
export const CompactedCall = z.object({
  call_id: z.string(),
  step: z.number().int(),
  /** False when its tokens still extend the turn before (what the policy left out never reached the prompt). */
  new_chain: z.boolean(),
});
export type CompactedCall = z.infer<typeof CompactedCall>;

export const DroppedCall = z.object({ call_id: z.string(), reason: DropReason, detail: z.string().optional() });
export type DroppedCall = z.infer<typeof DroppedCall>;

export const TrainingRecord = z.object({
  _ng_rollout_id: z.string(),
  _ng_task_index: z.number().int(),
  _ng_rollout_index: z.number().int(),
  reward: z.number(),
  /** The first call's prompt. */
  prompt_token_ids: ids,
  /** Every later token of the episode: each call's generation (mask 1) and what came between calls (mask 0). */
  response_token_ids: ids,
  /** 1 where the policy generated the token, 0 elsewhere; as long as `response_token_ids`. */
  response_mask: z.array(z.union([z.literal(0), z.literal(1)])),
  /** The sampled token's log-prob where the mask is 1, 0 where it is 0; as long as `response_token_ids`. */
  response_log_probs: z.array(z.number()),
  masked: z.boolean(),
  mask_reason: MaskReason.nullable(),
  /** What the mask reason is about: the call, the field, the witnesses. */
  mask_detail: z.string().nullable(),
  /** The calls on the final path, root first. Empty when masked. */
  calls: z.array(UsedCall),
  dropped_calls: z.array(DroppedCall),
  /** Chains the calls formed: more than one after a compaction or rewrite of the context. */
  chains: z.number().int().nonnegative(),
  /** The calls (with generated tokens) whose input the history policy compacted, in order; empty without one. */
  compacted_calls: z.array(CompactedCall),
});
export type TrainingRecord = z.infer<typeof TrainingRecord>;

// Settings of the social-bias verifier under NeMo Gym bbq's config keys; defaults are its shipped
// configs/bbq.yaml (temperature 0, seed 42, 4096 tokens, three attempts per check).
import { z } from 'zod';

export const SocialBiasConfig = z.object({
  /** Base Responses params for both judge calls; `input` and `text.format` are set per call. */
  judge_responses_create_params: z.record(z.string(), z.unknown()).default({ temperature: 0.0, max_output_tokens: 4096 }),
  judge_system_message: z.string().nullable().default(null),
  judge_max_attempts: z.number().int().min(1).max(8).default(3),
  judge_retry_backoff_seconds: z.number().min(0).max(60).default(2.0),
  /** Reward for a rollout with no assistant text; null makes such a rollout a verify error instead. */
  empty_response_reward: z.number().min(0).max(1).nullable().default(0.0),
});
export type SocialBiasConfig = z.infer<typeof SocialBiasConfig>;

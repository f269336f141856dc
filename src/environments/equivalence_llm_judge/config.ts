// The equivalence judge's settings, under NeMo Gym's config keys so its YAML carries over. Defaults are
// the shipped configs/equivalence_llm_judge.yaml; CLASS_DEFAULTS are the server class's own defaults.
import { z } from 'zod';
import { DEFAULT_JUDGE_PROMPT_TEMPLATE } from './prompt_template';

export const EquivalenceJudgeConfig = z.object({
  /** Base Responses params for every judge call; `input` is replaced per call. */
  judge_responses_create_params: z.record(z.string(), z.unknown()).default({}),
  judge_system_message: z.string().nullable().default(null),
  judge_prompt_template: z.string().default(DEFAULT_JUDGE_PROMPT_TEMPLATE),
  judge_equal_label: z.string().default('[[A=B]]'),
  judge_not_equal_label: z.string().default('[[A!=B]]'),
  question_extract_regex: z.string().nullable().default(null),
  response_extract_regex: z.string().nullable().default(null),
  msg_extraction_failure: z.string().default('[NO VALID ANSWER EXTRACTED]'),
  /** A final answer longer than this (characters, thinking excluded) scores 0 without a judge call. */
  max_answer_chars: z.number().int().positive().nullable().default(null),
  /** Judge a second time with the answers swapped, to catch positional bias. */
  check_twice_swap: z.boolean().default(false),
  reward_if_swap_fails: z.number().default(0.0),
  use_per_record_regex: z.boolean().default(true),
  extraction_length_threshold: z.number().int().nullable().default(null),
  check_full_generation_on_fail: z.boolean().default(false),
  reward_if_full_generation_succeeds: z.number().default(0.0),
});
export type EquivalenceJudgeConfig = z.infer<typeof EquivalenceJudgeConfig>;

/** NeMo Gym's LLMJudgeResourcesServerConfig defaults, where they differ from the shipped YAML. */
export const CLASS_DEFAULTS: Partial<EquivalenceJudgeConfig> = {
  extraction_length_threshold: 120,
  check_full_generation_on_fail: true,
  reward_if_full_generation_succeeds: 0.5,
};

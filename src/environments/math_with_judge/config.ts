// math_with_judge settings under NeMo Gym's config keys. Defaults are its shipped math_with_judge.yaml
// (judge off); the recorded example rollouts were made with the judge on.
import { z } from 'zod';

export const MathWithJudgeConfig = z.object({
  /** Ask the judge (twice, answers swapped) when the library check does not pass. */
  should_use_judge: z.boolean().default(false),
  /** Base Responses params for judge calls; `input` is replaced per call. */
  judge_responses_create_params: z.record(z.string(), z.unknown()).default({}),
  /**
   * Gymflow-only: what the judge sees as the model's answer. NeMo Gym v0.6.0 sends the extracted answer
   * (the full text when none was extracted); its servers before 2026-03, which recorded the example
   * rollouts, sent the full text.
   */
  judge_answer_source: z.enum(['extracted_answer', 'full_text']).default('extracted_answer'),
});
export type MathWithJudgeConfig = z.infer<typeof MathWithJudgeConfig>;

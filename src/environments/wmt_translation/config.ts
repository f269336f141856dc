// wmt_translation settings under NeMo Gym's config keys. Those that name a neural model or a
// language-ID backend are accepted so NeMo Gym configs load, but their metrics are reported unavailable.
import { z } from 'zod';

export const LANGUAGE_CONSISTENCY_BACKENDS = ['wmt24pp_cld2', 'flores_glotlid'] as const;

export const WmtTranslationConfig = z.object({
  /** Drop a `<think>…</think>` preamble before scoring (an unclosed one leaves nothing to score). */
  strip_reasoning: z.boolean().default(true),
  /** xCOMET-XXL: a download Gymflow never makes; true only reports it unavailable. */
  compute_comet: z.boolean().default(true),
  comet_model: z.string().default('Unbabel/XCOMET-XXL'),
  /** CLD2 (WMT24++) or GlotLID (FLORES) language consistency: reported unavailable when set. */
  language_consistency_backend: z.enum(LANGUAGE_CONSISTENCY_BACKENDS).nullable().default(null),
});
export type WmtTranslationConfig = z.infer<typeof WmtTranslationConfig>;

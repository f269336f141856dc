// NeMo Gym's wmt_translation (WMT24++, FLORES-200): a translation scored by sentence chrF against the
// reference, as sacrebleu computes it; reward = chrF / 100. Metrics that need downloads are reported unavailable.
import { z } from 'zod';
import { outputText } from '../../schemas/responses';
import { TaskRow } from '../../schemas/task';
import { pyStrip } from '../../python/str';
import { defineEnvironment } from '../define';
import type { Environment } from '../types';
import { sentenceBleu } from './bleu';
import { sentenceChrf } from './chrf';
import { WmtTranslationConfig } from './config';
import { BENCHMARK_ONLY } from '../evaluation-only';

export { WmtTranslationConfig } from './config';

export const WmtTranslationTask = TaskRow.extend({
  text: z.string(),
  translation: z.string(),
  source_language: z.string(),
  target_language: z.string(),
  source_lang_name: z.string().nullish(),
  target_lang_name: z.string().nullish(),
});
export type WmtTranslationTask = z.infer<typeof WmtTranslationTask>;

/** Everything after the last `</think>`; nothing when a `<think>` never closes (truncated mid-reasoning). */
export function stripReasoningPreamble(text: string): string {
  const close = text.lastIndexOf('</think>');
  if (close >= 0) return text.slice(close + '</think>'.length).replace(/^\n+/, '');
  return text.includes('<think>') ? '' : text;
}

interface Unavailable {
  metric: string;
  reason: string;
}

function unavailableMetrics(config: WmtTranslationConfig): Unavailable[] {
  const out: Unavailable[] = [{ metric: 'sentence_spbleu', reason: "spBLEU tokenizes with sacrebleu's FLORES-200 SentencePiece model, a download Gymflow does not make" }];
  if (config.compute_comet) out.push({ metric: 'comet_score', reason: `${config.comet_model} is a neural model download (and a GPU) Gymflow does not make` });
  if (config.language_consistency_backend === 'wmt24pp_cld2') {
    out.push({ metric: 'language_consistency_score', reason: 'the wmt24pp_cld2 backend needs the pycld2 language detector, which Gymflow does not bundle' });
  } else if (config.language_consistency_backend === 'flores_glotlid') {
    out.push({ metric: 'language_consistency_score', reason: 'the flores_glotlid backend needs the GlotLID fastText model, a download Gymflow does not make' });
  }
  return out;
}

export function createWmtTranslation(overrides: Partial<WmtTranslationConfig> = {}): Environment<WmtTranslationTask, null> {
  const config = WmtTranslationConfig.parse(overrides);
  const unavailable = unavailableMetrics(config);
  return defineEnvironment({
    name: 'wmt_translation',
    evaluationOnly: BENCHMARK_ONLY,
    needsDownload: unavailable.map((u) => u.metric),
    description: 'Machine translation (WMT24++, FLORES-200); reward = sentence chrF / 100 against the reference, as sacrebleu computes it.',
    taskSchema: WmtTranslationTask,
    configurable: { schema: WmtTranslationConfig, create: createWmtTranslation },
    verify(task, response) {
      const raw = outputText(response.output);
      const generation = pyStrip(config.strip_reasoning ? stripReasoningPreamble(raw) : raw);
      const missing = {
        sentence_spbleu: null,
        comet_score: null,
        language_consistency_score: null,
        unavailable_metrics: unavailable,
      };
      if (!generation) {
        const reason = raw.includes('<think>') && config.strip_reasoning && !raw.includes('</think>') ? 'unclosed_reasoning' : 'empty_generation';
        return { reward: 0.0, generation: '', sentence_chrf: 0.0, sentence_bleu: 0.0, ...missing, failure_reason: reason };
      }
      // Both sides in NFC, so equivalent Unicode sequences compare equal; the generation is kept as written.
      const hypothesis = generation.normalize('NFC');
      const reference = task.translation.normalize('NFC');
      const chrf = sentenceChrf(hypothesis, reference);
      return { reward: chrf / 100, generation, sentence_chrf: chrf, sentence_bleu: sentenceBleu(hypothesis, reference), ...missing };
    },
  });
}

/** With NeMo Gym's shipped configs/wmt_translation.yaml settings. */
export const wmtTranslation = createWmtTranslation();

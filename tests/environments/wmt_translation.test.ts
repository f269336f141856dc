// wmt_translation against NeMo Gym 0.7.0 and sacrebleu: recorded rollouts must reproduce their reward
// (chrF / 100) and chrF, and generated pairs must score exactly as the real sacrebleu 2.6.0 scored them
// (wmt_translation.cases.py). spBLEU, COMET and language ID need downloads: reported unavailable.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { getEnvironment } from '../../src/environments/registry';
import { WmtTranslationTask, wmtTranslation } from '../../src/environments/wmt_translation';
import { wmtTranslationOracle } from '../../src/environments/wmt_translation/oracle';
import { tokenize13a } from '../../src/environments/wmt_translation/bleu';
import { seededRng } from '../../src/util/rng';
import type { ResponseObject } from '../../src/schemas/responses';
import { FIXTURES, answerResponse, joinToTasks, readJsonl } from './nemo_fixtures';

const dir = path.join(FIXTURES, 'wmt_translation');
const ctx = { state: null };
const task = WmtTranslationTask.parse({
  responses_create_params: { input: [{ role: 'user', content: 'Translate into German.\n\nThe weather is lovely today.' }] },
  text: 'The weather is lovely today.',
  translation: 'Das Wetter ist heute schön.',
  source_language: 'en',
  target_language: 'de_DE',
});

describe('wmt_translation conformance with NeMo Gym recorded rollouts', () => {
  const tasks = readJsonl<{ responses_create_params: { input: unknown } }>(path.join(dir, 'example.jsonl'));
  const rollouts = readJsonl<{ responses_create_params: { input: unknown }; _ng_task_index: number; response: ResponseObject; reward: number; sentence_chrf: number; generation: string }>(
    path.join(dir, 'example_rollouts.jsonl'),
  );
  joinToTasks(rollouts, tasks).forEach(({ rollout, task }, i) => {
    it(`rollout #${i} reproduces reward ${rollout.reward}`, async () => {
      const result = (await wmtTranslation.verify(WmtTranslationTask.parse(task), rollout.response, ctx)) as Record<string, unknown>;
      expect(result.reward).toBe(rollout.reward);
      expect(result.sentence_chrf).toBe(rollout.sentence_chrf);
      expect(result.generation).toBe(rollout.generation);
    });
  });
});

describe('wmt_translation against the real sacrebleu on generated pairs', () => {
  const cases = readJsonl<{ output_text: string; translation: string; generation: string; sentence_chrf: number; sentence_bleu: number }>(
    path.join(import.meta.dirname, 'wmt_translation.cases.jsonl'),
  );
  // chrF (the reward) is bit-exact. BLEU goes through log and exp, whose last bit differs between V8's
  // and glibc's libm, so it is compared to 1e-12 relative.
  it(`scores all ${cases.length} pairs as sacrebleu does (chrF exactly, 13a BLEU to 1e-12)`, async () => {
    const mismatches: string[] = [];
    for (const c of cases) {
      const result = (await wmtTranslation.verify({ ...task, translation: c.translation }, answerResponse(c.output_text), ctx)) as Record<string, unknown>;
      const bleu = result.sentence_bleu as number;
      const bleuAgrees = Math.abs(bleu - c.sentence_bleu) <= 1e-12 * Math.max(1, c.sentence_bleu);
      const got = { generation: result.generation, sentence_chrf: result.sentence_chrf, bleuAgrees };
      const want = { generation: c.generation, sentence_chrf: c.sentence_chrf, bleuAgrees: true };
      if (JSON.stringify(got) !== JSON.stringify(want))
        mismatches.push(`${JSON.stringify(c.output_text)} vs ${JSON.stringify(c.translation)}: ${JSON.stringify(got)} (BLEU ${bleu}) != ${JSON.stringify(want)} (BLEU ${c.sentence_bleu})`);
    }
    expect(mismatches).toEqual([]);
  });

  it('tokenizes like mteval-v13a', () => {
    expect(tokenize13a('A&amp;B cost $1,234.56 (in 2023-24), ok.')).toBe('A & B cost $ 1,234.56 ( in 2023 - 24 ) , ok .');
  });
});

describe('wmt_translation verify result', () => {
  it('reports the download-only metrics as unavailable, never as scores', async () => {
    const result = (await wmtTranslation.verify(task, answerResponse('Das Wetter ist heute schön.'), ctx)) as Record<string, unknown>;
    expect(result).toMatchObject({ reward: 1, sentence_chrf: 100, sentence_spbleu: null, comet_score: null, language_consistency_score: null });
    expect(result.sentence_bleu).toBeCloseTo(100, 9);
    expect((result.unavailable_metrics as { metric: string }[]).map((u) => u.metric)).toEqual(['sentence_spbleu', 'comet_score']);
  });

  it('a language-consistency backend is named as unavailable too', async () => {
    const env = getEnvironment('wmt_translation?language_consistency_backend=%22flores_glotlid%22&compute_comet=false');
    const result = (await env.verify(task, answerResponse('Das Wetter'), ctx)) as Record<string, unknown>;
    expect((result.unavailable_metrics as { metric: string }[]).map((u) => u.metric)).toEqual(['sentence_spbleu', 'language_consistency_score']);
    expect(result.language_consistency_score).toBeNull();
  });

  it('empty and unclosed-reasoning answers score 0 with a failure_reason; strip_reasoning=false scores the raw text', async () => {
    expect(await wmtTranslation.verify(task, answerResponse('  '), ctx)).toMatchObject({ reward: 0, failure_reason: 'empty_generation' });
    expect(await wmtTranslation.verify(task, answerResponse('<think>Das Wetter ist heute schön.'), ctx)).toMatchObject({ reward: 0, failure_reason: 'unclosed_reasoning' });
    const raw = getEnvironment('wmt_translation?strip_reasoning=false');
    const result = (await raw.verify(task, answerResponse('<think>x</think>Das Wetter ist heute schön.'), ctx)) as Record<string, unknown>;
    expect(result.reward).toBeGreaterThan(0);
    expect(result.reward).toBeLessThan(1);
  });

  it('the oracle scores 1 when correct and less when not', async () => {
    for (const correct of [true, false]) {
      const items = wmtTranslationOracle(task, [], { correct, rng: seededRng(1) });
      const result = await wmtTranslation.verify(task, { id: 'r', object: 'response', output: items } as ResponseObject, ctx);
      if (correct) expect(result.reward).toBe(1);
      else expect(result.reward).toBeLessThan(0.5);
    }
  });
});

// HLE vision (configs/benchmarks/hle-vision.yaml) against NeMo Gym 0.7.0: the benchmark's settings, read as
// `gym eval run --config` reads them, make equivalence_llm_judge give the verdicts, and send the judge prompts,
// that NeMo Gym's own verify configured by benchmarks/hle/config_vision.yaml did (hle_vision.cases.py).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { keyValueFlag } from '../../src/cli/args';
import { EVAL_RUN_FLAG_NAMES } from '../../src/cli/commands/eval-run';
import { readConfigFile } from '../../src/cli/config-file';
import { assistantMessage } from '../../src/environments/example_single_tool_call';
import { configuredEnvironmentName } from '../../src/environments/names';
import { getEnvironment } from '../../src/environments/registry';
import type { JudgeCall } from '../../src/environments/types';
import type { ConversationItem } from '../../src/schemas/responses';
import { readJsonl } from './nemo_fixtures';

const CONFIG = path.resolve(import.meta.dirname, '../../configs/benchmarks/hle-vision.yaml');

function hleVisionEnvironmentName(): string {
  const flags = readConfigFile(CONFIG, EVAL_RUN_FLAG_NAMES);
  return configuredEnvironmentName(flags.env as string, keyValueFlag(flags, 'env-option'));
}

interface Case {
  row: Record<string, unknown>;
  output: ConversationItem[];
  judge: { text: string; incomplete?: boolean };
  verdict: { reward: number; expected_answer: string; labels: (string | null)[]; prompts: { role: string; content: string }[][] };
}

describe('HLE vision against NeMo Gym equivalence_llm_judge with config_vision settings', () => {
  const env = getEnvironment(hleVisionEnvironmentName());
  const cases = readJsonl<Case>(path.join(import.meta.dirname, 'hle_vision.cases.jsonl'));

  it('the shipped config reads as equivalence_llm_judge, with a judge, its input the example rows with their images', () => {
    const flags = readConfigFile(CONFIG, EVAL_RUN_FLAG_NAMES);
    expect(flags).toMatchObject({ env: 'equivalence_llm_judge', 'judge-model': 'openai', 'max-steps': '1' });
    const rows = readJsonl<{ has_image: boolean; responses_create_params: { input: { content: unknown }[] } }>(flags.input as string);
    expect(rows.filter((r) => r.has_image)).toHaveLength(3);
    for (const r of rows) env.taskSchema.parse(r);
    expect(env.requiresJudge).toBe(true);
  });

  it(`agrees on all ${cases.length} verdicts and the judge prompts they sent`, async () => {
    const disagreements: unknown[] = [];
    for (const c of cases) {
      const asked: unknown[] = [];
      const judge: JudgeCall = async (params) => {
        asked.push((params.input as { role: string; content: string }[]).map((m) => ({ role: m.role, content: m.content })));
        return { id: 'j', object: 'response', output: [assistantMessage(c.judge.text)], ...(c.judge.incomplete ? { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } } : {}) };
      };
      const result = await env.verify(env.taskSchema.parse(c.row), { id: 'r', object: 'response', output: c.output }, { state: null, judge });
      const ours = {
        reward: result.reward,
        expected_answer: result.expected_answer,
        labels: ((result.judge_evaluations ?? []) as { verdict_label: string | null }[]).map((e) => e.verdict_label),
        prompts: asked,
      };
      if (JSON.stringify(ours) !== JSON.stringify(c.verdict)) disagreements.push({ c, ours });
    }
    expect(disagreements.slice(0, 3)).toEqual([]);
    expect(new Set(cases.map((c) => c.verdict.reward))).toEqual(new Set([0, 1]));
  });
});

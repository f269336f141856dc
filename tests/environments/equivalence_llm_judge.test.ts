import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLASS_DEFAULTS, createEquivalenceLlmJudge, equivalenceLlmJudge, OPENQA_CONFIG } from '../../src/environments/equivalence_llm_judge';
import { DEFAULT_JUDGE_PROMPT_TEMPLATE } from '../../src/environments/equivalence_llm_judge/prompt_template';
import { EquivalenceTask } from '../../src/environments/equivalence_llm_judge/task';
import { JudgeError } from '../../src/environments/types';
import { equivalenceLlmJudgeOracle } from '../../src/environments/equivalence_llm_judge/oracle';
import type { ResponseObject } from '../../src/schemas/responses';
import { seededRng } from '../../src/util/rng';
import { verifyInChild } from './env_helpers';
import { answerResponse, failingJudge, FIXTURES, joinToTasks, readJsonl, replayJudge, textJudge } from './nemo_fixtures';

const DIR = path.join(FIXTURES, 'equivalence_llm_judge');
const tasks = readJsonl(path.join(DIR, 'example_openqa.jsonl')).map((row) => EquivalenceTask.parse(row));

interface RecordedRollout {
  responses_create_params: { input: unknown };
  response: ResponseObject;
  reward: number;
  expected_answer: string;
  judge_evaluations: { responses_create_params: { input: unknown[] }; response: ResponseObject; verdict_label?: string | null }[];
}
const rollouts = readJsonl<RecordedRollout>(path.join(DIR, 'example_rollouts_openqa.jsonl'));

function task(overrides: Record<string, unknown>) {
  return EquivalenceTask.parse({ responses_create_params: { input: [{ role: 'user', content: 'What is 2+2?' }] }, ...overrides });
}

describe('equivalence_llm_judge conformance with NeMo Gym recordings', () => {
  const env = createEquivalenceLlmJudge(OPENQA_CONFIG);

  it('embeds the fixture prompt template, stripped as NeMo Gym loads it', () => {
    const file = readFileSync(path.join(DIR, 'prompt_templates/equivalence_llm_judge.txt'), 'utf8');
    expect(DEFAULT_JUDGE_PROMPT_TEMPLATE).toBe(file.trim());
  });

  it.each(joinToTasks(rollouts, tasks).map(({ rollout, task }, i) => [i, rollout, task] as const))('rollout %i: reward, verdicts and judge prompts reproduce', async (_i, rollout, task) => {
    const { judge, sent } = replayJudge(rollout.judge_evaluations.map((e) => e.response));
    const result = await env.verify(task, rollout.response, { state: null, judge });
    expect(result.reward).toBe(rollout.reward);
    expect(result.expected_answer).toBe(rollout.expected_answer);
    expect(sent.map((p) => p.input)).toEqual(rollout.judge_evaluations.map((e) => e.responses_create_params.input));
    const evaluations = result.judge_evaluations as { verdict_label: string | null }[];
    expect(evaluations.map((e) => e.verdict_label)).toEqual(rollout.judge_evaluations.map((e) => e.verdict_label ?? null));
    if (rollout.reward < 1) expect(result.failure_reason).toBeTruthy();
    else expect(result.failure_reason).toBeUndefined();
  });
});

describe('equivalence_llm_judge judge failures', () => {
  it('throws JudgeError when the judge call fails', async () => {
    await expect(equivalenceLlmJudge.verify(task({ expected_answer: '4' }), answerResponse('4'), { state: null, judge: failingJudge })).rejects.toBeInstanceOf(JudgeError);
  });

  it('throws JudgeError when no judge is configured', async () => {
    await expect(equivalenceLlmJudge.verify(task({ expected_answer: '4' }), answerResponse('4'), { state: null })).rejects.toBeInstanceOf(JudgeError);
  });

  it('a reply without a verdict label is "not equal", not a failure', async () => {
    const { judge } = textJudge('I cannot decide.');
    const result = await equivalenceLlmJudge.verify(task({ expected_answer: '4' }), answerResponse('4'), { state: null, judge });
    expect(result.reward).toBe(0);
    expect(result.failure_reason).toBe('judge_gave_no_verdict');
  });

  it('a judge reply whose last item is not a message is "not equal"', async () => {
    const { judge } = replayJudge([{ id: 'r', output: [{ type: 'reasoning', summary: [] }] }]);
    const result = await equivalenceLlmJudge.verify(task({ expected_answer: '4' }), answerResponse('4'), { state: null, judge });
    expect(result.reward).toBe(0);
  });
});

describe('equivalence_llm_judge edge cases', () => {
  const userPrompt = (sent: { input: unknown }) => (sent.input as { content: string }[]).at(-1)!.content;

  it('an empty answer scores 0 without a judge call (NeMo Gym 0.7.0)', async () => {
    const { judge, sent } = textJudge('[[A!=B]]');
    const result = await equivalenceLlmJudge.verify(task({ expected_answer: '4' }), answerResponse('   '), { state: null, judge });
    expect(result).toMatchObject({ reward: 0, failure_reason: 'empty_final_answer', judge_evaluations: [] });
    expect(sent).toHaveLength(0);
    const capped = createEquivalenceLlmJudge({ max_answer_chars: 3 });
    expect(await capped.verify(task({ expected_answer: '4' }), answerResponse('four'), { state: null, judge })).toMatchObject({ reward: 0, failure_reason: 'final_answer_too_long' });
    expect(sent).toHaveLength(0);
  });

  it('the last label in the text wins (NeMo Gym 0.7.0)', async () => {
    const { judge } = textJudge('[[A=B]] ... no wait [[A!=B]]');
    const result = await equivalenceLlmJudge.verify(task({ expected_answer: '4' }), answerResponse('4'), { state: null, judge });
    expect(result.reward).toBe(0);
    const { judge: again } = textJudge('[[A!=B]] ... no wait [[A=B]]');
    expect((await equivalenceLlmJudge.verify(task({ expected_answer: '4' }), answerResponse('4'), { state: null, judge: again })).reward).toBe(1);
  });

  it('keeps unicode and surrounding text, stripping only the ends', async () => {
    const { judge, sent } = textJudge('[[A=B]]');
    await equivalenceLlmJudge.verify(task({ expected_answer: 'ΔU = Q − W' }), answerResponse('\u3000 ΔU = Q − W \n'), { state: null, judge });
    expect(userPrompt(sent[0]!)).toContain('GOLD:\nΔU = Q − W\n\nCANDIDATE:\nΔU = Q − W');
  });

  it('takes the last match of the row regex, first non-empty group', async () => {
    const { judge, sent } = textJudge('[[A=B]]');
    const row = task({ expected_answer: '4', template_metadata: { output_regex: '\\\\boxed\\{(.*?)\\}' } });
    await equivalenceLlmJudge.verify(row, answerResponse('First \\boxed{3}, then \\boxed{ 4 }.'), { state: null, judge });
    expect(userPrompt(sent[0]!)).toMatch(/CANDIDATE:\n4$/);
  });

  it('swap check: equal then not-equal-when-swapped gives reward_if_swap_fails', async () => {
    const env = createEquivalenceLlmJudge({ check_twice_swap: true, reward_if_swap_fails: -1 });
    const { judge, sent } = textJudge('[[A=B]]', '[[A!=B]]');
    const result = await env.verify(task({ expected_answer: '4' }), answerResponse('four'), { state: null, judge });
    expect(result.reward).toBe(-1);
    expect(result.failure_reason).toBe('judge_not_equivalent_when_swapped');
    expect(userPrompt(sent[1]!)).toContain('GOLD:\nfour\n\nCANDIDATE:\n4');
  });

  it('rescue pass on the full generation gives partial credit with class defaults', async () => {
    const env = createEquivalenceLlmJudge(CLASS_DEFAULTS);
    const { judge, sent } = textJudge('[[A!=B]]', '[[A=B]]');
    const row = task({ expected_answer: '4', template_metadata: { output_regex: '<final_answer>(.*?)</final_answer>' } });
    const result = await env.verify(row, answerResponse('It is 4. <final_answer>four-ish</final_answer>'), { state: null, judge });
    expect(result.reward).toBe(0.5);
    expect(sent).toHaveLength(2);
    expect(userPrompt(sent[1]!)).toContain('CANDIDATE:\nIt is 4. <final_answer>four-ish</final_answer>');
  });

  it('long gold answers skip the regex, the rescue and the swap', async () => {
    const env = createEquivalenceLlmJudge(OPENQA_CONFIG);
    const gold = 'x'.repeat(121);
    const { judge, sent } = textJudge('[[A=B]]');
    const row = task({ expected_answer: gold, template_metadata: { output_regex: '\\*\\*(.*?)\\*\\*' } });
    const result = await env.verify(row, answerResponse(`So: **${gold}**`), { state: null, judge });
    expect(result.reward).toBe(1);
    expect(sent).toHaveLength(1);
    expect(userPrompt(sent[0]!)).toContain(`CANDIDATE:\nSo: **${gold}**`);
  });

  it('falls back to metadata.expected_answer and sends the optional system message first', async () => {
    const env = createEquivalenceLlmJudge({ judge_system_message: 'Be strict.', judge_responses_create_params: { temperature: 0 } });
    const { judge, sent } = textJudge('[[A=B]]');
    const result = await env.verify(task({ metadata: { expected_answer: 4 } }), answerResponse('4'), { state: null, judge });
    expect(result.expected_answer).toBe('4');
    expect(sent[0]!.temperature).toBe(0);
    expect((sent[0]!.input as { role: string }[]).map((m) => m.role)).toEqual(['system', 'user']);
  });

  it('refuses a row whose output_regex does not compile, naming the field and the reason', () => {
    const parsed = EquivalenceTask.safeParse({ responses_create_params: { input: [] }, template_metadata: { output_regex: '(unclosed' } });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]!.path).toEqual(['template_metadata', 'output_regex']);
    expect(parsed.error!.issues[0]!.message).toMatch(/"\(unclosed" is not a valid regular expression \(re\.error: missing \), unterminated subpattern/);
  });

  it('an invalid response_extract_regex setting judges the whole answer, as Python re.error does', async () => {
    const env = createEquivalenceLlmJudge({ use_per_record_regex: false, response_extract_regex: '(unclosed' });
    const { judge, sent } = textJudge('[[A=B]]');
    await env.verify(task({ expected_answer: '4' }), answerResponse('The answer is 4'), { state: null, judge });
    expect(userPrompt(sent[0]!)).toMatch(/CANDIDATE:\nThe answer is 4$/);
  });

  it('a catastrophically backtracking output_regex fails verify with REGEX_TIMEOUT; the next row is judged', async () => {
    const catastrophic = '^(?:[a-z ]+\\s*)+:(\\w)';
    const row = (output_regex: string) => ({ responses_create_params: { input: [{ role: 'user', content: 'Q?' }] }, expected_answer: '4', template_metadata: { output_regex } });
    const [frozen, next] = await verifyInChild([
      { env: 'equivalence_llm_judge', task: row(catastrophic), text: 'so the answer is four and not five '.repeat(40) },
      { env: 'equivalence_llm_judge', task: row('Answer:\\s*(\\d+)'), text: 'Answer: 4' },
    ]);
    expect(frozen!.error?.code).toBe('REGEX_TIMEOUT');
    expect(next).toMatchObject({ reward: 1 });
    expect(next!.ticks).toBeGreaterThan(frozen!.ticks);
  });
});

describe('equivalence_llm_judge oracle', () => {
  it('writes the gold answer where the row regex finds it', () => {
    for (const t of tasks) {
      const [item] = equivalenceLlmJudgeOracle(t, [], { correct: true, rng: seededRng(1) });
      const text = (item as unknown as { content: { text: string }[] }).content[0]!.text;
      const regex = new RegExp(t.template_metadata!.output_regex!, 'ms');
      expect(
        regex
          .exec(text)
          ?.slice(1)
          .find((g) => g?.trim()) ?? '',
      ).toBe(t.expected_answer);
    }
  });
});

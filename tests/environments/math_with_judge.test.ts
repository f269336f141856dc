import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMathWithJudge, libraryCheck, mathWithJudge } from '../../src/environments/math_with_judge';
import { JUDGE_SYSTEM_MESSAGE } from '../../src/environments/math_with_judge/judge_prompt';
import { normalizeLatex } from '../../src/environments/math_with_judge/math/normalize';
import { MathTask } from '../../src/environments/math_with_judge/task';
import { JudgeError } from '../../src/environments/types';
import { mathWithJudgeOracle } from '../../src/environments/math_with_judge/oracle';
import type { ResponseObject } from '../../src/schemas/responses';
import { seededRng } from '../../src/util/rng';
import { answerResponse, failingJudge, FIXTURES, joinToTasks, readJsonl, replayJudge, textJudge } from './nemo_fixtures';

const DIR = path.join(FIXTURES, 'math_with_judge');
const tasks = readJsonl(path.join(DIR, 'example.jsonl')).map((row) => MathTask.parse(row));
interface RecordedRollout {
  responses_create_params: { input: unknown };
  response: ResponseObject;
  reward: number;
  expected_answer: string;
  extracted_answer: string;
  library_reward: number;
  judge_evaluations: { responses_create_params: { input: unknown[] }; response: ResponseObject }[] | null;
}
const rollouts = readJsonl<RecordedRollout>(path.join(DIR, 'example_rollouts.jsonl'));

interface MathVerifyCase {
  batch: number;
  expected: string;
  generated: string;
  library_reward: number;
  extracted_answer: string | null;
}
// Cases run through math-verify 0.8.0 itself (math_with_judge.mathverify_reference.py).
const mathVerifyCases = readJsonl<MathVerifyCase>(path.resolve(import.meta.dirname, 'math_with_judge.mathverify_cases.jsonl'));
/** Where this port and math-verify disagree on the reward, and why. */
const KNOWN_REWARD_DIFFERENCES: Record<string, string> = {
  // math-verify's 5 s comparison timeout fires on this machine; NeMo Gym recorded 1.0 (fixture rollout 2).
  '\\frac{(3-\\sqrt{3})(2-\\sqrt{3})^{2016}+(3+\\sqrt{3})(2+\\sqrt{3})^{2016}}{6}': 'timeout in math-verify',
  // Calculus notation in a gold answer is not parsed here.
  '\\frac{d}{dx} x^2': 'derivative',
  '\\sum_{k=1}^{n} k': 'sum',
  '\\int_0^1 x dx': 'integral',
  '\\lim_{x\\to 0} \\frac{\\sin x}{x}': 'limit',
};

describe('math_with_judge conformance with NeMo Gym recordings (judge on, full text to the judge)', () => {
  const env = createMathWithJudge({ should_use_judge: true, judge_answer_source: 'full_text' });
  it.each(joinToTasks(rollouts, tasks).map(({ rollout, task }, i) => [i, rollout, task] as const))('rollout %i reproduces', async (_i, rollout, task) => {
    const { judge, sent } = replayJudge((rollout.judge_evaluations ?? []).map((e) => e.response));
    const result = await env.verify(task, rollout.response, { state: null, judge });
    expect(result.reward).toBe(rollout.reward);
    expect(result.library_reward).toBe(rollout.library_reward);
    expect(result.expected_answer).toBe(rollout.expected_answer);
    expect(sent.map((p) => p.input)).toEqual((rollout.judge_evaluations ?? []).map((e) => e.responses_create_params.input));
    expect(result.judge_evaluations === null).toBe(rollout.judge_evaluations === null);
    if (rollout.reward < 1) expect(result.failure_reason).toBeTruthy();
  });

  it('extracted answers match SymPy printing on the simple fixture answers', async () => {
    const simple = joinToTasks(rollouts, tasks).filter(({ rollout }) => !rollout.extracted_answer.includes('**'));
    for (const { rollout, task } of simple) {
      const result = await mathWithJudge.verify(task, rollout.response, { state: null });
      expect(result.extracted_answer).toBe(rollout.extracted_answer);
    }
  });
});

describe('math_with_judge library check against math-verify 0.8.0', () => {
  it.each(mathVerifyCases.filter((c) => !KNOWN_REWARD_DIFFERENCES[c.expected]).map((c) => [c.expected, c.generated, c] as const))('gold %j, output %j', (_e, _g, c) => {
    expect(libraryCheck(c.expected, c.generated).reward).toBe(c.library_reward);
  });

  it('prints the extracted answer as math-verify does in at least 95% of the cases', () => {
    const same = mathVerifyCases.filter((c) => libraryCheck(c.expected, c.generated).extractedAnswer === c.extracted_answer).length;
    expect(same / mathVerifyCases.length).toBeGreaterThanOrEqual(0.95);
  });
});

describe('math_with_judge verify and judge', () => {
  const task = MathTask.parse({ responses_create_params: { input: [{ role: 'user', content: 'What is 6/4?' }] }, question: 'What is 6/4?', expected_answer: '\\(\\frac{3}{2}\\)' });
  const judged = createMathWithJudge({ should_use_judge: true });

  it('needs no judge when the library check passes', async () => {
    const result = await judged.verify(task, answerResponse('So \\boxed{1.5}.'), { state: null });
    expect(result).toMatchObject({ reward: 1, library_reward: 1, extracted_answer: '1.50000000000000', judge_evaluations: null });
  });

  it('without the judge a wrong answer scores 0 with a failure reason', async () => {
    const result = await mathWithJudge.verify(task, answerResponse('\\boxed{2}'), { state: null });
    expect(result).toMatchObject({ reward: 0, library_reward: 0, judge_evaluations: null, failure_reason: 'not_equivalent' });
  });

  it('sends the extracted answer to the judge (NeMo Gym v0.6.0) and swaps the answers for the second call', async () => {
    const { judge, sent } = textJudge('Equivalent: [[A=B]]', '[[A=B]]');
    const result = await judged.verify(task, answerResponse('It is \\boxed{\\text{three halves}}'), { state: null, judge });
    expect(result.reward).toBe(1);
    expect(result.library_reward).toBe(0);
    const prompts = sent.map((p) => (p.input as { content: string }[])[1]!.content);
    expect(prompts[0]).toContain("<|Start of Assistant A's Answer|>\n\\(\\frac{3}{2}\\)\n<|End of Assistant A's Answer|>");
    // The extracted answer is SymPy's name for the \text{} symbol.
    expect(result.extracted_answer).toBe('threehalves');
    expect(prompts[0]).toContain("<|Start of Assistant B's Answer|>\nthreehalves\n<|End");
    expect(prompts[1]).toContain("<|Start of Assistant A's Answer|>\nthreehalves\n<|End");
    expect((sent[0]!.input as { content: string }[])[0]!.content).toBe(JUDGE_SYSTEM_MESSAGE);
  });

  it('sends the full text when nothing was extracted', async () => {
    const { judge, sent } = textJudge('[[A!=B]]');
    const result = await judged.verify(task, answerResponse('I am not sure.'), { state: null, judge });
    expect(result).toMatchObject({ reward: 0, extracted_answer: null, failure_reason: 'judge_no_answer_extracted' });
    expect((sent[0]!.input as { content: string }[])[1]!.content).toContain('Answer|>\nI am not sure.\n<|End of Assistant B');
  });

  it('equal then not-equal-when-swapped scores 0', async () => {
    const { judge } = textJudge('[[A=B]]', 'no: [[A!=B]] ... [[A=B]]');
    const result = await judged.verify(task, answerResponse('\\boxed{7}'), { state: null, judge });
    expect(result).toMatchObject({ reward: 0, failure_reason: 'judge_not_equivalent_when_swapped' });
    expect(result.judge_evaluations).toHaveLength(2);
  });

  it('a judge reply whose last part is not output_text counts as not equal', async () => {
    const { judge } = replayJudge([{ id: 'r', output: [{ type: 'message', role: 'assistant', content: [{ type: 'refusal', text: '[[A=B]]' }] }] }]);
    expect((await judged.verify(task, answerResponse('\\boxed{7}'), { state: null, judge })).reward).toBe(0);
  });

  it('throws JudgeError when the judge call fails or none is configured, never a silent 0', async () => {
    await expect(judged.verify(task, answerResponse('\\boxed{7}'), { state: null, judge: failingJudge })).rejects.toBeInstanceOf(JudgeError);
    await expect(judged.verify(task, answerResponse('\\boxed{7}'), { state: null })).rejects.toBeInstanceOf(JudgeError);
  });
});

describe('math_with_judge edge cases (rewards as math-verify gives them)', () => {
  const check = (expected: string, generated: string) => libraryCheck(expected, generated);
  it.each([
    ['empty output', '5', '', 0, null],
    ['whitespace only', '5', '   \n ', 0, null],
    ['unicode around the answer', '10', 'Ünïcödé → \\boxed{10} ✓', 1, '10'],
    ['extra whitespace inside boxed', '5', '\\boxed{  5  }', 1, '5'],
    ['two boxes far apart are read as a set', '7', 'First \\boxed{5}, then corrected: \\boxed{7}', 0, '{5, 7}'],
    ['same box twice is one answer', '2', '\\boxed{2} and \\boxed{2}', 1, '{2}'],
    ['fraction vs decimal', '\\frac{1}{4}', '\\boxed{0.25}', 1, '0.250000000000000'],
    ['decimal rounded to 6 places', '\\frac{1}{3}', '\\boxed{0.333333}', 1, '0.333333000000000'],
    ['decimal too coarse', '\\frac{1}{3}', '\\boxed{0.33}', 0, '0.330000000000000'],
    ['integer vs near-integer decimal', '1', '\\boxed{0.9999999}', 0, '0.999999900000000'],
    ['percent vs fraction', '50\\%', '\\boxed{\\frac{1}{2}}', 1, '1/2'],
    ['percent is not the bare number', '50', '\\boxed{50\\%}', 0, '50*(1/100)'],
    ['thousands separator', '1000', '\\boxed{1,000}', 1, '1000'],
    ['mixed number', '\\frac{3}{2}', '\\boxed{1\\frac{1}{2}}', 1, '3/2'],
    ['unit text dropped', '5', '\\boxed{5\\text{ cm}}', 1, '5'],
    ['degrees dropped', '90', '\\boxed{90^\\circ}', 1, '90'],
    ['assignment vs value', 'x=3', '\\boxed{3}', 1, '3'],
    ['ordered pair order matters', '(1,2)', '\\boxed{(2,1)}', 0, '(2, 1)'],
    ['set order does not', '\\{1,2\\}', '\\boxed{\\{2,1\\}}', 1, '{1, 2}'],
    ['interval vs inequality', '2 < x < 5', '\\boxed{(2,5)}', 1, 'Interval.open(2, 5)'],
    ['union of intervals', '(-\\infty, 1) \\cup (2, \\infty)', '\\boxed{(-\\infty,1)\\cup(2,\\infty)}', 1, 'Union(Interval.open(-oo, 1), Interval.open(2, oo))'],
    ['symbolic identity', 'x^2+2x+1', '\\boxed{(x+1)^2}', 1, '(x + 1)**2'],
    ['\\log is base 10', '\\ln 2', '\\boxed{\\log 2}', 0, 'log(2, 10)'],
    ['unclosed box', '5', '\\boxed{5', 0, null],
  ])('%s', (_name, expected, generated, reward, extracted) => {
    expect(check(expected, generated)).toEqual({ reward, extractedAnswer: extracted });
  });

  it('handles a huge exact comparison quickly', () => {
    const started = Date.now();
    expect(check('2^{1000}', `\\boxed{${(2n ** 1000n).toString()}}`).reward).toBe(1);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('stays fast on a long reasoning text full of inline math', () => {
    const text = Array.from({ length: 400 }, (_, i) => `Step ${i}: $a_{${i}} = ${i}^2 + \\frac{${i}}{2}$ so (${i}, ${i + 1}) works.`).join('\n') + '\n\\boxed{42}';
    const started = Date.now();
    expect(check('42', text).reward).toBe(1);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('normalises \\left/\\right, \\dfrac and \\text units', () => {
    expect(normalizeLatex('\\boxed{\\left( \\dfrac{1}{2} \\right) \\text{ m}}', 'last')).toBe('( \\frac{1}{2} )');
  });
});

describe('math_with_judge oracle', () => {
  it('correct passes and wrong fails the library check on every fixture task', async () => {
    for (const task of tasks) {
      for (const correct of [true, false]) {
        const output = mathWithJudgeOracle(task, [], { correct, rng: seededRng(1) });
        const result = await mathWithJudge.verify(task, { id: 'r', output }, { state: null });
        expect(result.reward).toBe(correct ? 1 : 0);
      }
    }
  });
});

// longmemeval against NeMo Gym: each recorded rollout, with its recorded judge verdict replayed, must give
// the recorded reward, label and generation; the rubric routing, think stripping and error taxonomy follow
// NeMo Gym's longmemeval/app.py.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLongMemEval, longMemEval, LongMemEvalTask, stripThink } from '../../src/environments/longmemeval';
import { longMemEvalOracle } from '../../src/environments/longmemeval/oracle';
import { JudgeError } from '../../src/environments/types';
import { outputText, type ResponseObject } from '../../src/schemas/responses';
import { seededRng } from '../../src/util/rng';
import { answerResponse, failingJudge, FIXTURES, joinToTasks, readJsonl, textJudge } from './nemo_fixtures';

const DIR = path.join(FIXTURES, 'longmemeval');
const tasks = readJsonl<{ responses_create_params: { input: unknown }; verifier_metadata: Record<string, unknown> }>(path.join(DIR, 'example.jsonl'));
const userPrompt = (sent: { input: unknown }) => (sent.input as { content: string }[])[0]!.content;
const row = (meta: Record<string, unknown> | null) => LongMemEvalTask.parse({ responses_create_params: { input: 'history + question' }, verifier_metadata: meta });
const META = { question_id: 'q1', question_type: 'single-session-user', question: 'What degree did I get?', answer: 'Business Administration' };

describe('longmemeval conformance with NeMo Gym recorded rollouts', () => {
  const rollouts = readJsonl<{
    responses_create_params: { input: unknown };
    _ng_task_index: number;
    response: ResponseObject;
    reward: number;
    judge_raw: string;
    judge_label: boolean;
    abstention: boolean;
    generation: string;
    question_type: string;
  }>(path.join(DIR, 'example_rollouts.jsonl'));
  it.each(joinToTasks(rollouts, tasks).map(({ rollout, task }) => [rollout._ng_task_index, rollout, task] as const))('task %i reproduces its reward', async (_i, rollout, task) => {
    const { judge, sent } = textJudge(rollout.judge_raw);
    const result = (await longMemEval.verify(LongMemEvalTask.parse(task), rollout.response, { state: null, judge })) as Record<string, unknown>;
    expect(result.reward).toBe(rollout.reward);
    expect(result.judge_label).toBe(rollout.judge_label);
    expect(result.abstention).toBe(rollout.abstention);
    expect(result.generation).toBe(rollout.generation);
    expect(result.question_type).toBe(rollout.question_type);
    const prompt = userPrompt(sent[0]!);
    expect(prompt).toContain(`Question: ${task.verifier_metadata.question}\n\n`);
    expect(prompt).toContain(`Model Response: ${rollout.generation}\n\n`);
    expect(prompt).toMatch(rollout.abstention ? /^I will give you an unanswerable question/ : /^I will give you a question/);
  });
});

describe('longmemeval rubric routing and error taxonomy', () => {
  it('routes each question type to its rubric, and _abs ids to the abstention rubric', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ question_type: 'temporal-reasoning' }, /do not penalize off-by-one errors/],
      [{ question_type: 'knowledge-update' }, /updated answer is the required answer/],
      [{ question_type: 'single-session-preference' }, /\n\nRubric: Business Administration\n\n/],
      [{ question_type: 'multi-session' }, /\n\nCorrect Answer: Business Administration\n\n/],
      [{ question_type: 'multi-session', question_id: 'x_abs' }, /\n\nExplanation: Business Administration\n\n.*Does the model correctly identify/s],
      [{ question_type: 'knowledge-update', abstention: true }, /unanswerable question/],
    ];
    for (const [meta, pattern] of cases) {
      const { judge, sent } = textJudge('Yes.');
      const result = (await longMemEval.verify(row({ ...META, ...meta }), answerResponse('A degree'), { state: null, judge })) as Record<string, unknown>;
      expect(userPrompt(sent[0]!)).toMatch(pattern);
      expect(result.reward).toBe(1);
    }
  });

  it('reads "yes" anywhere in the verdict, case-folded; a no says why', async () => {
    const yes = await longMemEval.verify(row(META), answerResponse('x'), { state: null, judge: textJudge('<think>hmm</think>YES').judge });
    expect(yes.reward).toBe(1);
    const no = (await longMemEval.verify(row(META), answerResponse('x'), { state: null, judge: textJudge('no').judge })) as Record<string, unknown>;
    expect([no.reward, no.failure_reason]).toEqual([0, 'judge_said_no']);
    const empty = (await longMemEval.verify(row(META), answerResponse('x'), { state: null, judge: textJudge('<think>only thinking</think>').judge })) as Record<string, unknown>;
    expect([empty.reward, empty.judge_error, empty.failure_reason]).toEqual([0, 'empty_judge_output', 'empty_judge_output']);
  });

  it('strips reasoning from the answer before the judge sees it, including an unclosed block', async () => {
    expect(stripThink('<think>the answer is 7</think> It is 5.')).toBe('It is 5.');
    expect(stripThink('Let me see. <think>the answer is 7')).toBe('Let me see.');
    expect(stripThink('x</think>y')).toBe('y');
    const { judge, sent } = textJudge('no');
    await longMemEval.verify(row(META), answerResponse('<think>Business Administration</think>Economics'), { state: null, judge });
    expect(userPrompt(sent[0]!)).toMatch(/Model Response: Economics\n\n/);
  });

  it('scores without a judge call: empty answers, unusable metadata, unknown question types', async () => {
    const { judge, sent } = textJudge();
    const empty = (await longMemEval.verify(row(META), answerResponse('<think>all thought</think>  '), { state: null, judge })) as Record<string, unknown>;
    expect([empty.reward, empty.empty_response, empty.failure_reason]).toEqual([0, true, 'empty_response']);
    for (const meta of [null, {}, { question_type: 'multi-session' }, { question: 'Q?' }]) {
      const bad = (await longMemEval.verify(row(meta), answerResponse('x'), { state: null, judge })) as Record<string, unknown>;
      expect([bad.reward, bad.judge_error]).toEqual([0, 'bad_metadata']);
    }
    const unknown = (await longMemEval.verify(row({ ...META, question_type: 'trivia' }), answerResponse('x'), { state: null, judge })) as Record<string, unknown>;
    expect([unknown.reward, unknown.judge_error]).toEqual([0, 'unknown_question_type']);
    expect(sent).toHaveLength(0);
  });

  it('a failed or missing judge is a JudgeError (the rollout goes to the failures sidecar, excluded as NeMo Gym excludes judge_call_failed)', async () => {
    await expect(longMemEval.verify(row(META), answerResponse('x'), { state: null, judge: failingJudge })).rejects.toBeInstanceOf(JudgeError);
    await expect(longMemEval.verify(row(META), answerResponse('x'), { state: null })).rejects.toBeInstanceOf(JudgeError);
  });

  it('sends the configured judge parameters with the rubric as the only input', async () => {
    const { judge, sent } = textJudge('yes');
    await longMemEval.verify(row(META), answerResponse('x'), { state: null, judge });
    expect(sent[0]).toMatchObject({ max_output_tokens: 64, temperature: 0 });
    const custom = createLongMemEval({ judge_responses_create_params: { input: [], max_output_tokens: 16 } });
    const again = textJudge('yes');
    await custom.verify(row(META), answerResponse('x'), { state: null, judge: again.judge });
    expect(again.sent[0]!.max_output_tokens).toBe(16);
  });

  it('the oracle gives the gold answer or a refusal for abstention rows', () => {
    for (const task of tasks.map((t) => LongMemEvalTask.parse(t))) {
      const [message] = longMemEvalOracle(task, [], { correct: true, rng: seededRng(1) });
      const text = outputText([message!]);
      if (String(task.verifier_metadata?.question_id).includes('_abs')) expect(text).toMatch(/does not contain/);
      else expect(text).toBe(String(task.verifier_metadata?.answer));
    }
  });
});

// string_match against NeMo Gym: recorded rollouts reproduce, and hand-made answers score as NeMo Gym's
// string_match/app.py (v0.6.0) scores them (values checked against that code).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringMatch, StringMatchTask } from '../../src/environments/string_match';
import { stringMatchOracle } from '../../src/environments/string_match/oracle';
import { seededRng } from '../../src/util/rng';
import type { ResponseObject } from '../../src/schemas/responses';
import { FIXTURES, answerResponse, joinToTasks, readJsonl } from './nemo_fixtures';
import { settled } from './env_helpers';

const dir = path.join(FIXTURES, 'string_match');
const ctx = { state: null };

function score(task: Record<string, unknown>, text: string) {
  const row = StringMatchTask.parse({ responses_create_params: { input: [] }, ...task });
  return stringMatch.verify(row, answerResponse(text), ctx) as Record<string, unknown>;
}

describe('string_match conformance with NeMo Gym recorded rollouts', () => {
  const tasks = readJsonl(path.join(dir, 'example.jsonl')) as { responses_create_params: { input: unknown } }[];
  const rollouts = readJsonl(path.join(dir, 'example_rollouts.jsonl')) as {
    responses_create_params: { input: unknown };
    _ng_task_index: number;
    response: ResponseObject;
    reward: number;
    extracted_answer: string | null;
  }[];
  for (const { rollout, task } of joinToTasks(rollouts, tasks)) {
    it(`task ${rollout._ng_task_index} reproduces reward ${rollout.reward}`, () => {
      const result = stringMatch.verify(StringMatchTask.parse(task), rollout.response, ctx) as Record<string, unknown>;
      expect(result.reward).toBe(rollout.reward);
      expect(result.extracted_answer).toBe(rollout.extracted_answer);
    });
  }
});

describe('string_match edge cases (values from NeMo Gym v0.6.0)', () => {
  it.each([
    ['boxed', 'Paris', 'The capital is \\(\\boxed{\\text{Paris}}\\).', 1, 'Paris'],
    ['boxed', 'Paris', '\\boxed{Lyon} then \\boxed{Paris', 0, 'Lyon'], // unclosed last box: the earlier one
    ['boxed', 'Paris', 'no box at all', 0, null],
    ['boxed', 'Paris', '\\boxed{}', 0, ''],
    ['boxed', '80', '\\boxed{80\\text{ km/h}}', 0, '80\\text{ km/h}'],
    ['final_answer', '15', 'Final answer: 15.', 1, '15'],
    ['final_answer', '15', 'Answer: 12\nFinal answer: 15', 1, '15'],
    ['final_answer', '15', 'final answer： 15', 1, '15'],
    ['final_answer', '15', 'Answer: .', 0, ''],
    ['final_answer', '15', 'The result is \\boxed{15}', 1, '15'], // falls back to the box
    ['final_answer', '15', 'Answer:\n15', 1, '15'],
    ['final_answer', '1234', 'Final answer: 1,234', 1, '1,234'],
    ['final_answer', '0.5', 'Final answer: 50%', 0, '50%'],
    ['final_answer', '100', 'Final answer: 99.5', 0.98, '99.5'],
    ['final_answer', '100', 'Final answer: 99', 0.98, '99'],
    ['final_answer', 'New York', 'Final answer: NY', 1, 'NY'],
    ['final_answer', 'Texas and Ohio', 'Final answer: TX, OH', 0, 'TX, OH'],
    ['final_answer', 'Saturn', 'Final answer: "saturn"', 1, '"saturn"'],
    ['final_answer', 'Saturn', 'Final answer: SATURN!', 1, 'SATURN!'],
    ['final_answer', '3', 'Final answer: ٣', 1, '٣'],
    ['final_answer', '1000', 'Final answer: 1_000', 1, '1_000'],
    ['final_answer', '45°', 'Final answer: 45^\\circ', 0.98, '45^\\circ'],
    ['final_answer', 'inf', 'Final answer: Infinity', 1, 'Infinity'],
    ['last_line', 'Pacific Ocean', 'The largest is:\nPacific Ocean\n\n', 1, 'Pacific Ocean'],
    ['last_line', 'Pacific Ocean', 'x\u2028Pacific Ocean', 1, 'Pacific Ocean'],
    ['last_line', 'Pacific Ocean', '   \n\t', 0, null],
    ['full_response', 'Pacific Ocean', '  pacific   ocean  ', 1, 'pacific   ocean'],
    ['full_response', 'Pacific Ocean', '', 0, null],
  ])('%s: expected %j, answer %j → %d', (extraction_mode, expected_answer, text, reward, extracted) => {
    const r = score({ extraction_mode, expected_answer }, text);
    expect(r.reward).toBe(reward);
    expect(r.extracted_answer).toBe(extracted);
    if (reward === 1) expect(r.failure_reason).toBeUndefined();
    else expect(r.failure_reason).toBe(extracted === null ? 'no_answer_extracted' : reward === 0.98 ? 'approximate_numeric_match' : 'wrong_answer');
  });

  it('case_sensitive compares stripped strings exactly', () => {
    expect(score({ expected_answer: 'Paris', case_sensitive: true }, 'Final answer: paris').reward).toBe(0);
    expect(score({ expected_answer: 'Paris', case_sensitive: true }, 'Final answer:  Paris  ').reward).toBe(1);
  });

  it('an empty expected answer never scores', () => {
    expect(score({ expected_answer: '', extraction_mode: 'full_response' }, 'x')).toMatchObject({ reward: 0, failure_reason: 'no_expected_answer' });
  });

  it('joins assistant messages with a newline before extracting', () => {
    const response: ResponseObject = {
      id: 'r',
      output: [
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Answer: 1' }] },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: '5' }] },
      ],
    };
    const task = StringMatchTask.parse({ responses_create_params: { input: [] }, expected_answer: '1' });
    expect(stringMatch.verify(task, response, ctx)).toMatchObject({ reward: 1, extracted_answer: '1' });
  });
});

describe('string_match oracle', () => {
  it('formats the answer for the extraction mode, and a wrong one fails', () => {
    const rng = seededRng('string-match');
    for (const raw of readJsonl(path.join(dir, 'example.jsonl'))) {
      const task = StringMatchTask.parse(raw);
      for (const correct of [true, false]) {
        const r = settled(stringMatch.verify(task, { id: 'r', output: stringMatchOracle(task, [], { correct, rng }) }, ctx));
        expect(r.reward).toBe(correct ? 1 : 0);
      }
    }
  });
});

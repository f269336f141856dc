// spartqa against NeMo Gym 0.7.0: its recorded rollouts must score as recorded, and generated answers
// must get the verdicts NeMo Gym's own verify gave them (spartqa.cases.py).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { spartqa, SpartqaTask } from '../../src/environments/spartqa';
import { spartqaOracle } from '../../src/environments/spartqa/oracle';
import { seededRng } from '../../src/util/rng';
import type { ResponseObject } from '../../src/schemas/responses';
import { FIXTURES, answerResponse, joinToTasks, readJsonl } from './nemo_fixtures';

const dir = path.join(FIXTURES, 'spartqa');
const ctx = { state: null };

interface Recorded {
  responses_create_params: { input: unknown };
  _ng_task_index: number;
  response: ResponseObject;
  reward: number;
  exact: boolean;
  parsed: boolean;
  extracted: string;
  predicted_label: string;
}

describe('spartqa conformance with NeMo Gym recorded rollouts', () => {
  const tasks = readJsonl<{ responses_create_params: { input: unknown } }>(path.join(dir, 'example.jsonl'));
  const rollouts = readJsonl<Recorded>(path.join(dir, 'example_rollouts.jsonl'));
  joinToTasks(rollouts, tasks).forEach(({ rollout, task }, i) => {
    it(`rollout #${i} reproduces reward ${rollout.reward} and its verify fields`, async () => {
      const result = await spartqa.verify(SpartqaTask.parse(task), rollout.response, ctx);
      const { reward, exact, parsed, extracted, predicted_label } = rollout;
      expect(result).toMatchObject({ reward, exact, parsed, extracted, predicted_label });
    });
  });
});

describe('spartqa against NeMo Gym verify on generated cases', () => {
  const cases = readJsonl<{ task: Record<string, unknown>; text: string; verdict: Record<string, unknown> }>(path.join(import.meta.dirname, 'spartqa.cases.jsonl'));
  it(`agrees on all ${cases.length} verdicts`, async () => {
    const mismatches: string[] = [];
    for (const c of cases) {
      const result = (await spartqa.verify(SpartqaTask.parse(c.task), answerResponse(c.text), ctx)) as Record<string, unknown>;
      const got = Object.fromEntries(Object.keys(c.verdict).map((k) => [k, result[k]]));
      if (JSON.stringify(got) !== JSON.stringify(c.verdict)) mismatches.push(`${JSON.stringify(c.text)}: ${JSON.stringify(got)} != ${JSON.stringify(c.verdict)}`);
    }
    expect(mismatches).toEqual([]);
    expect(cases.filter((c) => c.verdict.reward === 1).length).toBeGreaterThan(20);
  });
});

describe('spartqa failure reasons and oracle', () => {
  const task = SpartqaTask.parse({
    responses_create_params: { input: [{ role: 'user', content: 'Q?' }] },
    target: 'both of them',
    options: ['a red circle', 'a blue box'],
  });
  it.each([
    ['', 'empty_response'],
    ['Final answer: ???', 'no_answer_extracted'],
    ['Final answer: a red circle or a blue box', 'no_label_resolved'],
    ['Final answer: a red circle', 'wrong_label'],
  ])('%j → %s', async (text, reason) => {
    const result = await spartqa.verify(task, answerResponse(text), ctx);
    expect(result).toMatchObject({ reward: 0, failure_reason: reason });
  });
  it('a correct answer has no failure_reason', async () => {
    expect(await spartqa.verify(task, answerResponse('Final answer: both'), ctx)).not.toHaveProperty('failure_reason');
  });
  it('the oracle scores 1 when correct and 0 when not', async () => {
    const rng = seededRng(3);
    for (const correct of [true, false]) {
      const items = spartqaOracle(task, [], { correct, rng });
      const result = await spartqa.verify(task, { id: 'r', object: 'response', output: items } as ResponseObject, ctx);
      expect(result.reward).toBe(correct ? 1 : 0);
    }
  });
});

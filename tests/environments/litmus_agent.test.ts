// litmus_agent against NeMo Gym: recorded rollouts must score as recorded, and hand-picked rows and
// responses as NeMo Gym's own extraction and reward code scored them (litmus_agent.cases.py).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLitmusAgent, litmusAgent, LitmusTask } from '../../src/environments/litmus_agent';
import { litmusAgentOracle } from '../../src/environments/litmus_agent/oracle';
import type { ResponseObject } from '../../src/schemas/responses';
import { seededRng } from '../../src/util/rng';
import { settled } from './env_helpers';
import { answerResponse, FIXTURES, joinToTasks, readJsonl } from './nemo_fixtures';

const DIR = path.join(FIXTURES, 'litmus_agent');
const ctx = { state: null };
const input = { responses_create_params: { input: [{ role: 'user', content: 'Q' }] } };
const verify = (row: Record<string, unknown>, text: string, env = litmusAgent) => settled(env.verify(LitmusTask.parse({ ...input, ...row }), answerResponse(text), ctx)) as Record<string, unknown>;

describe('litmus_agent conformance with NeMo Gym recorded rollouts', () => {
  const tasks = readJsonl<{ responses_create_params: { input: unknown } }>(path.join(DIR, 'example.jsonl'));
  const rollouts = readJsonl<{
    responses_create_params: { input: unknown };
    _ng_task_index: number;
    response: ResponseObject;
    reward: number;
    predicted_value: unknown;
    resolved_reward_rule: string;
    resolved_answer_type: string;
  }>(path.join(DIR, 'example_rollouts.jsonl'));
  it.each(joinToTasks(rollouts, tasks).map(({ rollout, task }) => [rollout._ng_task_index, rollout, task] as const))('task %i reproduces its reward', (_i, rollout, task) => {
    const result = settled(litmusAgent.verify(LitmusTask.parse(task), rollout.response, ctx)) as Record<string, unknown>;
    expect(result.reward).toBe(rollout.reward);
    expect(result.predicted_value).toEqual(rollout.predicted_value);
    // Stale label: the fragment row was recorded as 'isclose'; NeMo Gym 0.7.0's code (litmus_agent.cases.py,
    // property_type fragment) resolves legacy discrete rows to 'exact'. Its reward is the same either way.
    const stale = (task as { property_type?: string }).property_type === 'fragment' && rollout.resolved_reward_rule === 'isclose';
    expect(result.resolved_reward_rule).toBe(stale ? 'exact' : rollout.resolved_reward_rule);
    expect(result.resolved_answer_type).toBe(rollout.resolved_answer_type);
  });
});

describe('litmus_agent against NeMo Gym run on edge cases', () => {
  const cases = readJsonl<{ row: Record<string, unknown>; text: string; predicted_value: unknown; reward: number | string; resolved_reward_rule: string }>(
    path.join(import.meta.dirname, 'litmus_agent.cases.jsonl'),
  );
  it('has the cases', () => expect(cases.length).toBeGreaterThan(700));
  it.each(cases.map((c, i) => [i, c] as const))('case %i', (_i, c) => {
    const result = verify(c.row, c.text);
    // NeMo Gym raises OverflowError rounding an infinite prediction (a 500); Gymflow scores it 0.
    expect(result.reward).toBe(typeof c.reward === 'string' ? 0 : c.reward);
    const predicted =
      typeof result.predicted_value === 'number' && !Number.isFinite(result.predicted_value) ? String(result.predicted_value).replace('Infinity', 'inf').replace('NaN', 'nan') : result.predicted_value;
    expect(predicted).toEqual(c.predicted_value);
    expect(result.resolved_reward_rule).toBe(c.resolved_reward_rule);
  });
});

describe('litmus_agent rows, settings and failure reasons', () => {
  it('refuses rows NeMo Gym would fail on at verify, naming the field', () => {
    const problems = (row: Record<string, unknown>) => {
      const r = LitmusTask.safeParse({ ...input, expected_answer: '1', ...row });
      return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    };
    expect(problems({})).toEqual([expect.stringMatching(/^answer_type: is required unless property_type/)]);
    expect(problems({ answer_type: 'integer' })[0]).toMatch(/^answer_type/);
    expect(problems({ answer_type: 'float', answer_format: 'fmt_99' })[0]).toMatch(/^answer_format/);
    expect(problems({ answer_type: 'float', match: { abs_tol: 1 } })[0]).toMatch(/^match: a match must include a 'rule' key/);
    expect(problems({ answer_type: 'float', match: { rule: 'fuzzy' } })[0]).toMatch(/^match\.rule/);
    expect(problems({ answer_type: 'float', output_regex: 'a(b)(c)' })[0]).toMatch(/^output_regex: must have exactly one capture group, has 2/);
    expect(problems({ answer_type: 'float', output_regex: 'a(b' })[0]).toMatch(/^output_regex: .* not a valid regular expression/);
    expect(problems({ answer_type: 'float', match: {} })).toEqual([]);
  });

  it('the server tolerances are settings', () => {
    const loose = createLitmusAgent({ float_abs_tol: 0.5 });
    expect(verify({ answer_type: 'float', expected_answer: '2' }, '((2.3))', loose).reward).toBe(1);
    expect(verify({ answer_type: 'float', expected_answer: '2' }, '((2.3))').reward).toBe(0);
  });

  it('says why a row failed', () => {
    const row = { answer_type: 'float', expected_answer: '2' };
    expect(verify(row, ' ').failure_reason).toBe('empty_response');
    expect(verify(row, 'two').failure_reason).toBe('no_answer_extracted');
    expect(verify(row, '((nan))').failure_reason).toBe('no_answer_extracted');
    expect(verify(row, '((3))').failure_reason).toBe('wrong_answer');
    expect(verify(row, '((2))')).not.toHaveProperty('failure_reason');
  });

  it('abs_error only for continuous rows with a number', () => {
    expect(verify({ answer_type: 'float', expected_answer: '2' }, '((2.5))').abs_error).toBe(0.5);
    expect(verify({ property_type: 'fragment', expected_answer: '2' }, '((3))').abs_error).toBeNull();
    expect(verify({ answer_type: 'bool', expected_answer: 'yes' }, '((no))').abs_error).toBeNull();
  });

  it('the oracle answers every example for reward 1 when correct and 0 when not', () => {
    for (const row of readJsonl(path.join(DIR, 'example.jsonl'))) {
      const task = LitmusTask.parse(row);
      for (const correct of [true, false]) {
        const output = litmusAgentOracle(task, [], { correct, rng: seededRng(3) });
        expect((settled(litmusAgent.verify(task, { id: 'r', output }, ctx)) as { reward: number }).reward).toBe(correct ? 1 : 0);
      }
    }
  });
});

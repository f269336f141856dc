// ruler2 against NeMo Gym: its recorded rollouts must score as recorded, edge cases as NeMo Gym's own
// scoring scored them (ruler2.cases.jsonl, made by ruler2.cases.py), and the generator must make
// deterministic rows that fit their token budget and that the verifier can score.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { ruler2, Ruler2Task } from '../../src/environments/ruler2';
import { generateRuler2 } from '../../src/environments/ruler2/generate';
import { ruler2Oracle } from '../../src/environments/ruler2/oracle';
import type { ResponseObject } from '../../src/schemas/responses';
import { seededRng } from '../../src/util/rng';
import { answerResponse, FIXTURES, joinToTasks, readJsonl } from './nemo_fixtures';
import { settled } from './env_helpers';

const DIR = path.join(FIXTURES, 'ruler2');
const ctx = { state: null };
const score = (row: Record<string, unknown>, text: string) =>
  settled(ruler2.verify(Ruler2Task.parse({ responses_create_params: { input: [{ role: 'user', content: 'Q' }] }, ...row }), answerResponse(text), ctx)) as Record<string, unknown>;

describe('ruler2 conformance with NeMo Gym recorded rollouts', () => {
  const tasks = readJsonl<{ responses_create_params: { input: unknown } }>(path.join(DIR, 'example.jsonl'));
  const rollouts = readJsonl<{ responses_create_params: { input: unknown }; response: ResponseObject; reward: number; predicted_answer: string; extracted_answer: string | null }>(
    path.join(DIR, 'example_rollouts.jsonl'),
  );
  it.each(joinToTasks(rollouts, tasks).map(({ rollout, task }, i) => [i, rollout, task] as const))('rollout %i reproduces its reward', (_i, rollout, task) => {
    const result = settled(ruler2.verify(Ruler2Task.parse(task), rollout.response, ctx)) as Record<string, unknown>;
    expect(result.reward).toBe(rollout.reward);
    expect(result.predicted_answer).toBe(rollout.predicted_answer);
    expect(result.extracted_answer).toBe(rollout.extracted_answer);
  });
});

describe('ruler2 against NeMo Gym run on edge cases', () => {
  const cases = readJsonl<{ eval_type: string; match_type?: string; expected_answer: unknown; text: string; reward: number; extracted_answer?: string | null }>(
    path.join(import.meta.dirname, 'ruler2.cases.jsonl'),
  );
  it('has the cases', () => expect(cases.length).toBeGreaterThan(200));
  it.each(cases.map((c, i) => [i, c] as const))('case %i', (_i, c) => {
    const result = score({ eval_type: c.eval_type, match_type: c.match_type ?? 'all', expected_answer: c.expected_answer }, c.text);
    expect(result.reward).toBeCloseTo(c.reward, 12);
    if (c.eval_type === 'multichoice') expect(result.extracted_answer).toBe(c.extracted_answer);
  });
});

describe('ruler2 task rows and failure reasons', () => {
  it('refuses an unknown match_type and a multichoice row with a list answer, naming the field', () => {
    const bad1 = Ruler2Task.safeParse({ responses_create_params: { input: 'Q' }, expected_answer: ['x'], match_type: 'some' });
    expect(bad1.success).toBe(false);
    const bad2 = Ruler2Task.safeParse({ responses_create_params: { input: 'Q' }, eval_type: 'multichoice', expected_answer: ['C'] });
    expect(bad2.success).toBe(false);
  });

  it('says why a row scored below 1', () => {
    expect(score({ expected_answer: ['42'] }, '  ').failure_reason).toBe('empty_response');
    expect(score({ expected_answer: ['a b'] }, 'a c').failure_reason).toBe('partial_match');
    expect(score({ expected_answer: ['42'] }, 'seven').failure_reason).toBe('no_match');
    expect(score({ eval_type: 'multichoice', expected_answer: 'C' }, 'no idea').failure_reason).toBe('no_answer_extracted');
    expect(score({ eval_type: 'multichoice', expected_answer: 'C' }, '\\boxed{B}').failure_reason).toBe('wrong_answer');
    expect(score({ expected_answer: ['42'] }, '42')).not.toHaveProperty('failure_reason');
  });
});

describe('ruler2 synthetic task generator', () => {
  const rows = generateRuler2({ maxSeqLength: 2048, numSamples: 3, seed: 5 });

  it('makes each synthetic task, every row within its token budget and close to it', () => {
    expect(rows.map((r) => r.task)).toEqual(['mk_niah_basic', 'mk_niah_basic', 'mk_niah_basic', 'mv_niah_basic', 'mv_niah_basic', 'mv_niah_basic']);
    for (const row of rows) {
      const prompt = row.responses_create_params.input[0]!.content;
      expect(row.length).toBe(countTokens(prompt));
      expect(row.length).toBeLessThanOrEqual(2048);
      expect(row.length).toBeGreaterThan(1700);
      for (const value of row.expected_answer) expect(prompt).toContain(` is: ${value}.`);
    }
    expect(rows.filter((r) => r.task === 'mv_niah_basic').every((r) => r.expected_answer.length === 4)).toBe(true);
  });

  it('asks about a key whose needles are the only sentences for it', () => {
    for (const row of rows) {
      const prompt = row.responses_create_params.input[0]!.content;
      const key = /for ([a-z]+-[a-z]+) mentioned/.exec(prompt)![1]!;
      const told = [...prompt.matchAll(new RegExp(`for ${key} is: (\\d+)\\.`, 'g'))].map((m) => m[1]);
      expect(told.sort()).toEqual([...row.expected_answer].sort());
    }
  });

  it('is deterministic for a seed and differs across seeds', () => {
    expect(generateRuler2({ maxSeqLength: 2048, numSamples: 3, seed: 5 })).toEqual(rows);
    expect(generateRuler2({ maxSeqLength: 2048, numSamples: 3, seed: 6 })[0]!.expected_answer).not.toEqual(rows[0]!.expected_answer);
  });

  it('grows with the budget: a 16k row holds many more sentences than a 2k one', () => {
    const [long] = generateRuler2({ tasks: ['mk_niah_basic'], maxSeqLength: 16384, numSamples: 1 });
    expect(long!.length).toBeGreaterThan(15000);
    expect(long!.length).toBeLessThanOrEqual(16384);
  });

  it('rows are valid tasks that the oracle answers for reward 1 (correct) and 0 (wrong)', () => {
    for (const row of rows) {
      const task = Ruler2Task.parse(row);
      for (const correct of [true, false]) {
        const output = ruler2Oracle(task, [], { correct, rng: seededRng(1) });
        const result = settled(ruler2.verify(task, { id: 'r', output }, ctx)) as { reward: number };
        expect(result.reward).toBe(correct ? 1 : 0);
      }
    }
  });

  it('names the download-only sub-tasks as unavailable', () => {
    expect(() => generateRuler2({ tasks: ['qa_basic'], maxSeqLength: 2048, numSamples: 1 })).toThrow(/need a download \(unavailable offline\)/);
    expect(() => generateRuler2({ tasks: ['nope'], maxSeqLength: 2048, numSamples: 1 })).toThrow(/not a RULER v2 sub-task/);
  });

  it('gym dataset generate writes the same rows as the library', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'ruler2-gen-'));
    const file = path.join(dir, 'rows.jsonl');
    const bin = path.resolve(import.meta.dirname, '../../bin/gym.mjs');
    await promisify(execFile)(process.execPath, [bin, 'dataset', 'generate', '--env', 'ruler2', '--output', file, '--set', 'maxSeqLength=2048', '--set', 'numSamples=3', '--set', 'seed=5']);
    const written = (await readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(written).toEqual(rows);
    await expect(promisify(execFile)(process.execPath, [bin, 'dataset', 'generate', '--env', 'ruler2', '--output', file, '--set', 'numSamples=0'])).rejects.toMatchObject({
      stderr: expect.stringMatching(/--set/),
    });
  }, 120_000);
});

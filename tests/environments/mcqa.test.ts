// mcqa against NeMo Gym: recorded rollouts must score as NeMo Gym scored them, and hand-made answers
// must score as NeMo Gym's mcqa/app.py (v0.6.0) would, reasoned from its source.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GymError } from '../../src/errors';
import { loadTasks } from '../../src/tasks/load';
import { verifyInChild } from './env_helpers';
import { mcqa, McqaTask } from '../../src/environments/mcqa';
import { mcqaOracle } from '../../src/environments/mcqa/oracle';
import { seededRng } from '../../src/util/rng';
import type { ResponseObject } from '../../src/schemas/responses';
import { FIXTURES, answerResponse, joinToTasks, readJsonl } from './nemo_fixtures';

const dir = path.join(FIXTURES, 'mcqa');
const ctx = { state: null };

function verifyText(row: Record<string, unknown>, text: string) {
  return mcqa.verify(McqaTask.parse(row), answerResponse(text), ctx) as Record<string, unknown>;
}

const OPTS4 = [{ A: 'optA' }, { B: 'optB' }, { C: 'optC' }, { D: 'optD' }];
const row = (extra: Record<string, unknown> = {}) => ({
  responses_create_params: { input: [{ role: 'user', content: 'Q?' }] },
  options: OPTS4,
  expected_answer: 'C',
  ...extra,
});
const score = (text: string, extra: Record<string, unknown> = {}) => verifyText(row(extra), text);

describe('mcqa conformance with NeMo Gym recorded rollouts', () => {
  const cases = [
    ['example.jsonl', 'example_rollouts.jsonl'],
    ['example_with_template_metadata.jsonl', 'example_rollouts_with_template_metadata.jsonl'],
  ] as const;
  for (const [taskFile, rolloutFile] of cases) {
    const tasks = readJsonl(path.join(dir, taskFile)) as { responses_create_params: { input: unknown } }[];
    const rollouts = readJsonl(path.join(dir, rolloutFile)) as {
      responses_create_params: { input: unknown };
      response: ResponseObject;
      reward: number;
      extracted_answer: string | null;
    }[];
    joinToTasks(rollouts, tasks).forEach(({ rollout, task }, i) => {
      it(`${rolloutFile} #${i} reproduces reward ${rollout.reward}`, () => {
        const result = mcqa.verify(McqaTask.parse(task), rollout.response, ctx) as Record<string, unknown>;
        // Stale recording: the answer is `\boxed{\nC: <option text>}`, which v0.6.0's label rule reads as C.
        const stale = rolloutFile === 'example_rollouts.jsonl' && rollout.reward === 0 && rollout.extracted_answer === null;
        expect(result.reward).toBe(stale ? 1.0 : rollout.reward);
        expect(result.extracted_answer).toBe(stale ? 'C' : rollout.extracted_answer);
      });
    });
  }

  it('the stale recording is exactly one row (task 1 of example_rollouts)', () => {
    const rollouts = readJsonl(path.join(dir, 'example_rollouts.jsonl')) as { reward: number; extracted_answer: unknown }[];
    expect(rollouts.filter((r) => r.reward === 0 && r.extracted_answer === null)).toHaveLength(1);
  });
});

describe('mcqa strict_single_letter_boxed (default)', () => {
  it.each([
    ['\\boxed{C}', 1, 'C'],
    ['Final: \\boxed{ [C] }', 1, 'C'],
    ['\\boxed{(C)}', 1, 'C'],
    ['\\boxed{\\text{C}}', 1, 'C'],
    ['\\boxed{\\text{ \\text{C} }}', 1, 'C'],
    ['\\boxed{C: optC}', 1, 'C'],
    ['\\boxed{C) optC}', 1, 'C'],
    ['\\boxed{\\text{C: optC}}', 1, 'C'],
    ['\\boxed{A} then on reflection \\boxed{C}', 1, 'C'],
    ['\\boxed{x+1} ... \\boxed{C}', 1, 'C'],
    ['   \\boxed{C}   \n\n', 1, 'C'],
    ['\\boxed{c}', 0, null], // lower case is not a letter answer in strict mode
    ['The answer is C.', 0, null],
    ['\\boxed{optC}', 0, null],
    ['\\boxed{C', 0, null], // unclosed box
    ['\\boxed{A} and \\boxed{C', 0, null], // the LAST box is unclosed: no fallback to the earlier one
    ['\\boxed{A, C}', 0, null],
    ['\\boxed{E}', 0, null], // not an option letter
    ['\\boxed{É C}', 1, 'C'], // non-ASCII letters are "non-letters" to [^A-Za-z]
    ['\\boxed{{C}}', 1, 'C'],
    ['\\boxed{C. optC}', 1, 'C'],
    ['\\boxed{ C - optC}', 1, 'C'],
    ['\\boxed{\\text{C}} trailing', 1, 'C'],
    ['\\boxed{\\text{C} }', 1, 'C'],
    ['\\boxed{\\textbf{C}}', 0, null], // "textbf" letters surround C
  ])('%j → %d', (text, reward, extracted) => {
    const r = score(text);
    expect(r.reward).toBe(reward);
    expect(r.extracted_answer).toBe(extracted);
    expect(r.expected_answer).toBe('C');
    if (reward < 1) expect(r.failure_reason).toBeTypeOf('string');
    else expect(r.failure_reason).toBeUndefined();
  });

  it('empty and whitespace-only answers score 0 with empty_response', () => {
    for (const text of ['', '  \n\t\u3000']) {
      const r = score(text);
      expect(r).toMatchObject({ reward: 0, extracted_answer: null, failure_reason: 'empty_response' });
    }
  });

  it('gold is stripped and upper-cased; a missing gold never scores', () => {
    expect(score('\\boxed{C}', { expected_answer: ' c ' })).toMatchObject({ reward: 1, expected_answer: 'C' });
    expect(score('\\boxed{C}', { expected_answer: null })).toMatchObject({
      reward: 0,
      expected_answer: '',
      extracted_answer: 'C',
      failure_reason: 'no_expected_answer',
    });
  });

  it('allowed letters come from single-letter keys with non-null text, case-folded', () => {
    const options = [{ a: 'x' }, { B: null }, { CC: 'y' }, { '1': 'z' }, { d: 'w' }];
    expect(score('\\boxed{A}', { options, expected_answer: 'A' }).reward).toBe(1);
    expect(score('\\boxed{B}', { options, expected_answer: 'B' }).reward).toBe(0);
    expect(score('\\boxed{D}', { options, expected_answer: 'd' }).reward).toBe(1);
  });

  it('reads the text of every assistant message of the episode, joined without separator', () => {
    const response: ResponseObject = {
      id: 'r',
      output: [
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Thinking \\boxed{' }] },
        { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'C}' }] },
      ],
    };
    expect(mcqa.verify(McqaTask.parse(row()), response, ctx)).toMatchObject({ reward: 1, extracted_answer: 'C' });
  });
});

describe('mcqa lenient_boxed', () => {
  const lenient = { grading_mode: 'lenient_boxed' };
  it.each([
    ['\\boxed{C}', 1],
    ['Final: \\boxed{ optC }', 1],
    ['\\boxed{\\text{ OPTC }}', 1],
    ['\\boxed{the answer:   optc  indeed}', 1], // containment, case and spacing folded
    ['\\boxed{optA or optC}', 0], // two options match
    ['optC', 0], // outside a box
  ])('%j → %d', (text, reward) => {
    expect(score(text, lenient).reward).toBe(reward);
  });

  it('an option text that contains another still counts both', () => {
    const options = [{ A: 'cell' }, { B: 'cell wall' }];
    expect(score('\\boxed{cell wall}', { ...lenient, options, expected_answer: 'B' }).reward).toBe(0);
    expect(score('\\boxed{cell}', { ...lenient, options, expected_answer: 'A' }).reward).toBe(1);
  });
});

describe('mcqa lenient_answer_colon', () => {
  const colon = { grading_mode: 'lenient_answer_colon' };
  it.each([
    ['Answer: c', 1, 'C'],
    ['answer : C', 1, 'C'],
    ['Answer: optC', 1, 'C'],
    ['Answer:   OPTC  ', 1, 'C'],
    ['Answer: \\text{C}', 1, 'C'],
    ['**Answer: C**', 0, null], // the payload is "C**"
    ['Answer: C.', 0, null],
    ['Answer: A\nAnswer: C', 0, 'A'], // the FIRST Answer: wins in this mode
    ['ANSWER: E', 0, null],
  ])('%j → %d', (text, reward, extracted) => {
    const r = score(text, colon);
    expect(r.reward).toBe(reward);
    expect(r.extracted_answer).toBe(extracted);
  });

  it('"Answer:\\nC" lets \\s* cross the line break, so C is read', () => {
    expect(score('Answer:\nC', colon)).toMatchObject({ reward: 1, extracted_answer: 'C' });
  });
});

describe('mcqa lenient_answer_colon_md', () => {
  const md = { grading_mode: 'lenient_answer_colon_md' };
  const ten = 'ABCDEFGHIJ'.split('').map((l) => ({ [l]: `opt${l}` }));
  it.each([
    ['The answer is C.\n\nAnswer: C', 1, 'C'],
    ['Reasoning.\n\n**Answer: C**', 1, 'C'],
    ['__Answer__: C', 1, 'C'],
    ['Answer: C because A is not valid', 1, 'C'],
    ['Answer: C/C', 1, 'C'],
    ['Answer: $C$', 1, 'C'],
    ['Answer: (C)', 1, 'C'],
    ['\\boxed{\\text{Answer: C}}', 1, 'C'],
    ['Answer: c) optC', 1, 'C'],
    ['Answer: A\nAnswer: C', 1, 'C'],
    ['Answer: C\nAnswer: unknown', 1, 'C'],
    ['Answer: C\nAnswer: A/B', 1, 'C'],
    ['Answer: unknown', 0, null],
    ['Answer: A/C', 0, null],
    ['Answer: A or C', 0, null],
    ['Answer: C and A', 0, null],
    ['Answer: A, C', 0, null],
    ['I think it might be C', 0, null],
    ['Answer: ج', 1, 'C'], // Arabic letter normalised to " C"
  ])('%j → %d', (text, reward, extracted) => {
    const r = score(text, md);
    expect(r.reward).toBe(reward);
    expect(r.extracted_answer).toBe(extracted);
  });

  it('a letter outside the options is no answer', () => {
    expect(score('Answer: G', md)).toMatchObject({ reward: 0, extracted_answer: null });
    expect(score('Answer: G', { ...md, options: ten, expected_answer: 'G' })).toMatchObject({ reward: 1 });
  });
});

describe('mcqa template_metadata.output_regex', () => {
  const tm = (output_regex: unknown) => ({ template_metadata: { output_regex } });
  it('takes the last match, case-insensitively, before the grading mode', () => {
    expect(score('Maybe Answer: A? Final Answer: c', tm('Answer:\\s*([A-Za-z])'))).toMatchObject({ reward: 1, extracted_answer: 'C' });
    expect(score('Final Choice: C', tm('Final Choice:\\s*([A-Za-z])'))).toMatchObject({ reward: 1 });
  });

  it('trusts a captured letter even when it is not an option', () => {
    expect(score('Selected: Z', tm('Selected:\\s*([A-Za-z])'))).toMatchObject({ reward: 0, extracted_answer: 'Z' });
    expect(score('Selected: B', { ...tm('Selected:\\s*([A-Za-z])'), options: [], expected_answer: 'B' })).toMatchObject({ reward: 1 });
  });

  it('matches option text when the capture is not a single letter', () => {
    expect(score('Pick: optc', tm('Pick:\\s*(\\w+)'))).toMatchObject({ reward: 1, extracted_answer: 'C' });
    expect(score('Pick: nothing', tm('Pick:\\s*(\\w+)'))).toMatchObject({ reward: 0, extracted_answer: null });
  });

  it('tries a list of regexes in order and falls back to the grading mode', () => {
    expect(score('Antwort: C', tm(['Answer\\s*:\\s*([A-Za-z])', 'Antwort\\s*:\\s*([A-Za-z])']))).toMatchObject({ reward: 1 });
    expect(score('\\boxed{C}', tm('Option Selected:\\s*([A-Za-z])'))).toMatchObject({ reward: 1 });
  });

  it('uses whole matches when the regex has no group, and normalises localised letters', () => {
    expect(score('blah C', tm('\\b[a-d]$'))).toMatchObject({ reward: 1, extracted_answer: 'C' });
    expect(score('الإجابة: ج', tm(['الإجابة:\\s*([أ-د])']))).toMatchObject({ reward: 1, extracted_answer: 'C' });
    expect(score('Answer: Ｃ', tm('Answer: (.)'))).toMatchObject({ reward: 1, extracted_answer: 'C' });
  });

  it('reads Python syntax: (?P<name>), \\Z, Unicode \\d', () => {
    expect(score('Choice=C', tm('Choice=(?P<x>[A-D])\\Z'))).toMatchObject({ reward: 1 });
    expect(score('answer #٣ is C', tm('#\\d is (\\w)'))).toMatchObject({ reward: 1 });
  });

  it('refuses a regex with several groups, where NeMo Gym crashes', () => {
    expect(() => score('Answer: C', tm('(Answer): ([A-D])'))).toThrow(/capture groups/);
    // No match, no crash: NeMo Gym only fails on the tuple findall returns.
    expect(score('\\boxed{C}', tm('(Nope): ([A-D])'))).toMatchObject({ reward: 1 });
  });
});

describe('mcqa task-supplied patterns', () => {
  const tm = (output_regex: unknown) => ({ template_metadata: { output_regex } });

  it('refuses a row whose output_regex does not compile, naming the line, the field and the reason', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'mcqa-regex-'));
    const file = path.join(dir, 'tasks.jsonl');
    const rows = [row(tm('Answer:\\s*([A-D])')), row(tm('([A-Z')), row(tm(['Answer:\\s*([A-D])', 'x{2,1}']))];
    await writeFile(file, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const error = await loadTasks(file, mcqa).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GymError);
    const details = (error as GymError).details ?? [];
    expect(details).toHaveLength(2);
    expect(details[0]).toMatch(/^line 2: template_metadata\.output_regex: "\(\[A-Z" is not a valid regular expression \(re\.error: unterminated character set/);
    expect(details[1]).toMatch(/^line 3: template_metadata\.output_regex\[1\]: "x\{2,1\}" is not a valid regular expression \(re\.error: /);
  });

  it('a catastrophically backtracking output_regex fails verify with REGEX_TIMEOUT; the process keeps running and grades the next row', async () => {
    const catastrophic = '^(?:[a-z ]+\\s*)+:(\\w)';
    const longNoColon = 'the answer is clearly option c because it fits best '.repeat(40);
    const [frozen, next] = await verifyInChild([
      { env: 'mcqa', task: row(tm(catastrophic)), text: longNoColon },
      { env: 'mcqa', task: row(tm('Answer:\\s*([A-D])')), text: 'Answer: C' },
    ]);
    expect(frozen!.error?.code).toBe('REGEX_TIMEOUT');
    expect(frozen!.error?.message).toContain(JSON.stringify(catastrophic));
    expect(next).toMatchObject({ reward: 1 });
    expect(next!.ticks).toBeGreaterThan(frozen!.ticks);
  });
});

describe('mcqa oracle', () => {
  const tasks = readJsonl(path.join(dir, 'example.jsonl')).concat(readJsonl(path.join(dir, 'example_with_template_metadata.jsonl')));
  const modes = ['strict_single_letter_boxed', 'lenient_boxed', 'lenient_answer_colon', 'lenient_answer_colon_md'];
  it('answers correctly or with a different allowed letter, in every grading mode', () => {
    const rng = seededRng('mcqa-oracle');
    for (const raw of tasks) {
      for (const grading_mode of modes) {
        const task = McqaTask.parse({ ...raw, grading_mode });
        for (const correct of [true, false]) {
          const items = mcqaOracle(task, [], { correct, rng });
          const response: ResponseObject = { id: 'r', output: items };
          const r = mcqa.verify(task, response, ctx) as Record<string, unknown>;
          expect(r.reward, `${grading_mode} correct=${correct}`).toBe(correct ? 1 : 0);
          if (!correct) expect(r.extracted_answer).not.toBeNull();
        }
      }
    }
  });
});

import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateKnightsKnavesTasks, reasoningGym } from '../../src/environments/reasoning_gym';
import { extractAnswer } from '../../src/environments/reasoning_gym/extract';
import { solutions, type Statement } from '../../src/environments/reasoning_gym/knights_knaves/logic';
import { scoreKnightsKnaves } from '../../src/environments/reasoning_gym/knights_knaves/score';
import { ReasoningGymTask } from '../../src/environments/reasoning_gym/task';
import { reasoningGymOracle } from '../../src/environments/reasoning_gym/oracle';
import type { ResponseObject } from '../../src/schemas/responses';
import { seededRng } from '../../src/util/rng';
import { answerResponse, FIXTURES, joinToTasks, readJsonl } from './nemo_fixtures';

const DIR = path.join(FIXTURES, 'reasoning_gym');
const tasks = readJsonl(path.join(DIR, 'example.jsonl')).map((row) => ReasoningGymTask.parse(row));
const rollouts = readJsonl<{ responses_create_params: { input: unknown }; response: ResponseObject; reward: number; extracted_answer: string }>(path.join(DIR, 'example_rollouts.jsonl'));
const verify = (task: ReasoningGymTask, text: string) => reasoningGym.verify(task, answerResponse(text), { state: null }) as Record<string, unknown>;

describe('reasoning_gym conformance with NeMo Gym recordings', () => {
  it.each(joinToTasks(rollouts, tasks).map(({ rollout, task }, i) => [i, rollout, task] as const))('rollout %i reproduces', (_i, rollout, task) => {
    const result = reasoningGym.verify(task, rollout.response, { state: null }) as Record<string, unknown>;
    expect(result.reward).toBe(rollout.reward);
    expect(result.task_name).toBe('knights_knaves');
    // Recorded by an older server that did not strip the whole-text fallback.
    expect(result.extracted_answer).toBe(rollout.extracted_answer.trim());
  });
});

describe('knights_knaves scoring (reasoning_gym score_answer semantics)', () => {
  const gold = 'Zoey is a fool, and Riley is a sage.';
  it.each([
    ['Zoey is a fool, and Riley is a sage.', 1.0],
    ['riley is a sage and zoey is a fool', 1.0],
    ['Zoey: fool; Riley: sage', 0.0], // ":" is not punctuation to the scorer: the names read "zoey:" and "riley:"
    ['(Zoey) fool, (Riley) sage', 1.0],
    ['Zoey is a sage, and Riley is a sage.', 0.3 + 0.7 / 2],
    ['Zoey is a sage, and Riley is a fool.', 0.0],
    ['Zoey is a fool.', 0.0],
    ['', 0.0],
    ['  Zoey   is a\tfool,\u3000and Riley is a sage  ', 1.0],
    ['ZOEY IS A FOOL AND RILEY IS A SAGE', 1.0],
    ['Zoëy is a fool, and Riley is a sage.', 0.3 + 0.7 / 2],
  ])('%j scores %d', (answer, expected) => {
    expect(scoreKnightsKnaves(answer, gold)).toBeCloseTo(expected as number, 12);
  });

  it('extracts the last answer tag, else the first boxed, else the stripped text', () => {
    expect(extractAnswer('<answer>A</answer> then <answer> B </answer>')).toBe('B');
    expect(extractAnswer('\\boxed{first} and \\boxed{second}')).toBe('first');
    expect(extractAnswer('  plain \n')).toBe('plain');
    expect(extractAnswer('<answer></answer>')).toBe('');
  });

  it('an empty answer tag scores 0 with a failure reason', () => {
    const result = verify(tasks[0]!, '<answer></answer>');
    expect(result.reward).toBe(0);
    expect(result.failure_reason).toBe('empty_answer');
  });

  it('partial credit carries a failure reason', () => {
    const result = verify(tasks[0]!, '<answer>Zoey is a sage, and Riley is a sage.</answer>');
    expect(result.reward).toBeCloseTo(0.65, 12);
    expect(result.failure_reason).toBe('some_roles_wrong');
  });

  it('a task without a gold answer scores 0', () => {
    const result = verify({ ...tasks[0]!, answer: null }, '<answer>anything</answer>');
    expect(result.reward).toBe(0);
  });

  it('rejects tasks of other reasoning_gym datasets', () => {
    expect(ReasoningGymTask.safeParse({ ...tasks[0]!, metadata: { source_dataset: 'game_of_life' } }).success).toBe(false);
  });
});

describe('knights_knaves generator', () => {
  it('the fixture puzzles have exactly the recorded solution', () => {
    for (const task of tasks) expect(solutions(task.metadata.statements as Statement[])).toEqual([task.metadata.solution]);
  });

  it('is deterministic per seed and makes uniquely solvable puzzles whose gold answer scores 1', () => {
    const a = generateKnightsKnavesTasks({ seed: 7, size: 20, nPeople: 3, depth: 2, width: 3 });
    expect(generateKnightsKnavesTasks({ seed: 7, size: 20, nPeople: 3, depth: 2, width: 3 })).toEqual(a);
    expect(generateKnightsKnavesTasks({ seed: 8, size: 20, nPeople: 3, depth: 2, width: 3 })).not.toEqual(a);
    for (const row of a) {
      const task = ReasoningGymTask.parse(row);
      expect(solutions(row.metadata.statements)).toEqual([row.metadata.solution]);
      expect(verify(task, `<answer>${task.answer}</answer>`).reward).toBe(1);
      expect(task.question).toContain('(Format your answer like: "');
    }
  });

  it('rejects shapes the sampler cannot fill', () => {
    expect(() => generateKnightsKnavesTasks({ seed: 1, size: 1, nPeople: 1 })).toThrow();
    expect(() => generateKnightsKnavesTasks({ seed: 1, size: 1, nPeople: 2, width: 4 })).toThrow();
  });
});

describe('reasoning_gym oracle', () => {
  it('correct passes and wrong fails on every fixture and generated task', () => {
    const all = [...tasks, ...generateKnightsKnavesTasks({ seed: 3, size: 10, nPeople: 4 }).map((r) => ReasoningGymTask.parse(r))];
    for (const task of all) {
      for (const correct of [true, false]) {
        const output = reasoningGymOracle(task, [], { correct, rng: seededRng(1) });
        const result = reasoningGym.verify(task, { id: 'r', output }, { state: null }) as { reward: number };
        expect(result.reward).toBe(correct ? 1 : 0);
      }
    }
  });
});

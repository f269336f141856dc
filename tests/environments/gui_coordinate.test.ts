// gui_coordinate against NeMo Gym: recorded rewards and distances reproduce to the bit, and hand-made
// answers score as NeMo Gym's gui_coordinate/app.py (v0.6.0) scores them (values checked against it).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { guiCoordinate, GuiCoordinateTask } from '../../src/environments/gui_coordinate';
import { guiCoordinateOracle } from '../../src/environments/gui_coordinate/oracle';
import { seededRng } from '../../src/util/rng';
import type { ResponseObject } from '../../src/schemas/responses';
import { FIXTURES, answerResponse, joinToTasks, readJsonl } from './nemo_fixtures';
import { settled } from './env_helpers';

const dir = path.join(FIXTURES, 'gui_coordinate');
const ctx = { state: null };

describe('gui_coordinate conformance with NeMo Gym recorded rollouts', () => {
  const tasks = readJsonl(path.join(dir, 'example.jsonl')) as { responses_create_params: { input: unknown } }[];
  const rollouts = readJsonl(path.join(dir, 'example_rollouts.jsonl')) as {
    responses_create_params: { input: unknown };
    _ng_task_index: number;
    response: ResponseObject;
    reward: number;
    extracted_x: number;
    extracted_y: number;
    distance: number;
  }[];
  for (const { rollout, task } of joinToTasks(rollouts, tasks)) {
    it(`task ${rollout._ng_task_index} reproduces reward ${rollout.reward}`, () => {
      const result = guiCoordinate.verify(GuiCoordinateTask.parse(task), rollout.response, ctx);
      expect(result).toMatchObject({
        reward: rollout.reward,
        extracted_x: rollout.extracted_x,
        extracted_y: rollout.extracted_y,
        distance: rollout.distance,
      });
    });
  }
});

describe('gui_coordinate edge cases (values from NeMo Gym v0.6.0)', () => {
  it.each([
    ['0.5,0.5', '<point>(500, 500)</point>', undefined, 1.0, 0.5, 0.5, 0.0],
    ['0.5,0.5', '<point>[(600, 500)]</point>', undefined, 0.11111111111111122, 0.6, 0.5, 0.09999999999999998],
    ['0.5,0.5', '<point> ( 650 , 500 ) </point>', undefined, 0.0, 0.65, 0.5, 0.15000000000000002],
    ['0.5,0.5', '<point>(٥٠٠, ٥٠٠)</point>', undefined, 1.0, 0.5, 0.5, 0.0],
    ['0.5,0.5', '<point>(100,100)</point> then <point>(500,500)</point>', undefined, 0.0, 0.1, 0.1, 0.5656854249492381],
    ['0.5,0.5', '<point>(-5, 5)</point>', undefined, 0.0, null, null, null],
    ['0.5,0.5', '<point>(500.5, 500)</point>', undefined, 0.0, null, null, null],
    ['0.5,0.5', '<POINT>(500, 500)</POINT>', undefined, 0.0, null, null, null],
    ['0.5,0.5', '', undefined, 0.0, null, null, null],
    ['0.5', '<point>(500, 500)</point>', undefined, 0.0, null, null, null],
    ['a,b', '<point>(500, 500)</point>', undefined, 0.0, null, null, null],
    [' 0.5 , 0.5 ', '<point>\n(500,\n500)\n</point>', undefined, 1.0, 0.5, 0.5, 0.0],
    ['0.5,0.5', '<point>(560, 500)</point>', 0.5, 0.7743999999999999, 0.56, 0.5, 0.06000000000000005],
    ['0.5,0.5', '<point>(500, 500)</point>', 0, 0.0, 0.5, 0.5, 0.0],
    ['1_0,0', '<point>(500, 500)</point>', 20, 0.27493512047797763, 0.5, 0.5, 9.513148795220223],
  ])('expected %j, answer %j, max_dist %s → %d', (expected_answer, text, max_dist, reward, x, y, distance) => {
    const task = GuiCoordinateTask.parse({ responses_create_params: { input: [] }, expected_answer, ...(max_dist === undefined ? {} : { max_dist }) });
    const r = guiCoordinate.verify(task, answerResponse(text), ctx) as Record<string, unknown>;
    expect(r).toMatchObject({ reward, extracted_x: x, extracted_y: y, distance, expected_answer });
    if (reward < 1) expect(r.failure_reason).toBeTypeOf('string');
  });

  it('names why a click missed', () => {
    const task = (expected_answer: string) => GuiCoordinateTask.parse({ responses_create_params: { input: [] }, expected_answer });
    const reason = (expected: string, text: string) => (guiCoordinate.verify(task(expected), answerResponse(text), ctx) as Record<string, unknown>).failure_reason;
    expect(reason('0.5', '<point>(500, 500)</point>')).toBe('invalid_expected_answer');
    expect(reason('0.5,0.5', 'I would click the button')).toBe('no_point');
    expect(reason('0.5,0.5', '<point>(900, 900)</point>')).toBe('outside_max_dist');
    expect(reason('0.5,0.5', '<point>(510, 500)</point>')).toBe('off_center');
  });
});

describe('gui_coordinate oracle', () => {
  it('clicks the target when correct and far away otherwise', () => {
    const rng = seededRng('gui');
    for (const raw of readJsonl(path.join(dir, 'example.jsonl'))) {
      const task = GuiCoordinateTask.parse(raw);
      const hit = settled(guiCoordinate.verify(task, { id: 'r', output: guiCoordinateOracle(task, [], { correct: true, rng }) }, ctx));
      const miss = settled(guiCoordinate.verify(task, { id: 'r', output: guiCoordinateOracle(task, [], { correct: false, rng }) }, ctx));
      expect(hit.reward).toBeGreaterThan(0.99);
      expect(miss.reward).toBe(0);
    }
  });
});

// NeMo Gym's gui_coordinate: the model points at a screen element as `<point>(x, y)</point>` in
// thousandths of the image; reward falls off quadratically with distance from the expected point.
import { z } from 'zod';
import { TaskRow } from '../../schemas/task';
import { defineEnvironment } from '../define';
import { PyRegex } from '../../python/regex';
import { assistantText } from '../string_match/assistant_text';
import { pyFloat, pyIntFromString } from '../../python/number';

export const GuiCoordinateTask = TaskRow.extend({
  /** "x,y", each normalised to 0–1. */
  expected_answer: z.string(),
  max_dist: z.number().optional(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
});
export type GuiCoordinateTask = z.infer<typeof GuiCoordinateTask>;

type Point = readonly [number, number];

const DEFAULT_MAX_DIST = 0.15;
// Python's \d: any script's decimal digits, which int() reads too.
const POINT = new PyRegex('<point>\\s*\\[?\\s*\\(\\s*(\\d+)\\s*,\\s*(\\d+)\\s*\\)\\s*\\]?\\s*</point>');

/** `int(digits) / 1000` for the Unicode decimal digits `\d+` matched. */
function thousandths(digits: string): number {
  return Number(pyIntFromString(digits)!) / 1000;
}

/** The first `<point>(x, y)</point>` in the text, scaled to 0–1. */
export function parsePoint(text: string): Point | null {
  const m = POINT.search(text);
  return m ? [thousandths(m.groups[0]!), thousandths(m.groups[1]!)] : null;
}

export function parseExpected(expected: string): Point | null {
  const parts = expected.split(',');
  if (parts.length !== 2) return null;
  const [x, y] = parts.map(pyFloat);
  return x === null || x === undefined || y === null || y === undefined ? null : [x, y];
}

export const guiCoordinate = defineEnvironment({
  name: 'gui_coordinate',
  description: 'Point at a GUI element as <point>(x, y)</point>; reward (1 - distance/max_dist)^2 within max_dist.',
  taskSchema: GuiCoordinateTask,
  verify(task, response) {
    const expected = parseExpected(task.expected_answer);
    const predicted = parsePoint(assistantText(response.output));
    const base = { expected_answer: task.expected_answer, extracted_x: null, extracted_y: null, distance: null };
    if (!expected) return { reward: 0.0, ...base, failure_reason: 'invalid_expected_answer' };
    if (!predicted) return { reward: 0.0, ...base, failure_reason: 'no_point' };
    const dx = predicted[0] - expected[0];
    const dy = predicted[1] - expected[1];
    const distance = Math.sqrt(dx * dx + dy * dy);
    const maxDist = task.max_dist ?? DEFAULT_MAX_DIST;
    const closeness = 1 - distance / maxDist;
    const reward = distance >= maxDist ? 0.0 : closeness * closeness;
    return {
      reward,
      expected_answer: task.expected_answer,
      extracted_x: predicted[0],
      extracted_y: predicted[1],
      distance,
      ...(reward === 1.0 ? {} : { failure_reason: distance >= maxDist ? 'outside_max_dist' : 'off_center' }),
    };
  },
});

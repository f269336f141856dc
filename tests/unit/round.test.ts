// Python's round() as the ported environments need it: halves to the even neighbour, on both sides of 0.
import { describe, expect, it } from 'vitest';
import { roundHalfEven } from '../../src/util/round';

describe('roundHalfEven', () => {
  it('rounds halves to the even neighbour, as Python 3 round() does', () => {
    // Python: [round(x) for x in (0.5, 1.5, 2.5, -0.5, -1.5, -2.5, -3.5)] == [0, 2, 2, 0, -2, -2, -4]
    expect([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, -3.5].map(roundHalfEven).map((x) => x + 0)).toEqual([0, 2, 2, 0, -2, -2, -4]);
  });
  it('rounds everything else to the nearest integer', () => {
    expect([0.49, 0.51, 2.4999, -1.6, -1.4, 7].map(roundHalfEven).map((x) => x + 0)).toEqual([0, 1, 2, -2, -1, 7]);
  });
});

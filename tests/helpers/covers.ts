// An assertion for metrics computed by another implementation: every key the reference has, with its value
// (numbers to 9 digits), wherever it is nested; keys only the actual value has are not looked at.
import { expect } from 'vitest';

export function expectCovers(actual: unknown, expected: unknown, where = '$'): void {
  if (typeof expected === 'number') {
    expect(typeof actual, where).toBe('number');
    expect(actual as number, where).toBeCloseTo(expected, 9);
  } else if (Array.isArray(expected)) {
    expect(Array.isArray(actual), where).toBe(true);
    expect((actual as unknown[]).length, where).toBe(expected.length);
    expected.forEach((e, i) => expectCovers((actual as unknown[])[i], e, `${where}[${i}]`));
  } else if (typeof expected === 'object' && expected !== null) {
    expect(typeof actual, where).toBe('object');
    for (const [k, v] of Object.entries(expected)) {
      expect(actual as object, `${where} lacks ${k}`).toHaveProperty([k]);
      expectCovers((actual as Record<string, unknown>)[k], v, `${where}.${k}`);
    }
  } else expect(actual, where).toEqual(expected);
}

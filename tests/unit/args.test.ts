// Number flags: plain decimal only, a negative value reaches the reader (not node's "ambiguous"),
// and every refusal names the flag and echoes what was given.
import { describe, expect, it } from 'vitest';
import { intFlag, numberFlag, parseFlags } from '../../src/cli/args';
import { GymError } from '../../src/errors';

const OPTIONS = { concurrency: { type: 'string' }, 'model-name': { type: 'string' }, output: { type: 'string', short: 'o' }, detach: { type: 'boolean' } } as const;

function refusal(fn: () => unknown): GymError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(GymError);
    expect((e as GymError).code).toBe('BAD_FLAG');
    return e as GymError;
  }
  throw new Error('expected a refusal');
}

describe('command-line numbers', () => {
  it('hands a negative value to the flag it follows, so the range check speaks', () => {
    const { values } = parseFlags(['--concurrency', '-1'], OPTIONS, 'usage');
    expect(values.concurrency).toBe('-1');
    expect(refusal(() => intFlag(values, 'concurrency', { min: 1 })).message).toBe('--concurrency must be an integer ≥ 1, got -1');
    expect(parseFlags(['-o', '-2.5'], OPTIONS, 'usage').values.output).toBe('-2.5');
  });

  it('leaves other dash values, booleans and everything after -- as node parses them', () => {
    expect(refusal(() => parseFlags(['--model-name', '-x'], OPTIONS, 'usage')).message).toMatch(/'--model-name' argument is ambiguous/);
    expect(refusal(() => parseFlags(['--detach', '-1'], OPTIONS, 'usage')).message).toMatch(/Unknown option '-1'/);
    expect(parseFlags(['--', '--concurrency', '-1'], OPTIONS, 'usage').positionals).toEqual(['--concurrency', '-1']);
  });

  it.each(['0x10', '1e1', '16.0', ' 16', '16 ', '', '+16', '0b10', 'Infinity', '99999999999999999999'])('refuses %j as an integer', (raw) => {
    expect(refusal(() => intFlag({ concurrency: raw }, 'concurrency', { min: 1 })).message).toMatch(/^--concurrency must be an integer ≥ 1, got /);
  });

  it('reads plain decimal integers and numbers', () => {
    expect(intFlag({ concurrency: '16' }, 'concurrency', { min: 1 })).toBe(16);
    expect(intFlag({ concurrency: '007' }, 'concurrency', { min: 1 })).toBe(7);
    expect(intFlag({ seed: '-3' }, 'seed')).toBe(-3);
    expect(intFlag({}, 'seed', { fallback: 4 })).toBe(4);
    expect(numberFlag({ p: '0.25' }, 'p', { min: 0, max: 1 })).toBe(0.25);
    expect(numberFlag({ p: '.5' }, 'p', { min: 0, max: 1 })).toBe(0.5);
    expect(numberFlag({ p: '1' }, 'p', { min: 0, max: 1 })).toBe(1);
  });

  it.each(['0x1', '1e-1', 'NaN', '', '0.5.1', '-0.5', '2'])('refuses %j as a number between 0 and 1', (raw) => {
    expect(refusal(() => numberFlag({ p: raw }, 'p', { min: 0, max: 1 })).message).toMatch(/^--p must be a number between 0 and 1, got /);
  });
});

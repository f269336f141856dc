// The coverage threshold of a finished run: the line that says how it falls short, and INCOMPLETE.
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, GymError } from '../../src/errors';
import { computeRunMetrics, type RunMetrics } from '../../src/metrics/aggregate';
import { checkCoverage, coverageShortfall, minCoverageFlag } from '../../src/cli/coverage';

const metrics = (expected: number, recorded: number, failed: number): RunMetrics => ({
  ...computeRunMetrics({ rollouts: [], failureClasses: [], expected }),
  rollouts_recorded: recorded,
  rollouts_failed: failed,
  coverage: recorded / expected,
});

describe('coverage threshold', () => {
  it('says how many rollouts failed and how many are missing', () => {
    expect(coverageShortfall(metrics(40, 24, 16), 1)).toBe('coverage 60.0% is below --min-coverage 100%: 16 rollouts failed (see failures.jsonl)');
    expect(coverageShortfall(metrics(40, 24, 10), 0.75)).toBe('coverage 60.0% is below --min-coverage 75%: 10 rollouts failed (see failures.jsonl), 6 rollouts missing from both files');
    expect(coverageShortfall(metrics(3, 2, 1), 0.9)).toMatch(/: 1 rollout failed/);
  });

  it('is silent when coverage reaches the threshold', () => {
    expect(coverageShortfall(metrics(40, 40, 0), 1)).toBeUndefined();
    expect(coverageShortfall(metrics(40, 24, 16), 0.6)).toBeUndefined();
    expect(() => checkCoverage(metrics(40, 40, 0), 1)).not.toThrow();
  });

  it('throws INCOMPLETE, whose exit status is its own', () => {
    const err = (() => {
      try {
        checkCoverage(metrics(10, 0, 10), 1);
      } catch (e) {
        return e as GymError;
      }
    })()!;
    expect(err.code).toBe('INCOMPLETE');
    expect(
      Object.entries(ERROR_CODES)
        .filter(([, status]) => status === ERROR_CODES.INCOMPLETE)
        .map(([code]) => code),
    ).toEqual(['INCOMPLETE']);
    expect(err.exitStatus).not.toBe(0);
  });

  it('reads --min-coverage as a share between 0 and 1, default 1', () => {
    expect(minCoverageFlag({})).toBe(1);
    expect(minCoverageFlag({ 'min-coverage': '0.8' })).toBe(0.8);
    expect(() => minCoverageFlag({ 'min-coverage': '80' })).toThrow(/--min-coverage must be a number between 0 and 1/);
  });
});

import { describe, expect, it } from 'vitest';
import { computeRunMetrics, passAtK, sampleStd } from '../../src/metrics/aggregate';

describe('pass@k', () => {
  it('uses the unbiased estimator for binary scores', () => {
    // n=4, c=2 incorrect: pass@1 = 1 - C(2,1)/C(4,1) = 0.5; pass@2 = 1 - C(2,2)/C(4,2) = 5/6; pass@3 = 1 (c < k).
    expect(passAtK([1, 0, 1, 0], 1)).toBeCloseTo(0.5);
    expect(passAtK([1, 0, 1, 0], 2)).toBeCloseTo(5 / 6);
    expect(passAtK([1, 0, 1, 0], 3)).toBe(1);
    expect(passAtK([0, 0, 0], 2)).toBe(0);
  });
  it('takes the best of the first k for graded scores', () => {
    expect(passAtK([0.2, 0.9, 0.5], 1)).toBe(0.2);
    expect(passAtK([0.2, 0.9, 0.5], 2)).toBe(0.9);
  });
});

describe('run metrics', () => {
  it('reports mean, sample std, 95% interval, pass@k per task, coverage and failure classes', () => {
    const rollouts = [
      { taskIndex: 0, rolloutIndex: 0, reward: 1 },
      { taskIndex: 0, rolloutIndex: 1, reward: 0 },
      { taskIndex: 1, rolloutIndex: 0, reward: 1 },
      { taskIndex: 1, rolloutIndex: 1, reward: 1, rewardComponents: { format: 0.5 } },
    ];
    const m = computeRunMetrics({ rollouts, failureClasses: ['model_error', 'judge_failed', 'model_error'], expected: 7 });
    expect(m.rollouts_recorded).toBe(4);
    expect(m.rollouts_failed).toBe(3);
    expect(m.coverage).toBeCloseTo(4 / 7);
    expect(m.tasks).toBe(2);
    expect(m.mean_reward).toBe(0.75);
    expect(m.std_reward).toBeCloseTo(0.5);
    expect(m.ci95_reward![0]).toBeCloseTo(0.75 - (1.96 * 0.5) / 2);
    expect(m.pass_at_k).toEqual({ 'pass@1': 0.75, 'pass@2': 1 });
    expect(m.reward_components).toEqual({ format: 0.5 });
    expect(m.failure_classes).toEqual({ model_error: 2, judge_failed: 1 });
  });

  it('has no reward statistics when nothing was recorded', () => {
    const m = computeRunMetrics({ rollouts: [], failureClasses: ['timeout'], expected: 1 });
    expect(m.mean_reward).toBeNull();
    expect(m.ci95_reward).toBeNull();
    expect(m.coverage).toBe(0);
    expect(sampleStd([3])).toBe(0);
  });
});

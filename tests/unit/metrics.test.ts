// Run metrics on fixed inputs, every expectation worked out by hand (the arithmetic is beside it):
// pass@k over a fixed task set with k above some tasks' repeat counts, graded rewards, majority@k,
// per-task variance, the clustered and NeMo Gym intervals, zero variance and a single repeat.
import { describe, expect, it } from 'vitest';
import { RunAccumulator, computeRunMetrics, type ScoredRollout } from '../../src/metrics/aggregate';
import { acrossRepeatsInterval, clusteredInterval } from '../../src/metrics/intervals';
import { majorityAtKCurve, pass1AvgOfKCurve, passAtK, passAtKCurve } from '../../src/metrics/pass-at-k';
import { prefixSampleStds, sampleStd, studentTQuantile, summarize } from '../../src/metrics/stats';

/** Rollouts of task t with the given rewards, rollout indices 0, 1, … */
const task = (t: number, rewards: number[], answers?: (string | null)[]): ScoredRollout[] => rewards.map((reward, i) => ({ taskIndex: t, rolloutIndex: i, reward, answer: answers?.[i] }));

// t(0.975, 2) in closed form: with 2 degrees of freedom F(t) = 1/2 + t / (2·√(2 + t²)), so F = 0.975
// means t/√(2+t²) = 0.95, t² = 0.9025·2 / (1 − 0.9025) = 1.805 / 0.0975 = 18.5128205…, t = 4.30265272975.
const T2 = 4.302652729749464;
// t(0.975, 3) from printed tables: 3.182446305284263.
const T3 = 3.182446305284263;

describe('Student t quantile', () => {
  it('matches the closed form and the tables', () => {
    expect(studentTQuantile(0.975, 2)).toBeCloseTo(T2, 9);
    expect(studentTQuantile(0.975, 3)).toBeCloseTo(T3, 9);
    // df = 1 is the Cauchy distribution: tan(π · (0.975 − 0.5)) = tan(0.475π) = 12.7062047362.
    expect(studentTQuantile(0.975, 1)).toBeCloseTo(12.706204736174696, 8);
    expect(studentTQuantile(0.025, 3)).toBeCloseTo(-T3, 9);
  });
});

describe('pass@k for one task', () => {
  it('is the unbiased estimator for 0/1 rewards', () => {
    // n = 4, c = 2 correct: pass@1 = 1 − C(2,1)/C(4,1) = 1 − 2/4 = 0.5; pass@2 = 1 − C(2,2)/C(4,2) = 1 − 1/6 = 5/6;
    // pass@3 = 1 − C(2,3)/C(4,3) = 1 − 0 = 1.
    expect(passAtK([1, 0, 1, 0], 1)).toBeCloseTo(0.5, 12);
    expect(passAtK([1, 0, 1, 0], 2)).toBeCloseTo(5 / 6, 12);
    expect(passAtK([1, 0, 1, 0], 3)).toBeCloseTo(1, 12);
    expect(passAtK([0, 0, 0], 2)).toBe(0);
  });

  it('is the expected best of k drawn without replacement for graded rewards, whatever their order', () => {
    // {0.2, 0.9, 0.5}: k = 1 is the mean, (0.2 + 0.9 + 0.5)/3 = 1.6/3 = 0.533…; k = 2 over the three pairs:
    // max{0.2,0.9} = 0.9, max{0.2,0.5} = 0.5, max{0.9,0.5} = 0.9 → 2.3/3 = 0.766…; k = 3 is the max, 0.9.
    for (const order of [
      [0.2, 0.9, 0.5],
      [0.9, 0.5, 0.2],
    ]) {
      expect(passAtK(order, 1)).toBeCloseTo(1.6 / 3, 12);
      expect(passAtK(order, 2)).toBeCloseTo(2.3 / 3, 12);
      expect(passAtK(order, 3)).toBeCloseTo(0.9, 12);
    }
  });

  it('refuses k above the sample count', () => {
    expect(() => passAtK([1], 2)).toThrow(/1 ≤ k ≤ n/);
  });
});

describe('pass@k of one task for every k at once', () => {
  it('gives the same values as the worked cases above', () => {
    const binary = passAtKCurve([1, 0, 1, 0]);
    expect(binary).toHaveLength(4);
    [0.5, 5 / 6, 1, 1].forEach((v, i) => expect(binary[i]).toBeCloseTo(v, 12));
    expect(passAtKCurve([0, 0, 0])).toEqual([0, 0, 0]);
    for (const order of [
      [0.2, 0.9, 0.5],
      [0.9, 0.5, 0.2],
    ]) {
      const graded = passAtKCurve(order);
      [1.6 / 3, 2.3 / 3, 0.9].forEach((v, i) => expect(graded[i]).toBeCloseTo(v, 12));
    }
  });

  it('agrees with the one-k sum over sorted rewards on random tasks, ties, negative and repeated rewards included', () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let trial = 0; trial < 200; trial++) {
      const n = 1 + Math.floor(next() * 40);
      const levels = [0, 1, 0.5, -0.25, next()];
      const rewards = Array.from({ length: n }, () => (trial % 2 ? levels[Math.floor(next() * levels.length)]! : next()));
      const curve = passAtKCurve(rewards);
      for (let k = 1; k <= n; k++) expect(curve[k - 1]).toBeCloseTo(passAtK(rewards, k), 9);
    }
  });

  it('stays exact and quick for one task of 20,000 repeats', () => {
    // 1 − C(n − c, k)/C(n, k) with n = 20,000 and c = 1: k/n.
    const rewards = Array.from({ length: 20_000 }, (_, i) => (i === 123 ? 1 : 0));
    const curve = passAtKCurve(rewards);
    for (const k of [1, 10, 1000, 19_999, 20_000]) expect(curve[k - 1]).toBeCloseTo(k / 20_000, 9);
  });
});

describe('pass@1[avg-of-k] of one task', () => {
  it('is the mean of the first k rewards', () => {
    expect(pass1AvgOfKCurve([1, 0, 0.5, 0.5])).toEqual([1, 0.5, 0.5, 0.5]);
  });
});

describe('majority@k for one task (NeMo Gym: first k, vote on answer and reward, ties averaged)', () => {
  it('votes, splits ties and scores no answer as 0', () => {
    const rewards = [1, 0, 1, 0];
    const answers = ['4', '5', '4', null];
    // k = 1: only "4" (reward 1) → 1. k = 2: "4"/1 and "5"/0 once each, a tie → (1 + 0)/2 = 0.5.
    // k = 4: "4"/1 twice, "5"/0 once, the null does not vote → 1.
    // k = 3: "4"/1 twice → 1.
    expect(majorityAtKCurve(rewards, answers)).toEqual([1, 0.5, 1, 1]);
    expect(majorityAtKCurve([1, 1], [null, null])).toEqual([0, 0]);
    // A tie of three, then one pair passes the others: (1 + 0 + 0.5)/3, then that pair's reward alone.
    expect(majorityAtKCurve([1, 0, 0.5, 0], ['a', 'b', 'c', 'b'])).toEqual([1, 0.5, 0.5, 0]);
    // The same answer with another reward is another pair.
    expect(majorityAtKCurve([1, 0, 0], ['a', 'a', 'a'])).toEqual([1, 0.5, 0]);
  });
});

describe('intervals', () => {
  it('clusters by task and reports NeMo Gym’s across-repeats interval', () => {
    // Tasks A = [1, 0, 1], B = [0, 0], C = [1]: N = 6, ȳ = 3/6 = 0.5. Residual sums per task:
    // A 0.5 − 0.5 + 0.5 = 0.5, B −0.5 − 0.5 = −1, C 0.5; squares 0.25 + 1 + 0.25 = 1.5.
    // SE² = G/(G−1) · 1.5 / N² = 3/2 · 1.5 / 36 = 0.0625, SE = 0.25; half width T2 · 0.25 = 1.0756631824.
    const c = clusteredInterval([[1, 0, 1], [0, 0], [1]])!;
    expect(c.mean).toBe(0.5);
    expect(c.se).toBeCloseTo(0.25, 12);
    expect(c.ci95[0]).toBeCloseTo(-0.5756631824373659, 9);
    expect(c.ci95[1]).toBeCloseTo(1.575663182437366, 9);
    expect(c.n).toBe(3);
    // Repeat means: index 0 → (1 + 0 + 1)/3 = 2/3, index 1 → (0 + 0)/2 = 0, index 2 → 1. Mean 5/9; deviations
    // 1/9, −5/9, 4/9 → (1 + 25 + 16)/81 = 42/81, variance 21/81, SE = √(21/81)/√3 = √7/9 = 0.2939723679;
    // half width T2 · 0.2939723679 = 1.2648610111.
    const nemo = acrossRepeatsInterval([2 / 3, 0, 1])!;
    expect(nemo.mean).toBeCloseTo(5 / 9, 12);
    expect(nemo.se).toBeCloseTo(0.2939723678960656, 12);
    expect(nemo.ci95[0]).toBeCloseTo(-0.7093054556433647, 9);
    expect(nemo.ci95[1]).toBeCloseTo(1.8204165667544758, 9);
  });

  it('has no interval with one task or one repeat', () => {
    expect(clusteredInterval([[1, 0, 1], []])).toBeNull();
    expect(acrossRepeatsInterval([0.5])).toBeNull();
  });
});

describe('run metrics', () => {
  it('keeps a fixed task set when k exceeds some tasks’ repeat counts, and names the short tasks', () => {
    // A (task 0) = [1, 0, 1], B (1) = [0, 0], C (2) = [1], D (3) recorded nothing (both rollouts failed).
    const rollouts = [...task(0, [1, 0, 1]), ...task(1, [0, 0]), ...task(2, [1])];
    const m = computeRunMetrics({ rollouts, failureClasses: ['model_error', 'model_error'], expected: 8, taskSet: [0, 1, 2, 3] });
    expect(m.tasks).toBe(3);
    expect(m.task_set).toBe(4);
    // pass@1: A 2/3, B 0, C 1 → (2/3 + 0 + 1)/3 = 5/9. pass@2 (A, B): A 1 − C(1,2)/C(3,2) = 1, B 0 → 0.5.
    // pass@3 (A only): 1 − C(1,3)/C(3,3) = 1.
    expect(m.pass_at_k['pass@1']).toBeCloseTo(5 / 9, 12);
    expect(m.pass_at_k['pass@2']).toBeCloseTo(0.5, 12);
    expect(m.pass_at_k['pass@3']).toBeCloseTo(1, 12);
    expect(m.pass_at_k_short_tasks).toEqual({
      'pass@1': { count: 1, task_indices: [3] },
      'pass@2': { count: 2, task_indices: [2, 3] },
      'pass@3': { count: 3, task_indices: [1, 2, 3] },
    });
    // pass@1[avg-of-k]: k=1 first samples 1, 0, 1 → 2/3; k=2 (A, B) (1+0)/2 = 0.5 and 0 → 0.25; k=3 (A) 2/3.
    expect(m.pass_at_1_avg_of_k['pass@1[avg-of-1]']).toBeCloseTo(2 / 3, 12);
    expect(m.pass_at_1_avg_of_k['pass@1[avg-of-2]']).toBeCloseTo(0.25, 12);
    expect(m.pass_at_1_avg_of_k['pass@1[avg-of-3]']).toBeCloseTo(2 / 3, 12);
    // Naive: rewards 1,0,1,0,0,1: mean 0.5, variance 6·0.25/5 = 0.3, half 1.96·√0.3/√6 = 0.4382693236.
    expect(m.mean_reward).toBe(0.5);
    expect(m.ci95_reward![0]).toBeCloseTo(0.06173067641004121, 9);
    // Clustered and NeMo Gym's: as in the intervals test above (same three tasks).
    expect(m.ci95_reward_clustered![1]).toBeCloseTo(1.575663182437366, 9);
    expect(m.nemo_gym_ci95_reward!.ci95[1]).toBeCloseTo(1.8204165667544758, 9);
    expect(m.nemo_gym_ci95_reward!.repeats).toBe(3);
    // Within-task variances: A mean 2/3, (1/9 + 4/9 + 1/9)/2 = 1/3; B 0 → mean (1/3 + 0)/2 = 1/6; one is zero.
    // Between: task means 2/3, 0, 1, mean 5/9, variance 21/81 (as the repeat means above happen to be).
    expect(m.task_variance.tasks_with_repeats).toBe(2);
    expect(m.task_variance.mean_within_task_variance).toBeCloseTo(1 / 6, 12);
    expect(m.task_variance.zero_variance_tasks).toBe(1);
    expect(m.task_variance.between_task_variance).toBeCloseTo(21 / 81, 12);
    expect(m.majority_at_k).toEqual({});
  });

  it('handles graded rewards independently of the order rollouts were recorded in', () => {
    // One task, rewards {0.2, 0.9, 0.5} by rollout index 0, 1, 2, fed in two orders: pass@2 = 2.3/3 (see above).
    const forward = task(0, [0.2, 0.9, 0.5]);
    for (const rollouts of [forward, [...forward].reverse()]) {
      const m = computeRunMetrics({ rollouts, failureClasses: [], expected: 3 });
      expect(m.pass_at_k['pass@2']).toBeCloseTo(2.3 / 3, 12);
      // pass@1[avg-of-2] uses rollout indices 0 and 1: (0.2 + 0.9)/2 = 0.55, whatever the arrival order.
      expect(m.pass_at_1_avg_of_k['pass@1[avg-of-2]']).toBeCloseTo(0.55, 12);
    }
  });

  it('collapses every interval to a point when rewards do not vary', () => {
    const m = computeRunMetrics({ rollouts: [...task(0, [1, 1]), ...task(1, [1, 1])], failureClasses: [], expected: 4 });
    // All residuals are 0: SE 0, so [1, 1]; the repeat means are 1 and 1, same.
    expect(m.ci95_reward_clustered).toEqual([1, 1]);
    expect(m.se_reward_clustered).toBe(0);
    expect(m.nemo_gym_ci95_reward!.ci95).toEqual([1, 1]);
    expect(m.ci95_reward).toEqual([1, 1]);
    expect(m.task_variance).toEqual({ tasks_with_repeats: 2, mean_within_task_variance: 0, zero_variance_tasks: 2, between_task_variance: 0 });
  });

  it('with a single repeat, clusters of one are the rollouts and NeMo Gym has no interval', () => {
    const m = computeRunMetrics({ rollouts: [...task(0, [1]), ...task(1, [0]), ...task(2, [1]), ...task(3, [0])], failureClasses: [], expected: 4 });
    // ȳ = 0.5, residuals ±0.5, Σ = 1; SE² = 4/3 · 1/16 = 1/12, SE = 0.2886751346; half T3 · SE = 0.9186931155.
    expect(m.se_reward_clustered).toBeCloseTo(0.28867513459481287, 12);
    expect(m.ci95_reward_clustered![0]).toBeCloseTo(-0.4186931155186995, 9);
    expect(m.ci95_reward_clustered![1]).toBeCloseTo(1.4186931155186995, 9);
    // Naive: variance (4 · 0.25)/3 = 1/3, half 1.96 · √(1/3)/2 = 0.5658032638.
    expect(m.ci95_reward![1]).toBeCloseTo(1.0658032638058332, 9);
    expect(m.nemo_gym_ci95_reward).toBeNull();
    expect(m.pass_at_k).toEqual({ 'pass@1': 0.5 });
    expect(m.pass_at_k_short_tasks).toEqual({});
    expect(m.task_variance.tasks_with_repeats).toBe(0);
    expect(m.task_variance.mean_within_task_variance).toBeNull();
  });

  it('reports majority@k when the environment extracts answers', () => {
    // Task 0 as in the majority@k test: majority@1 = 1, @2 = 0.5, @4 = 1; task 1 answers "7" four times with
    // reward 0 → 0 at every k. Means: @1 0.5, @2 0.25, @3 ("4"/1 twice, "5"/0 once → 1) 0.5, @4 0.5.
    const rollouts = [...task(0, [1, 0, 1, 0], ['4', '5', '4', null]), ...task(1, [0, 0, 0, 0], ['7', '7', '7', '7'])];
    const m = computeRunMetrics({ rollouts, failureClasses: [], expected: 8 });
    expect(m.majority_at_k).toEqual({ 'majority@1': 0.5, 'majority@2': 0.25, 'majority@3': 0.5, 'majority@4': 0.5 });
  });

  it('counts coverage, components and failure classes, and has no reward statistics without records', () => {
    const rollouts = [...task(0, [1, 0]), { taskIndex: 1, rolloutIndex: 0, reward: 1 }, { taskIndex: 1, rolloutIndex: 1, reward: 1, rewardComponents: { format: 0.5 } }];
    const m = computeRunMetrics({ rollouts, failureClasses: ['model_error', 'judge_failed', 'model_error'], expected: 7 });
    expect(m.rollouts_recorded).toBe(4);
    expect(m.rollouts_failed).toBe(3);
    expect(m.coverage).toBeCloseTo(4 / 7);
    expect(m.mean_reward).toBe(0.75);
    expect(m.std_reward).toBeCloseTo(0.5);
    expect(m.reward_components).toEqual({ format: 0.5 });
    expect(m.failure_classes).toEqual({ model_error: 2, judge_failed: 1 });

    const none = computeRunMetrics({ rollouts: [], failureClasses: ['timeout'], expected: 1, taskSet: [0] });
    expect(none.mean_reward).toBeNull();
    expect(none.ci95_reward).toBeNull();
    expect(none.ci95_reward_clustered).toBeNull();
    expect(none.coverage).toBe(0);
    expect(none.pass_at_k).toEqual({});
    expect(sampleStd([3])).toBe(0);
  });

  it('scores sidecar rollouts of the classes counted as zero as reward 0, leaving the other classes out', () => {
    const acc = new RunAccumulator([0, 1], ['timeout']);
    acc.addRollout({ taskIndex: 0, rolloutIndex: 0, reward: 1 });
    acc.addRollout({ taskIndex: 1, rolloutIndex: 0, reward: 1 });
    acc.addFailure('timeout', { taskIndex: 0, rolloutIndex: 1 });
    acc.addFailure('model_error', { taskIndex: 1, rolloutIndex: 1 });
    const m = acc.result(5);
    expect(m.mean_reward).toBeCloseTo(2 / 3);
    expect(m.pass_at_k['pass@1']).toBeCloseTo(0.75);
    expect([m.rollouts_recorded, m.rollouts_failed, m.rollouts_counted_as_zero, m.rollouts_missing]).toEqual([2, 2, 1, 1]);
    expect(m.coverage).toBeCloseTo(3 / 5);
    expect(m.count_as_zero).toEqual(['timeout']);
    expect(m.failure_classes).toEqual({ timeout: 1, model_error: 1 });
    // Without it, no failure enters the score.
    const plain = new RunAccumulator([0, 1]);
    plain.addRollout({ taskIndex: 0, rolloutIndex: 0, reward: 1 });
    plain.addFailure('timeout', { taskIndex: 0, rolloutIndex: 1 });
    expect(plain.result(2)).toMatchObject({ mean_reward: 1, coverage: 0.5, rollouts_counted_as_zero: 0 });
  });
});

describe('standard deviations of every prefix', () => {
  it('are each prefix’s two-pass sample std', () => {
    // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, squared deviations sum to 32, so the whole set's sample std is √(32/7).
    const xs = [2, 4, 4, 4, 5, 5, 7, 9];
    const stds = prefixSampleStds(xs);
    expect(stds[0]).toBe(0);
    expect(stds[1]).toBeCloseTo(Math.SQRT2, 12);
    expect(stds[7]).toBeCloseTo(Math.sqrt(32 / 7), 12);
    xs.forEach((_, i) => expect(stds[i]).toBeCloseTo(sampleStd(xs.slice(0, i + 1))!, 12));
  });
});

describe('summaries', () => {
  it('gives mean, sample std, range and linearly interpolated percentiles', () => {
    // [1, 2, 3, 4, 10]: mean 20/5 = 4; squared deviations 9 + 4 + 1 + 0 + 36 = 50, /4 = 12.5, std √12.5;
    // p90 at rank 4 · 0.9 = 3.6 → 4 + 0.6 · (10 − 4) = 7.6; p99 at 3.96 → 4 + 0.96 · 6 = 9.76; median 3.
    const s = summarize([10, 1, 3, 2, 4])!;
    expect(s).toMatchObject({ count: 5, mean: 4, min: 1, max: 10, median: 3, p50: 3 });
    expect(s.std).toBeCloseTo(Math.sqrt(12.5), 12);
    expect(s.p90).toBeCloseTo(7.6, 12);
    expect(s.p99).toBeCloseTo(9.76, 12);
    expect(summarize([])).toBeNull();
    expect(summarize([5])).toMatchObject({ std: 0, p99: 5 });
  });
});

// Run metrics from the recorded rollouts: mean reward with its spread and a 95% interval, pass@k,
// counts and coverage. Pure functions; the finalize activity feeds them the run's files.

export interface ScoredRollout {
  taskIndex: number;
  rolloutIndex: number;
  reward: number;
  rewardComponents?: Record<string, number>;
}

export interface RunMetrics {
  rollouts_expected: number;
  rollouts_recorded: number;
  rollouts_failed: number;
  /** Share of expected rollouts that have a recorded reward: what every reward metric covers. */
  coverage: number;
  tasks: number;
  mean_reward: number | null;
  std_reward: number | null;
  ci95_reward: [number, number] | null;
  pass_at_k: Record<string, number>;
  reward_components: Record<string, number>;
  failure_classes: Record<string, number>;
}

export function mean(xs: readonly number[]): number | null {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
}

/** Sample standard deviation (ddof = 1), as NeMo Gym reports it; 0 for a single value. */
export function sampleStd(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  if (xs.length === 1) return 0;
  const m = mean(xs)!;
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
}

function binomial(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

/**
 * pass@k for one task: the unbiased estimator 1 − C(c,k)/C(n,k) (c = incorrect) when every score is
 * 0 or 1, otherwise the best of the first k scores — NeMo Gym's definition.
 */
export function passAtK(scores: readonly number[], k: number): number {
  const binary = scores.every((s) => s === 0 || s === 1);
  if (!binary) return Math.max(...scores.slice(0, k));
  const incorrect = scores.filter((s) => s === 0).length;
  if (incorrect < k) return 1;
  return 1 - binomial(incorrect, k) / binomial(scores.length, k);
}

export function computeRunMetrics(input: {
  rollouts: readonly ScoredRollout[];
  failureClasses: readonly string[];
  expected: number;
}): RunMetrics {
  const rewards = input.rollouts.map((r) => r.reward);
  const byTask = new Map<number, ScoredRollout[]>();
  for (const r of input.rollouts) byTask.set(r.taskIndex, [...(byTask.get(r.taskIndex) ?? []), r]);

  const maxK = Math.max(0, ...[...byTask.values()].map((g) => g.length));
  const pass: Record<string, number> = {};
  for (let k = 1; k <= maxK; k++) {
    const perTask = [...byTask.values()]
      .filter((g) => g.length >= k)
      .map((g) => passAtK([...g].sort((a, b) => a.rolloutIndex - b.rolloutIndex).map((r) => r.reward), k));
    if (perTask.length) pass[`pass@${k}`] = mean(perTask)!;
  }

  const components: Record<string, number[]> = {};
  for (const r of input.rollouts) for (const [name, v] of Object.entries(r.rewardComponents ?? {})) (components[name] ??= []).push(v);

  const failures: Record<string, number> = {};
  for (const c of input.failureClasses) failures[c] = (failures[c] ?? 0) + 1;

  const m = mean(rewards);
  const sd = sampleStd(rewards);
  const half = m !== null && sd !== null && rewards.length > 1 ? (1.96 * sd) / Math.sqrt(rewards.length) : null;
  return {
    rollouts_expected: input.expected,
    rollouts_recorded: input.rollouts.length,
    rollouts_failed: input.failureClasses.length,
    coverage: input.expected ? input.rollouts.length / input.expected : 0,
    tasks: byTask.size,
    mean_reward: m,
    std_reward: sd,
    ci95_reward: half === null ? null : [m! - half, m! + half],
    pass_at_k: pass,
    reward_components: Object.fromEntries(Object.entries(components).map(([k, v]) => [k, mean(v)!])),
    failure_classes: failures,
  };
}

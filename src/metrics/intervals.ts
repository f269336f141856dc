// 95% intervals for a run's mean reward: one that treats the repeats of a task as a cluster, and NeMo
// Gym's across-repeats t-interval reported beside it. Pure; docs/metrics.md gives the formulas.
import { mean, sampleStd, studentTQuantile } from './stats';

export interface Interval {
  /** The estimate the interval is around. */
  mean: number;
  se: number;
  ci95: [number, number];
  /** Independent units behind the interval: tasks for the clustered one, repeats for NeMo Gym's. */
  n: number;
}

function tInterval(m: number, se: number, n: number): Interval {
  const half = se === 0 ? 0 : studentTQuantile(0.975, n - 1) * se;
  return { mean: m, se, ci95: [m - half, m + half], n };
}

/**
 * The mean reward over every sample with a cluster-robust standard error, tasks as clusters:
 * SE² = G/(G−1) · Σ_g (Σ_i (y_gi − ȳ))² / N² over G tasks and N samples, and a t interval with G−1
 * degrees of freedom. Repeats of one task are correlated, so this is wider than the naive interval
 * whenever tasks differ; with equal repeats per task it is the standard error of the task means.
 * Null with fewer than two tasks.
 */
export function clusteredInterval(tasks: readonly (readonly number[])[]): Interval | null {
  const groups = tasks.filter((t) => t.length > 0);
  const g = groups.length;
  if (g < 2) return null;
  let n = 0;
  let total = 0;
  for (const t of groups) for (const y of t) (n++, (total += y));
  const grand = total / n;
  let ss = 0;
  for (const t of groups) {
    let residual = 0;
    for (const y of t) residual += y - grand;
    ss += residual ** 2;
  }
  return tInterval(grand, Math.sqrt((g / (g - 1)) * ss) / n, g);
}

/**
 * NeMo Gym's interval: the mean reward of each repeat (rollout index) over the tasks it has, then a
 * t interval over those repeat means (R−1 degrees of freedom, SE = their sample std / √R). Null with
 * fewer than two repeats.
 */
export function acrossRepeatsInterval(repeatMeans: readonly number[]): Interval | null {
  const r = repeatMeans.length;
  if (r < 2) return null;
  return tInterval(mean(repeatMeans)!, sampleStd(repeatMeans)! / Math.sqrt(r), r);
}

// The paired t-test behind `gym eval compare`: differences of per-task values between two runs, their
// mean, a 95% interval and a two-sided p-value from Student's t. Pure numerics, no I/O.
import { studentTCdf, studentTQuantile } from '../metrics/stats';

/** P(|T| ≥ |t|) for Student's t with df degrees of freedom. */
export function tTwoSidedP(t: number, df: number): number {
  return 2 * (1 - studentTCdf(Math.abs(t), df));
}

/** The t with P(|T| ≥ t) = p (so tCritical(0.05, df) is the 97.5% quantile). */
export function tCritical(p: number, df: number): number {
  return studentTQuantile(1 - p / 2, df);
}

export interface PairedTest {
  /** Pairs (tasks present in both runs) the test used. */
  n: number;
  /** Mean of b − a over the pairs. */
  meanDiff: number;
  /** Sample standard deviation of the differences (ddof = 1); null for one pair. */
  sdDiff: number | null;
  /** 95% interval of the mean difference; null when n < 2. */
  ci95: [number, number] | null;
  t: number | null;
  /** Two-sided p-value; null when n < 2. With identical differences (sd 0) it is 1 for a zero mean, else 0. */
  p: number | null;
}

export function pairedTTest(a: readonly number[], b: readonly number[]): PairedTest {
  if (a.length !== b.length) throw new Error(`paired samples differ in length: ${a.length} and ${b.length}`);
  const n = a.length;
  const d = a.map((x, i) => b[i]! - x);
  const meanDiff = n ? d.reduce((s, x) => s + x, 0) / n : 0;
  if (n < 2) return { n, meanDiff, sdDiff: null, ci95: null, t: null, p: null };
  const sdDiff = Math.sqrt(d.reduce((s, x) => s + (x - meanDiff) ** 2, 0) / (n - 1));
  if (sdDiff === 0) return { n, meanDiff, sdDiff, ci95: [meanDiff, meanDiff], t: null, p: meanDiff === 0 ? 1 : 0 };
  const se = sdDiff / Math.sqrt(n);
  const t = meanDiff / se;
  const half = tCritical(0.05, n - 1) * se;
  return { n, meanDiff, sdDiff, ci95: [meanDiff - half, meanDiff + half], t, p: tTwoSidedP(t, n - 1) };
}

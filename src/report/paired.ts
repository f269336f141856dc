// The paired t-test behind `gym eval compare`: differences of per-task values between two runs, their
// mean, a 95% interval and a two-sided p-value from Student's t. Pure numerics, no I/O.

/** ln Γ(x) for x > 0: Stirling's series (error below 1e-13 from x = 10), reached by Γ(x + 1) = xΓ(x). */
function logGamma(x: number): number {
  let shift = 0;
  for (; x < 10; x++) shift += Math.log(x);
  const z = 1 / (x * x);
  const series = (1 / 12 - z * (1 / 360 - z * (1 / 1260 - z * (1 / 1680 - z / 1188)))) / x;
  return (x - 0.5) * Math.log(x) - x + 0.5 * Math.log(2 * Math.PI) + series - shift;
}

/** The continued fraction of the regularized incomplete beta function (modified Lentz). */
function betaFraction(a: number, b: number, x: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-15) break;
  }
  return h;
}

/** The regularized incomplete beta function I_x(a, b). */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  return x < (a + 1) / (a + b + 2) ? (front * betaFraction(a, b, x)) / a : 1 - (front * betaFraction(b, a, 1 - x)) / b;
}

/** P(|T| ≥ |t|) for Student's t with df degrees of freedom. */
export function tTwoSidedP(t: number, df: number): number {
  return incompleteBeta(df / (df + t * t), df / 2, 0.5);
}

/** The t with P(|T| ≥ t) = p (so tQuantile(0.05, df) is the 97.5% quantile), by bisection on the p-value. */
export function tCritical(p: number, df: number): number {
  let lo = 0;
  let hi = 1;
  while (tTwoSidedP(hi, df) > p) hi *= 2;
  for (let i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
    const mid = (lo + hi) / 2;
    if (tTwoSidedP(mid, df) > p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
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

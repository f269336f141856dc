// Descriptive statistics and the Student t quantile the intervals need, as pure functions over
// plain number arrays. Spread is the sample (ddof = 1) kind throughout, as NeMo Gym reports it.

export function mean(xs: readonly number[]): number | null {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
}

/** Sample variance (ddof = 1); 0 for a single value, null for none. */
export function sampleVariance(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  if (xs.length === 1) return 0;
  const m = mean(xs)!;
  return xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1);
}

/** Sample standard deviation (ddof = 1); 0 for a single value. */
export function sampleStd(xs: readonly number[]): number | null {
  const v = sampleVariance(xs);
  return v === null ? null : Math.sqrt(v);
}

/**
 * The sample standard deviation of each prefix xs[0..k] (index k), by Welford's update: one pass where a
 * two-pass std per prefix is quadratic (20,000 repeats' std-across-runs at every k). Equal to sampleStd of
 * the prefix within rounding.
 */
export function prefixSampleStds(xs: readonly number[]): number[] {
  const out: number[] = [];
  let m = 0;
  let squares = 0;
  xs.forEach((x, i) => {
    const before = m;
    m += (x - before) / (i + 1);
    squares += (x - before) * (x - m);
    out.push(i ? Math.sqrt(squares / i) : 0);
  });
  return out;
}

/**
 * The q-quantile (0..1) of values sorted ascending, interpolating linearly between closest ranks
 * (numpy's and pandas' default, which NeMo Gym's latency percentiles use).
 */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) throw new RangeError('quantile of no values');
  const pos = (n - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.min(n - 1, lo + 1);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

export interface Summary {
  count: number;
  mean: number;
  std: number;
  min: number;
  max: number;
  median: number;
  p50: number;
  p90: number;
  p99: number;
}

/** The distribution of one diagnostic over a group of rollouts; null when the group is empty. */
export function summarize(values: readonly number[] | Float64Array): Summary | null {
  if (values.length === 0) return null;
  const sorted = Float64Array.from(values).sort();
  let sum = 0;
  for (const x of sorted) sum += x;
  const m = sum / sorted.length;
  let ss = 0;
  for (const x of sorted) ss += (x - m) ** 2;
  const median = quantileSorted(sorted, 0.5);
  return {
    count: sorted.length,
    mean: m,
    std: sorted.length > 1 ? Math.sqrt(ss / (sorted.length - 1)) : 0,
    min: sorted[0]!,
    max: sorted[sorted.length - 1]!,
    median,
    p50: median,
    p90: quantileSorted(sorted, 0.9),
    p99: quantileSorted(sorted, 0.99),
  };
}

/** ln Γ(x) for x > 0 (Lanczos, g = 7, nine coefficients: ~15 significant digits). */
function lnGamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x);
  x -= 1;
  let a = c[0]!;
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += c[i]! / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

/** The continued fraction of the regularized incomplete beta function, evaluated by Lentz's method. */
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
    const step = d * c;
    h *= step;
    if (Math.abs(step - 1) < 1e-15) break;
  }
  return h;
}

/** I_x(a, b), the regularized incomplete beta function. */
function incompleteBeta(a: number, b: number, x: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(lnGamma(a + b) - lnGamma(a) - lnGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  // The fraction converges fast only on one side of the mean; use the symmetry I_x(a,b) = 1 − I_{1−x}(b,a).
  return x < (a + 1) / (a + b + 2) ? (front * betaFraction(a, b, x)) / a : 1 - (front * betaFraction(b, a, 1 - x)) / b;
}

/** P(T ≤ t) for Student's t with `df` degrees of freedom. */
export function studentTCdf(t: number, df: number): number {
  const tail = 0.5 * incompleteBeta(df / 2, 0.5, df / (df + t * t));
  return t >= 0 ? 1 - tail : tail;
}

/** The p-quantile of Student's t with `df` ≥ 1 degrees of freedom, by bisection on the CDF. */
export function studentTQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1) || !(df >= 1)) throw new RangeError(`t quantile needs 0 < p < 1 and df ≥ 1 (got p=${p}, df=${df})`);
  if (p === 0.5) return 0;
  if (p < 0.5) return -studentTQuantile(1 - p, df);
  let lo = 0;
  let hi = 1;
  while (studentTCdf(hi, df) < p) hi *= 2;
  for (let i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
    const mid = (lo + hi) / 2;
    if (studentTCdf(mid, df) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

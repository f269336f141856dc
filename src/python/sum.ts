// Python's sum() over floats. Since CPython 3.12 it adds with Neumaier compensation, so its result can
// differ in the last bit from adding left to right; recorded rewards were computed that way.

/** `sum(values)` for floats as CPython ≥ 3.12 computes it. */
export function pySum(values: readonly number[]): number {
  let total = 0;
  let compensation = 0;
  for (const x of values) {
    const t = total + x;
    if (Math.abs(total) >= Math.abs(x)) compensation += total - t + x;
    else compensation += x - t + total;
    total = t;
  }
  return compensation !== 0 && Number.isFinite(compensation) ? total + compensation : total;
}

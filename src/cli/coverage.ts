// Whether a finished run covers enough of its rollouts to count as a success: `--min-coverage`,
// one line saying by how much it falls short, and the INCOMPLETE error that sets the exit status.
import { ERROR_CODES, GymError } from '../errors';
import type { RunMetrics } from '../metrics/aggregate';
import { numberFlag } from './args';

export const MIN_COVERAGE_USAGE = `  --min-coverage P     exit with status ${ERROR_CODES.INCOMPLETE} when fewer than this share of rollouts got a reward (0..1, default 1: every one)`;

export function minCoverageFlag(values: Record<string, unknown>): number {
  return numberFlag(values, 'min-coverage', { min: 0, max: 1, fallback: 1 })!;
}

const percent = (x: number) => `${(x * 100).toFixed(1).replace(/\.0$/, '')}%`;

/** The line saying why a run's coverage is too low, or undefined when it is enough. */
export function coverageShortfall(m: RunMetrics, minCoverage: number): string | undefined {
  if (m.coverage >= minCoverage) return undefined;
  const missing = Math.max(0, m.rollouts_expected - m.rollouts_recorded - m.rollouts_failed);
  const why = [
    m.rollouts_failed ? `${m.rollouts_failed} rollout${m.rollouts_failed === 1 ? '' : 's'} failed (see failures.jsonl)` : '',
    missing ? `${missing} rollout${missing === 1 ? '' : 's'} missing from both files` : '',
  ].filter(Boolean);
  return `coverage ${(m.coverage * 100).toFixed(1)}% is below --min-coverage ${percent(minCoverage)}: ${why.join(', ')}`;
}

/** Throws INCOMPLETE when the run's coverage is below the threshold; the metrics are printed already. */
export function checkCoverage(m: RunMetrics, minCoverage: number): void {
  const shortfall = coverageShortfall(m, minCoverage);
  if (shortfall) throw new GymError('INCOMPLETE', shortfall);
}

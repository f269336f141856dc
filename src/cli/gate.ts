// The acceptance gate on the command line: its two flags (for `gym eval gate` and `gym eval run`), and
// the check that recomputes a run's health and ends the command with INCOMPLETE when it falls short.
import { ERROR_CODES, GymError } from '../errors';
import { evaluateGate, gateReport, type GateThresholds } from '../health/gate';
import { formatHealth, runHealthChecks } from '../health/run-health';
import { eachFileLine } from '../store/result-lines';
import { RunStore } from '../store/run-store';
import { numberFlag } from './args';

export const GATE_USAGE = `  --max-failed-fraction F     exit with status ${ERROR_CODES.INCOMPLETE} when more than this share of rollouts failed or was never recorded (0..1)
  --max-unhealthy-fraction H  exit with status ${ERROR_CODES.INCOMPLETE} when more than this share of rollouts is unhealthy (0..1; see docs/health.md)`;

export const GATE_FLAGS = {
  'max-failed-fraction': { type: 'string' },
  'max-unhealthy-fraction': { type: 'string' },
} as const;

/** The thresholds given; an absent flag sets no limit on its fraction. */
export function gateFlags(values: Record<string, unknown>): GateThresholds {
  return {
    maxFailedFraction: numberFlag(values, 'max-failed-fraction', { min: 0, max: 1 }),
    maxUnhealthyFraction: numberFlag(values, 'max-unhealthy-fraction', { min: 0, max: 1 }),
  };
}

export const hasGate = (t: GateThresholds) => t.maxFailedFraction !== undefined || t.maxUnhealthyFraction !== undefined;

/** The last word when the sidecar holds rollouts: how to play them again. */
async function retryHint(runDir: string): Promise<string | undefined> {
  let n = 0;
  await eachFileLine(new RunStore(runDir).failuresPath, () => void n++);
  return n ? `${n} rollout${n === 1 ? '' : 's'} in failures.jsonl: play them again with \`gym eval retry-failures ${runDir}\`` : undefined;
}

/** Recomputes the run's health from its files, prints the verdict counts, and throws INCOMPLETE when a threshold is missed. */
export async function checkGate(runDir: string, thresholds: GateThresholds, say: (line: string) => void): Promise<void> {
  const health = await runHealthChecks(runDir);
  say(formatHealth(health));
  const result = evaluateGate(health.summary, health.verdicts, thresholds);
  const hint = await retryHint(runDir);
  if (result.passed) {
    say('acceptance gate: passed');
    if (hint) say(hint);
    return;
  }
  const [first, ...rest] = gateReport(result, runDir);
  throw new GymError('INCOMPLETE', `acceptance gate failed: ${first}`, hint ? [...rest, hint] : rest);
}

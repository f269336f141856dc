// The acceptance gate: is a run fit to publish or train on? Its failed and unhealthy fractions against
// the user's thresholds, and which rollouts would have to be played again. Pure.
import type { QualitySummary, RolloutVerdict } from './types';

export interface GateThresholds {
  maxFailedFraction?: number;
  maxUnhealthyFraction?: number;
}

export interface GateResult {
  passed: boolean;
  /** One line per threshold the run does not meet. */
  failures: string[];
  /** Rollouts to play again, by why. */
  retry: { failed: string[]; missing: string[]; unhealthy: string[] };
}

const fmt = (x: number) => x.toFixed(4).replace(/0+$/, '').replace(/\.$/, '');

export function evaluateGate(summary: QualitySummary, verdicts: readonly RolloutVerdict[], t: GateThresholds): GateResult {
  const run = summary.run;
  const failures: string[] = [];
  const failedCount = run.artifacts.sidecar + run.artifacts.missing;
  const of = run.expected ?? run.artifacts.records + failedCount;
  if (t.maxFailedFraction !== undefined && run.fractions.failed > t.maxFailedFraction) {
    failures.push(`failed fraction ${fmt(run.fractions.failed)} (${failedCount} of ${of} rollouts in failures.jsonl or never recorded) is above --max-failed-fraction ${fmt(t.maxFailedFraction)}`);
  }
  if (t.maxUnhealthyFraction !== undefined && run.fractions.unhealthy > t.maxUnhealthyFraction) {
    failures.push(`unhealthy fraction ${fmt(run.fractions.unhealthy)} (${run.verdicts.unhealthy} of ${run.rows} rollouts) is above --max-unhealthy-fraction ${fmt(t.maxUnhealthyFraction)}`);
  }
  const retry: GateResult['retry'] = { failed: [], missing: [], unhealthy: [] };
  for (const v of verdicts) {
    if (v.source === 'failures') retry.failed.push(v.rolloutId);
    else if (v.source === 'missing') retry.missing.push(v.rolloutId);
    else if (v.verdict === 'unhealthy') retry.unhealthy.push(v.rolloutId);
  }
  return { passed: failures.length === 0, failures, retry };
}

const SHOWN = 20;
const list = (ids: string[]) => ids.slice(0, SHOWN).join(', ') + (ids.length > SHOWN ? `, … (${ids.length - SHOWN} more)` : '');

/** What the user reads when the gate fails: the thresholds missed, then what to play again and how. */
export function gateReport(r: GateResult, runDir: string): string[] {
  const lines = [...r.failures];
  const { failed, missing, unhealthy } = r.retry;
  if (missing.length) lines.push(`never recorded (${missing.length}): ${list(missing)} — \`gym eval resume ${runDir}\` continues the run and plays its sidecar rollouts again`);
  if (failed.length) lines.push(`in failures.jsonl (${failed.length}): ${list(failed)}`);
  if (unhealthy.length) lines.push(`recorded but unhealthy (${unhealthy.length}): ${list(unhealthy)}`);
  if (failed.length || unhealthy.length) {
    lines.push(`a finished run cannot replay these in place yet (no retry command exists); every id and its findings are in ${runDir}/rollout_verdicts.jsonl`);
  }
  return lines;
}

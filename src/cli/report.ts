// How a finished run's metrics read on the terminal.
import type { RunMetrics } from '../metrics/aggregate';

const fmt = (x: number | null | undefined, digits = 4) => (x === null || x === undefined ? 'n/a' : x.toFixed(digits));

export function formatMetrics(m: RunMetrics, runDir: string): string {
  const lines = [
    `rollouts: ${m.rollouts_recorded}/${m.rollouts_expected} recorded, ${m.rollouts_failed} failed (coverage ${(m.coverage * 100).toFixed(1)}%) over ${m.tasks} tasks`,
    `mean reward: ${fmt(m.mean_reward)}  std: ${fmt(m.std_reward)}  95% CI: ${m.ci95_reward ? `[${fmt(m.ci95_reward[0])}, ${fmt(m.ci95_reward[1])}]` : 'n/a'}`,
  ];
  const pass = Object.entries(m.pass_at_k);
  if (pass.length) lines.push(`pass@k: ${pass.map(([k, v]) => `${k}=${fmt(v)}`).join('  ')}`);
  const comps = Object.entries(m.reward_components);
  if (comps.length) lines.push(`reward components: ${comps.map(([k, v]) => `${k}=${fmt(v)}`).join('  ')}`);
  const failures = Object.entries(m.failure_classes);
  if (failures.length) lines.push(`failures: ${failures.map(([k, v]) => `${k}=${v}`).join('  ')} (see failures.jsonl)`);
  lines.push(`results: ${runDir}/rollouts.jsonl, ${runDir}/metrics.json`);
  return lines.join('\n');
}

// How a finished run's metrics read on the terminal: a few lines, the rest is in metrics.json.
import type { RunMetrics } from '../metrics/aggregate';

const fmt = (x: number | null | undefined, digits = 4) => (x === null || x === undefined ? 'n/a' : x.toFixed(digits));
const interval = (ci: [number, number]) => `[${fmt(ci[0])}, ${fmt(ci[1])}]`;

/** The widest k that has a value: pass@1 and it are what the summary shows (metrics.json has every k). */
function largestK(values: Record<string, number> | undefined, prefix: string): number {
  return Math.max(0, ...Object.keys(values ?? {}).map((k) => Number(k.slice(prefix.length))));
}

function intervalLine(m: RunMetrics): string {
  // metrics.json written before the clustered interval existed has only the naive one.
  if (m.ci95_reward_clustered) return `95% CI: ${interval(m.ci95_reward_clustered)} (tasks as clusters)`;
  if (m.ci95_reward) return `95% CI: ${interval(m.ci95_reward)} (rollouts as independent)`;
  return '95% CI: n/a';
}

function passLine(m: RunMetrics): string | undefined {
  const k = largestK(m.pass_at_k, 'pass@');
  if (!k) return undefined;
  const shown = [...new Set([1, k])].filter((j) => m.pass_at_k[`pass@${j}`] !== undefined).map((j) => `pass@${j}=${fmt(m.pass_at_k[`pass@${j}`])}`);
  const mk = largestK(m.majority_at_k, 'majority@');
  if (mk) shown.push(`majority@${mk}=${fmt(m.majority_at_k[`majority@${mk}`])}`);
  const short = m.pass_at_k_short_tasks?.[`pass@${k}`];
  const note = short ? ` (${short.count} task${short.count === 1 ? '' : 's'} with fewer than ${k} samples left out of pass@${k})` : '';
  return `${shown.join('  ')}${note}`;
}

function diagnosticsLine(m: RunMetrics): string | undefined {
  const group = m.diagnostics?.length === 1 ? m.diagnostics[0] : undefined;
  const total = group?.stats.latency_ms.total;
  const model = group?.stats.latency_ms.model;
  if (!group || !total || !model) return undefined;
  const ms = (x: number) => `${Math.round(x)}`;
  return `latency p50/p90: total ${ms(total.p50)}/${ms(total.p90)} ms, model ${ms(model.p50)}/${ms(model.p90)} ms; mean tokens ${fmt(group.stats.input_tokens?.mean, 0)} in, ${fmt(group.stats.output_tokens?.mean, 0)} out`;
}

export function formatMetrics(m: RunMetrics, runDir: string): string {
  const lines = [
    `rollouts: ${m.rollouts_recorded}/${m.rollouts_expected} recorded, ${m.rollouts_failed} failed (coverage ${(m.coverage * 100).toFixed(1)}%) over ${m.tasks} tasks`,
    `mean reward: ${fmt(m.mean_reward)}  std: ${fmt(m.std_reward)}  ${intervalLine(m)}`,
  ];
  const pass = passLine(m);
  if (pass) lines.push(pass);
  const comps = Object.entries(m.reward_components);
  if (comps.length) lines.push(`reward components: ${comps.map(([k, v]) => `${k}=${fmt(v)}`).join('  ')}`);
  const diagnostics = diagnosticsLine(m);
  if (diagnostics) lines.push(diagnostics);
  const failures = Object.entries(m.failure_classes);
  if (failures.length) lines.push(`failures: ${failures.map(([k, v]) => `${k}=${v}`).join('  ')} (see failures.jsonl)`);
  lines.push(`results: ${runDir}/rollouts.jsonl, ${runDir}/metrics.json`);
  return lines.join('\n');
}

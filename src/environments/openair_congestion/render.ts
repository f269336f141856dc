// The policy's view of an observation: OpenAir's fixed natural-language telemetry summary, with Python's
// number formatting (round-half-even fixed point, percentages of value × 100, float repr for the reward).
import { jsonLoads } from '../../python/json';
import { pyFloatRepr } from '../../python/number';
import { reprJson } from './guardrail';
import type { Observation } from './observation';

/** format(x, f'.{digits}f'): the exact binary value rounded, an exact tie to even (toFixed breaks it upwards). */
export function pyFixed(x: number, digits: number): string {
  const text = x.toFixed(digits);
  // A tie has at most digits + 1 decimals, so 30 more show it exactly.
  const exact = Math.abs(x).toFixed(digits + 30);
  const kept = exact.slice(0, exact.length - 30).replace(/\.$/, '');
  const tie = /^50*$/.test(exact.slice(exact.length - 30));
  return tie && Number(kept.at(-1)) % 2 === 0 ? (x < 0 ? '-' : '') + kept : text;
}

const percent = (x: number) => `${pyFixed(x * 100, 0)}%`;

export function renderObservation(obs: Observation): string {
  const lines = [
    `5G RAN telemetry @ t=${pyFixed(obs.t_s, 1)}s (step ${obs.agent_aux.step_idx}, tier replay):`,
    'KPI source: replay. Telemetry is synthetic and should be treated as benchmark data, not measured OAI/FlexRIC KPM.',
  ];
  for (const c of obs.cells) {
    lines.push(
      `- Cell ${c.cell_id}: DL PRB util p50=${percent(c.prb_util_dl_p50)}, p99=${percent(c.prb_util_dl_p99)}; UL PRB util p50=${percent(c.prb_util_ul_p50)}; ` +
        `sched latency p99 ${pyFixed(c.sched_latency_ms_p99, 0)}ms; Jain fairness ${pyFixed(c.fairness_jain, 2)}; ` +
        `PRACH collision rate ${percent(c.prach_collision_rate)}; ${c.rrc_connected_ues} UEs RRC-connected; ` +
        `${c.sla_violations_last_window} SLA violation(s) in last 5s.`,
    );
    for (const ue of c.ues) {
      lines.push(
        `    UE ${ue.ue_id} (5QI ${ue.qos_5qi}): offered ${pyFixed(ue.offered_mbps, 1)} Mbps, delivered ${pyFixed(ue.delivered_mbps, 1)} Mbps, ` +
          `SINR ${pyFixed(ue.sinr_db, 1)} dB, BLER ${percent(ue.bler)}, mean MCS ${pyFixed(ue.mcs_mean, 0)}, buffer ${pyFixed(ue.buffer_occupancy_kb, 0)} kB, ` +
          `PDB violations ${ue.pdb_violations} (${ue.pdb_violations > 0 ? 'SLA-VIOLATION' : 'ok'}).`,
      );
    }
  }
  const aux = obs.agent_aux;
  if (aux.last_action) {
    const args = aux.last_action.arguments.trim() ? reprJson(jsonLoads(aux.last_action.arguments)) : '{}';
    const rejected = aux.last_rejection ? `, REJECTED (${aux.last_rejection})` : '';
    lines.push(`Last action: ${aux.last_action.name}(${args}); last reward: ${aux.last_reward === null ? 'None' : pyFloatRepr(aux.last_reward)}${rejected}.`);
  }
  lines.push('Choose one tool call (or noop) to address congestion now. Output only the tool call.');
  return lines.join('\n');
}

// OpenAir's KPI observation (cells, their UEs, the agent's last-step echo) and the clamp every published
// observation goes through: bounded fields, per-cell delivered throughput capped at the cell's capacity.
import { pySum } from '../../python/sum';
import { roundHalfEven } from '../../util/round';

export interface Ue {
  ue_id: number;
  offered_mbps: number;
  delivered_mbps: number;
  bler: number;
  mcs_mean: number;
  sinr_db: number;
  buffer_occupancy_kb: number;
  pdb_violations: number;
  qos_5qi: number;
}

export interface Cell {
  cell_id: number;
  prb_util_dl_p50: number;
  prb_util_dl_p99: number;
  prb_util_ul_p50: number;
  sched_latency_ms_p99: number;
  rrc_connected_ues: number;
  prach_collision_rate: number;
  fairness_jain: number;
  sla_violations_last_window: number;
  ues: Ue[];
}

/** What the last step did, as the next observation echoes it. `arguments` is the call's JSON text. */
export interface AgentAux {
  last_action: { name: string; arguments: string } | null;
  last_reward: number | null;
  last_rejection: string | null;
  step_idx: number;
}

export interface Observation {
  t_s: number;
  cells: Cell[];
  n_ues_total: number;
  agent_aux: AgentAux;
}

export const clip = (value: number, lo: number, hi: number): number => Math.max(lo, Math.min(hi, value));

/** Python's round(): ties to even. */
/** Jain's index of the replay dynamics (1 for no or all-zero traffic), clipped to [0, 1]. */
export function jainFairness(values: number[]): number {
  if (!values.length) return 1;
  const total = pySum(values);
  const squared = pySum(values.map((v) => v * v));
  if (squared <= 1e-12) return 1;
  return clip((total * total) / (values.length * squared), 0, 1);
}

const bufferKb = (offered: number, delivered: number) => Math.max(0, (offered - delivered) * 50);

/** The replay's clamp: bounds every field, recounts SLA violations and scales an over-capacity cell down. */
export function clampObservation(obs: Observation, cellCapacityMbps: number): Observation {
  const capacity = Math.max(1e-6, cellCapacityMbps);
  for (const cell of obs.cells) {
    cell.prb_util_dl_p50 = clip(cell.prb_util_dl_p50, 0, 1);
    cell.prb_util_dl_p99 = Math.max(cell.prb_util_dl_p50, clip(cell.prb_util_dl_p99, 0, 1));
    cell.prb_util_ul_p50 = clip(cell.prb_util_ul_p50, 0, 1);
    cell.sched_latency_ms_p99 = Math.max(0, cell.sched_latency_ms_p99);
    cell.rrc_connected_ues = Math.max(0, Math.min(24, roundHalfEven(cell.rrc_connected_ues)));
    cell.prach_collision_rate = clip(cell.prach_collision_rate, 0, 1);
    cell.fairness_jain = clip(cell.fairness_jain, 0, 1);
    let sla = 0;
    for (const ue of cell.ues) {
      ue.offered_mbps = Math.max(0, ue.offered_mbps);
      ue.delivered_mbps = clip(ue.delivered_mbps, 0, ue.offered_mbps);
      ue.bler = clip(ue.bler, 0, 1);
      ue.mcs_mean = clip(ue.mcs_mean, 0, 27);
      ue.sinr_db = clip(ue.sinr_db, -20, 40);
      ue.buffer_occupancy_kb = Math.max(0, ue.buffer_occupancy_kb);
      ue.pdb_violations = ue.buffer_occupancy_kb > 500 ? 1 : 0;
      sla += ue.pdb_violations;
      ue.qos_5qi = Math.max(1, Math.min(127, roundHalfEven(ue.qos_5qi)));
    }
    const delivered = pySum(cell.ues.map((ue) => ue.delivered_mbps));
    if (delivered > capacity + 1e-12) {
      const scale = capacity / delivered;
      sla = 0;
      for (const ue of cell.ues) {
        ue.delivered_mbps *= scale;
        ue.buffer_occupancy_kb = bufferKb(ue.offered_mbps, ue.delivered_mbps);
        ue.pdb_violations = ue.buffer_occupancy_kb > 500 ? 1 : 0;
        sla += ue.pdb_violations;
      }
      cell.fairness_jain = jainFairness(cell.ues.map((ue) => ue.delivered_mbps));
    }
    cell.sla_violations_last_window = sla;
  }
  return obs;
}

export function copyObservation(obs: Observation): Observation {
  return structuredClone(obs);
}

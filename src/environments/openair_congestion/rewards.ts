// OpenAir's per-step reward (openair_v1): credit for fewer SLA violations, more delivered throughput and
// fairness than the previous step, minus the current congestion levels and a charge for a refused call.
import { pySum } from '../../python/sum';
import type { Observation } from './observation';

const W = { sla: 1.0, tput: 2.0, fair: 5.0, buffer: 0.15, slaLevel: 0.8, prbLevel: 0.4, accessLevel: 0.3, fairLevel: 0.35, action: 0.0, reject: 0.5 };
const PRB_THRESHOLD = 0.85;
const ACCESS_THRESHOLD = 0.05;
const FAIRNESS_TARGET = 0.8;
const BUFFER_CAPACITY_KB = 1024;

const delivered = (obs: Observation) => pySum(obs.cells.flatMap((c) => c.ues.map((ue) => ue.delivered_mbps)));
const meanOverCells = (obs: Observation, f: (c: Observation['cells'][number]) => number, empty: number) => (obs.cells.length ? pySum(obs.cells.map(f)) / obs.cells.length : empty);
const meanJain = (obs: Observation) => meanOverCells(obs, (c) => c.fairness_jain, 1);
const slaCount = (obs: Observation) => obs.cells.reduce((n, c) => n + c.sla_violations_last_window, 0);
const prbPressure = (obs: Observation) => meanOverCells(obs, (c) => Math.max(0, c.prb_util_dl_p99 - PRB_THRESHOLD) / Math.max(1e-6, 1 - PRB_THRESHOLD), 0);
const accessPressure = (obs: Observation) => meanOverCells(obs, (c) => Math.max(0, c.prach_collision_rate - ACCESS_THRESHOLD) / Math.max(1e-6, 0.5 - ACCESS_THRESHOLD), 0);
const fairnessDeficit = (obs: Observation) => meanOverCells(obs, (c) => Math.max(0, FAIRNESS_TARGET - c.fairness_jain) / Math.max(1e-6, FAIRNESS_TARGET), 0);
function bufferPressure(obs: Observation): number {
  const ues = obs.cells.flatMap((c) => c.ues);
  return ues.length ? pySum(ues.map((ue) => Math.max(0, ue.buffer_occupancy_kb / BUFFER_CAPACITY_KB - 0.7))) / ues.length : 0;
}

export interface RewardBreakdown {
  measurements: Record<string, number>;
  terms: Record<string, number>;
  total: number;
}

/** The step's reward from the observation before and after it; a refused call earns no positive delta. */
export function rewardBreakdown(prev: Observation, curr: Observation, actionName: string, rejected: boolean, cellCapacityMbps: number): RewardBreakdown {
  let dSla = slaCount(prev) - slaCount(curr);
  let dTput = delivered(curr) - delivered(prev);
  let dFair = meanJain(curr) - meanJain(prev);
  if (rejected) {
    dSla = Math.min(0, dSla);
    dTput = Math.min(0, dTput);
    dFair = Math.min(0, dFair);
  }
  const capacityTotal = Math.max(1e-6, cellCapacityMbps * Math.max(1, curr.cells.length));
  const nUes = Math.max(
    1,
    curr.cells.reduce((n, c) => n + c.ues.length, 0),
  );
  const actionNorm = actionName === 'noop' ? 0 : 1;
  const terms: Record<string, number> = {
    delta_sla: W.sla * dSla,
    delta_tput: W.tput * (dTput / capacityTotal),
    delta_fair: W.fair * dFair,
    level_sla: -W.slaLevel * (slaCount(curr) / nUes),
    level_prb: -W.prbLevel * prbPressure(curr),
    level_access: -W.accessLevel * accessPressure(curr),
    level_fair: -W.fairLevel * fairnessDeficit(curr),
    level_buffer: -W.buffer * bufferPressure(curr),
    action: rejected ? 0 : -W.action * actionNorm,
    reject: rejected ? -W.reject : 0,
  };
  const total = pySum(Object.values(terms));
  return {
    measurements: {
      delta_sla_violations: dSla,
      delta_delivered_mbps: dTput,
      delta_jain_fairness: dFair,
      sla_violations: slaCount(curr),
      aggregate_delivered_mbps: delivered(curr),
      mean_jain_fairness: meanJain(curr),
      prb_pressure: prbPressure(curr),
      access_pressure: accessPressure(curr),
      fairness_deficit: fairnessDeficit(curr),
      buffer_pressure: bufferPressure(curr),
      action_l1_norm: actionNorm,
      cell_capacity_mbps_total: capacityTotal,
      n_ues: nUes,
    },
    terms: { ...terms, total },
    total,
  };
}

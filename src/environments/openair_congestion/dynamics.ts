// OpenAir replay's action dynamics: accepted calls set persistent absolute setpoints, and every step the
// setpoints are turned into KPI biases over the action-blind next observation (PRB caps solved per cell).
import { pySum } from '../../python/sum';
import { clampObservation, clip, copyObservation, jainFairness, type Cell, type Observation } from './observation';
import { P0_DBM_RANGE, PRB_MAX, TTT_MS_VALUES, type ToolArgs } from './tools';

/** The setpoints in force. Plain JSON, so an episode's state survives persistence. */
export interface ActionState {
  /** PRB caps per (cell, UE) in the order they were first set: the order the cap solver adds them up. */
  prbCaps: { cell: number; ue: number; maxPrb: number }[];
  scheduler: Record<string, string>;
  handover: Record<string, [a3OffsetDb: number, tttMs: number]>;
  ulPower: Record<string, [p0Dbm: number, alpha: number]>;
  mcs: Record<string, [mcsMin: number, mcsMax: number, targetBler: number]>;
  qosWeights: Record<string, Record<string, number>>;
  admission: Record<string, number>;
}

export const emptyActionState = (): ActionState => ({ prbCaps: [], scheduler: {}, handover: {}, ulPower: {}, mcs: {}, qosWeights: {}, admission: {} });

type CellField = 'fairness_jain' | 'sched_latency_ms_p99' | 'prb_util_dl_p99' | 'prb_util_ul_p50';
type UeField = 'delivered_mbps' | 'buffer_occupancy_kb' | 'mcs_mean' | 'bler' | 'sinr_db';

class Biases {
  readonly cell = new Map<string, { cell: number; field: CellField; delta: number }>();
  readonly ue = new Map<string, { cell: number; ue: number; field: UeField; delta: number }>();
  addCell(cell: number, field: CellField, delta: number): void {
    const key = `${cell}/${field}`;
    const entry = this.cell.get(key) ?? { cell, field, delta: 0 };
    entry.delta += delta;
    this.cell.set(key, entry);
  }
  addUe(cell: number, ue: number, field: UeField, delta: number): void {
    const key = `${cell}/${ue}/${field}`;
    const entry = this.ue.get(key) ?? { cell, ue, field, delta: 0 };
    entry.delta += delta;
    this.ue.set(key, entry);
  }
}

const num = (v: unknown, fallback: number): number => (v === undefined ? fallback : Number(v));

/** Records an accepted call's setpoint (a PRB cap at PRB_MAX removes the cap). */
export function recordAction(state: ActionState, name: string, args: ToolArgs): ActionState {
  const next = structuredClone(state);
  const cell = String(num(args.get('cell_id'), 0));
  switch (name) {
    case 'set_prb_cap': {
      const ue = num(args.get('target_id'), 0);
      const maxPrb = num(args.get('max_prb'), PRB_MAX);
      const at = next.prbCaps.findIndex((c) => c.cell === Number(cell) && c.ue === ue);
      if (maxPrb >= PRB_MAX) {
        if (at >= 0) next.prbCaps.splice(at, 1);
      } else if (at >= 0) next.prbCaps[at]!.maxPrb = maxPrb;
      else next.prbCaps.push({ cell: Number(cell), ue, maxPrb });
      break;
    }
    case 'set_scheduler_policy':
      next.scheduler[cell] = String(args.get('policy') ?? 'PF');
      break;
    case 'set_qos_weights': {
      const weights = args.get('weights');
      next.qosWeights[cell] = weights instanceof Map ? Object.fromEntries([...weights].map(([k, v]) => [k, Number(v)])) : {};
      break;
    }
    case 'set_admission_policy':
      next.admission[cell] = num(args.get('accept_threshold_pct'), 80);
      break;
    case 'set_mcs_bounds':
      next.mcs[cell] = [num(args.get('mcs_min'), 0), num(args.get('mcs_max'), 27), num(args.get('target_bler'), 0.1)];
      break;
    case 'set_handover_trigger':
      next.handover[cell] = [num(args.get('a3_offset_db'), 0), num(args.get('ttt_ms'), 160)];
      break;
    case 'set_ul_power_control':
      next.ulPower[cell] = [num(args.get('p0_dbm'), -90), num(args.get('alpha'), 0.8)];
      break;
  }
  return next;
}

const cellOf = (obs: Observation, id: number): Cell | undefined => obs.cells.find((c) => c.cell_id === id);
const mean = (values: number[]) => pySum(values) / Math.max(1, values.length);
const edgePressure = (cell: Cell) => {
  const sinr = mean(cell.ues.map((ue) => clip((5 - ue.sinr_db) / 10, 0, 1)));
  const bler = mean(cell.ues.map((ue) => clip((ue.bler - 0.1) / 0.25, 0, 1)));
  return Math.max(sinr, bler);
};
const argmax = <T>(items: T[], key: (item: T) => number): T => items.reduce((best, item) => (key(item) > key(best) ? item : best));

/** The KPI biases the setpoints imply, judged against the previous observation (never accumulated). */
function biasesOf(state: ActionState, prev: Observation): Biases {
  const b = new Biases();
  for (const [id, policy] of Object.entries(state.scheduler)) {
    const cell = cellOf(prev, Number(id));
    // PF is the baseline the trajectory already represents.
    if (!cell || policy === 'PF') continue;
    const c = Number(id);
    if (policy === 'MaxCI') {
      b.addCell(c, 'fairness_jain', -0.08);
      b.addCell(c, 'sched_latency_ms_p99', -1.0);
      if (cell.ues.length) {
        const strongest = argmax(cell.ues, (ue) => ue.sinr_db);
        for (const ue of cell.ues) {
          const delta = ue.ue_id === strongest.ue_id ? 0.8 : -0.15;
          b.addUe(c, ue.ue_id, 'delivered_mbps', delta);
          b.addUe(c, ue.ue_id, 'buffer_occupancy_kb', -50 * delta);
        }
      }
    } else {
      b.addCell(c, 'fairness_jain', 0.05);
      b.addCell(c, 'sched_latency_ms_p99', 1.5);
      for (const ue of cell.ues) {
        b.addUe(c, ue.ue_id, 'delivered_mbps', -0.15);
        b.addUe(c, ue.ue_id, 'buffer_occupancy_kb', 7.5);
      }
    }
  }
  for (const [id, weights] of Object.entries(state.qosWeights)) {
    const cell = cellOf(prev, Number(id));
    if (!cell) continue;
    const strengths = cell.ues.map((ue) => {
      const strength = (Object.hasOwn(weights, String(ue.qos_5qi)) ? weights[String(ue.qos_5qi)]! : 1) - 1;
      b.addUe(cell.cell_id, ue.ue_id, 'delivered_mbps', strength);
      b.addUe(cell.cell_id, ue.ue_id, 'buffer_occupancy_kb', -500 * strength);
      return strength;
    });
    if (strengths.length) b.addCell(cell.cell_id, 'fairness_jain', 0.03 * (pySum(strengths) / strengths.length));
  }
  for (const [id, [mcsMin, mcsMax, targetBler]] of Object.entries(state.mcs)) {
    const cell = cellOf(prev, Number(id));
    if (!cell) continue;
    for (const ue of cell.ues) {
      // Outer-loop link adaptation: a raise beyond the link's SINR headroom hurts instead of helping.
      const current = ue.mcs_mean;
      const delta = clip(current - 8 * (ue.bler - targetBler), mcsMin, mcsMax) - current;
      const supported = clip(1.2 * (ue.sinr_db + 5) + 2, 0, 27);
      const safeRaise = Math.min(Math.max(0, delta), Math.max(0, supported - current));
      const unsafeRaise = Math.max(0, delta - safeRaise);
      const lower = Math.max(0, -delta);
      b.addUe(cell.cell_id, ue.ue_id, 'mcs_mean', delta);
      b.addUe(cell.cell_id, ue.ue_id, 'bler', 0.004 * safeRaise + 0.02 * unsafeRaise - 0.008 * lower);
      b.addUe(cell.cell_id, ue.ue_id, 'delivered_mbps', 0.08 * safeRaise - 0.2 * unsafeRaise - 0.04 * lower);
    }
  }
  for (const [id, [a3, ttt]] of Object.entries(state.handover)) {
    const cell = cellOf(prev, Number(id));
    const offsetAggression = (24 - clip(a3, -24, 24)) / 48;
    const tttAggression = 1 - TTT_MS_VALUES.indexOf(ttt) / Math.max(1, TTT_MS_VALUES.length - 1);
    const aggressiveness = 2 * ((offsetAggression + tttAggression) / 2 - 0.5);
    if (!cell || !cell.ues.length) continue;
    // Aggressive handover helps at the cell edge and churns a healthy cell.
    const effect = aggressiveness * clip(4 * (edgePressure(cell) - 0.25), -1, 1);
    const worst = argmax(cell.ues, (ue) => ue.buffer_occupancy_kb);
    b.addUe(cell.cell_id, worst.ue_id, 'delivered_mbps', 1.2 * effect);
    b.addUe(cell.cell_id, worst.ue_id, 'buffer_occupancy_kb', -250 * effect);
    b.addCell(cell.cell_id, 'fairness_jain', 0.05 * effect);
    b.addCell(cell.cell_id, 'prb_util_dl_p99', -0.02 * effect);
  }
  for (const [id, [p0, alpha]] of Object.entries(state.ulPower)) {
    const cell = cellOf(prev, Number(id));
    if (!cell) continue;
    const p0Norm = (clip(p0, P0_DBM_RANGE[0], P0_DBM_RANGE[1]) - P0_DBM_RANGE[0]) / (P0_DBM_RANGE[1] - P0_DBM_RANGE[0]);
    const alphaNorm = clip(alpha, 0, 1);
    const interference = edgePressure(cell);
    const signal = 4 * (p0Norm - 0.5) + 2 * (alphaNorm - 0.5) - 9 * interference * p0Norm;
    for (const ue of cell.ues) {
      b.addUe(cell.cell_id, ue.ue_id, 'sinr_db', signal);
      b.addUe(cell.cell_id, ue.ue_id, 'bler', -0.025 * signal);
      b.addUe(cell.cell_id, ue.ue_id, 'delivered_mbps', 0.35 * signal);
      b.addUe(cell.cell_id, ue.ue_id, 'buffer_occupancy_kb', -70 * signal);
    }
    b.addCell(cell.cell_id, 'prb_util_ul_p50', 0.03 * interference * (p0Norm - 0.5));
  }
  return b;
}

/** Shares shed throughput out over the headroom of the uncapped UEs, evenly, lowest UE id first. */
function waterfill(remaining: number, headroom: Map<number, number>): Map<number, number> {
  const boosts = new Map([...headroom.keys()].map((id) => [id, 0]));
  const active = new Map([...headroom].filter(([, v]) => v > 1e-12).map(([id, v]) => [id, Math.max(0, v)]));
  remaining = Math.max(0, remaining);
  while (remaining > 1e-12 && active.size) {
    const share = remaining / active.size;
    let distributed = 0;
    const exhausted: number[] = [];
    for (const id of [...active.keys()].sort((a, b) => a - b)) {
      const amount = Math.min(active.get(id)!, share);
      boosts.set(id, boosts.get(id)! + amount);
      active.set(id, active.get(id)! - amount);
      distributed += amount;
      if (active.get(id)! <= 1e-12) exhausted.push(id);
    }
    if (distributed <= 1e-12) break;
    remaining -= distributed;
    for (const id of exhausted) active.delete(id);
  }
  return boosts;
}

/** All caps of a cell solved together: capped UEs shed, the rest take up what their demand allows. */
function applyPrbCaps(obs: Observation, state: ActionState, capacityMbps: number): void {
  const capacity = Math.max(1e-6, capacityMbps);
  for (const cell of obs.cells) {
    const caps = state.prbCaps.filter((c) => c.cell === cell.cell_id && c.maxPrb < PRB_MAX);
    const ues = new Map(cell.ues.map((ue) => [ue.ue_id, ue]));
    const active = new Map(caps.filter((c) => ues.has(c.ue)).map((c) => [c.ue, c.maxPrb]));
    if (!active.size) continue;
    const base = new Map([...ues].map(([id, ue]) => [id, Math.max(0, ue.delivered_mbps)]));
    const offered = new Map([...ues].map(([id, ue]) => [id, Math.max(0, ue.offered_mbps)]));
    let final = new Map([...ues.keys()].map((id) => [id, Math.min(base.get(id)!, offered.get(id)!)]));
    const shed = new Map<number, number>();
    for (const [id, maxPrb] of active) {
      const before = final.get(id)!;
      const after = before * (maxPrb / PRB_MAX);
      shed.set(id, Math.max(0, before - after));
      final.set(id, after);
    }
    const totalShed = pySum([...shed.values()]);
    const limit = Math.min(pySum([...base.values()]), capacity);
    let current = pySum([...final.values()]);
    if (current > limit + 1e-12) {
      const scale = limit / current;
      final = new Map([...final].map(([id, v]) => [id, v * scale]));
      current = pySum([...final.values()]);
    }
    const headroom = new Map([...ues.keys()].filter((id) => !active.has(id)).map((id) => [id, Math.max(0, offered.get(id)! - final.get(id)!)]));
    const boosts = waterfill(Math.min(totalShed, pySum([...headroom.values()]), Math.max(0, limit - current)), headroom);
    for (const [id, boost] of boosts) final.set(id, final.get(id)! + boost);
    const redistributed = pySum([...boosts.values()]);
    for (const [id, ue] of ues) {
      ue.delivered_mbps = final.get(id)!;
      ue.buffer_occupancy_kb = Math.max(0, (offered.get(id)! - final.get(id)!) * 50);
    }
    cell.fairness_jain = jainFairness([...final.values()]);
    // PRB pressure falls only by the shed throughput nobody else took.
    const relief = Math.max(0, totalShed - redistributed) / capacity;
    cell.prb_util_dl_p50 -= relief;
    cell.prb_util_dl_p99 -= relief;
  }
}

function applyAdmission(obs: Observation, state: ActionState): void {
  for (const cell of obs.cells) {
    const threshold = state.admission[String(cell.cell_id)];
    const ues = [...cell.ues].sort((a, b) => a.ue_id - b.ue_id);
    cell.rrc_connected_ues = ues.length;
    if (threshold === undefined) continue;
    const ratio = clip(threshold / 100, 0, 1);
    const admitted = ues.length && ratio > 0 ? Math.min(ues.length, Math.max(1, Math.trunc(ues.length * ratio))) : 0;
    cell.ues = ues.slice(0, admitted);
    cell.rrc_connected_ues = cell.ues.length;
  }
  obs.n_ues_total = pySum(obs.cells.map((c) => c.ues.length));
}

/** The next observation under the setpoints in force: biases, PRB caps, admission, then the clamp. */
export function applySetpoints(prev: Observation, baseNext: Observation, state: ActionState, capacityMbps: number): Observation {
  const biases = biasesOf(state, prev);
  const obs = copyObservation(baseNext);
  for (const { cell: id, field, delta } of biases.cell.values()) {
    const cell = cellOf(obs, id);
    if (cell) cell[field] += delta;
  }
  for (const { cell: id, ue: ueId, field, delta } of biases.ue.values()) {
    const ue = cellOf(obs, id)?.ues.find((u) => u.ue_id === ueId);
    if (ue) ue[field] += delta;
  }
  applyPrbCaps(obs, state, capacityMbps);
  applyAdmission(obs, state);
  return clampObservation(obs, capacityMbps);
}

// OpenAir's synthetic replay trajectory: the scenario a task's seed, difficulty and regime mix describe, and
// one KPI observation per step drawn from NumPy's default_rng(seed) exactly as NeMo Gym draws them.
import { NumpyGenerator } from '../../python/numpy_random';
import { pySum } from '../../python/sum';
import { clampObservation, clip, type Cell, type Observation, type Ue } from './observation';

export const CELL_CAPACITY_MBPS = 60;
// The replay tier's topology: 2 cells of 2 UEs.
const N_CELLS = 2;
const UES_PER_CELL = 2;

export interface Scenario {
  seed: number;
  difficulty: number;
  regimeMix: Record<string, number>;
  /** Offered load and 5QI per [cell][ue]. */
  offered: number[][];
  qos5qi: number[][];
}

export const DEFAULT_REGIME_MIX: Record<string, number> = { prb_exhaustion: 0.6, bursty: 0.4 };

export function sampleScenario(seed: number, difficulty: number, regimeMix: Record<string, number> | undefined): Scenario {
  const regime = regimeMix && Object.keys(regimeMix).length ? regimeMix : DEFAULT_REGIME_MIX;
  const weight = (name: string) => regime[name] ?? 0;
  const load = 0.55 + 0.7 * clip(difficulty, 0, 1) + 0.15 * weight('prb_exhaustion') + 0.08 * weight('bursty') + 0.03 * weight('qos_competition');
  const perUe = (CELL_CAPACITY_MBPS * load) / UES_PER_CELL;
  const qos = weight('qos_competition');
  const offered: number[][] = [];
  const qos5qi: number[][] = [];
  for (let cell = 0; cell < N_CELLS; cell++) {
    offered.push([]);
    qos5qi.push([]);
    for (let ue = 0; ue < UES_PER_CELL; ue++) {
      // Alternating light and heavy demand keeps each cell's total while making QoS competition visible.
      const skew = qos > 0 ? (ue % 2 === 0 ? 0.6 : 1.4) : 1;
      offered[cell]!.push(perUe * (1 + qos * (skew - 1)));
      qos5qi[cell]!.push(qos > 0 && ue % 2 === 0 ? 1 : 9);
    }
  }
  return { seed, difficulty, regimeMix: regime, offered, qos5qi };
}

function jainOfObservation(values: number[]): number {
  if (!values.length || values.every((v) => v <= 0)) return 1;
  const s = pySum(values);
  return (s * s) / Math.max(1e-9, values.length * pySum(values.map((v) => v * v)));
}

/** Step `t`'s observation: one child generator per step, seeded by the parent's next raw draw. */
function stepObservation(parent: NumpyGenerator, scenario: Scenario, t: number): Observation {
  const rng = new NumpyGenerator(parent.randomRaw());
  const interference = scenario.regimeMix.interference ?? 0;
  const prachWeight = clip(scenario.regimeMix.prach_storm ?? 0, 0, 1);
  const cells: Cell[] = scenario.offered.map((offeredByUe, cellId) => {
    // Accumulated in order, as the replay adds up each cell's demand (not with sum()).
    const loadRatio = offeredByUe.reduce((total, o) => total + o, 0) / CELL_CAPACITY_MBPS;
    const prb = clip(loadRatio + rng.normal(0, 0.04), 0, 1);
    const attenuation = loadRatio > 1 ? 1 / loadRatio : 1;
    const ues: Ue[] = offeredByUe.map((offered, ueId) => {
      let delivered = clip(offered * attenuation + rng.normal(0, 0.5), 0, offered);
      let sinr = 8 + 2 * ueId + rng.normal(0, 1.5);
      let bler = clip(0.05 + 0.1 * prb + rng.normal(0, 0.02), 0, 1);
      if (interference > 0) {
        // Interference as deterministic KPI pressure, heavier on even UEs.
        const strength = interference * (ueId % 2 === 0 ? 1 : 0.5);
        delivered = Math.max(0, delivered * (1 - 0.55 * strength));
        sinr -= 12 * strength;
        bler = clip(bler + 0.22 * strength, 0, 1);
      }
      const buffer = Math.max(0, (offered - delivered) * 50);
      return {
        ue_id: ueId,
        offered_mbps: offered,
        delivered_mbps: delivered,
        bler: clip(bler, 0, 1),
        mcs_mean: clip((Math.max(sinr, -10) + 5) * 1.2, 0, 27),
        sinr_db: clip(sinr, -20, 40),
        buffer_occupancy_kb: buffer,
        pdb_violations: buffer > 500 ? 1 : 0,
        qos_5qi: scenario.qos5qi[cellId]![ueId]!,
      };
    });
    const p50 = clip(prb, 0, 1);
    const p99 = Math.max(p50, Math.min(1, p50 * 1.15 + 0.02));
    let prach = ues.length < 8 ? 0 : Math.min(0.5, 0.01 * (ues.length - 8) ** 2);
    if (prachWeight > 0) {
      const arrivals = Math.trunc(8 + 24 * scenario.difficulty);
      prach = Math.max(prach, prachWeight * Math.min(0.5, 0.01 * Math.max(0, arrivals - 8) ** 2));
    }
    return {
      cell_id: cellId,
      prb_util_dl_p50: p50,
      prb_util_dl_p99: p99,
      prb_util_ul_p50: clip(p50 * 0.4, 0, 1),
      sched_latency_ms_p99: 5 + 20 * p99,
      rrc_connected_ues: ues.length,
      prach_collision_rate: prach,
      fairness_jain: jainOfObservation(ues.map((ue) => ue.delivered_mbps)),
      sla_violations_last_window: ues.filter((ue) => ue.pdb_violations > 0).length,
      ues,
    };
  });
  const obs: Observation = {
    t_s: t,
    cells,
    n_ues_total: pySum(cells.map((c) => c.ues.length)),
    agent_aux: { last_action: null, last_reward: null, last_rejection: null, step_idx: t },
  };
  return clampObservation(obs, CELL_CAPACITY_MBPS);
}

/** The action-blind observations of steps 0..steps-1 (each step's draws do not depend on the length). */
export function buildTrajectory(scenario: Scenario, steps: number): Observation[] {
  const parent = new NumpyGenerator(scenario.seed);
  return Array.from({ length: steps }, (_, t) => stepObservation(parent, scenario, t));
}

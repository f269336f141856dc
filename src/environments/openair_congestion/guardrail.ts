// OpenAir's guardrail: a structurally valid call is still refused when a value is out of bounds, names a
// cell or UE that is not there, would be catastrophic, or repeats an accepted call within two seconds.
import { pyFloatRepr } from '../../python/number';
import type { PyJson } from '../../python/json';
import { pyEq, pyRepr } from '../../python/values';
import { A3_OFFSET_DB_RANGE, ALPHA_VALUES, MCS_MAX, P0_DBM_RANGE, POLICY_VALUES, PRB_MAX, TTT_MS_VALUES, type ToolArgs } from './tools';

const RATE_LIMIT_S = 2.0;

/** An accepted call, kept for the repeat check. `arguments` is the call's JSON text. */
export interface HistoryEntry {
  name: string;
  arguments: string;
  t_s: number;
}

export interface GuardrailContext {
  nCells: number;
  ueIdsByCell: Map<number, Set<number>>;
  history: readonly HistoryEntry[];
  nowS: number;
  parse: (argumentsText: string) => ToolArgs;
}

/** `repr()` of a json.loads value: a JSON number with a point is a float (10.0), without one an int. */
export function reprJson(value: PyJson | undefined): string {
  if (value === undefined || value === null) return 'None';
  if (typeof value === 'number') return pyFloatRepr(value);
  if (value instanceof Map) return `{${[...value].map(([k, v]) => `${pyRepr(k)}: ${reprJson(v)}`).join(', ')}}`;
  if (Array.isArray(value)) return `[${value.map(reprJson).join(', ')}]`;
  return pyRepr(value);
}

const isInt = (v: PyJson | undefined): v is bigint => typeof v === 'bigint';
const isNumber = (v: PyJson | undefined): v is bigint | number => typeof v === 'bigint' || typeof v === 'number';
const tuple = (values: readonly (string | number)[]) => `(${values.map((v) => (typeof v === 'string' ? pyRepr(v) : pyFloatRepr(v))).join(', ')})`;

function valueProblem(name: string, args: ToolArgs, ctx: GuardrailContext, cellId: number): string | null {
  const a = (key: string) => args.get(key);
  switch (name) {
    case 'set_scheduler_policy': {
      const policy = a('policy');
      return POLICY_VALUES.includes(policy as never) ? null : `set_scheduler_policy: policy=${reprJson(policy)} not in ${tuple(POLICY_VALUES)}`;
    }
    case 'set_prb_cap': {
      const target = a('target');
      if (target !== 'ue') return `set_prb_cap: target=${reprJson(target)} not in ('ue',)`;
      const targetId = a('target_id');
      const valid = ctx.ueIdsByCell.get(cellId) ?? new Set<number>();
      if (!isInt(targetId) || !valid.has(Number(targetId))) {
        return `set_prb_cap: target_id=${reprJson(targetId)} not present in cell ${cellId}; valid ids=[${[...valid].sort((x, y) => x - y).join(', ')}]`;
      }
      const maxPrb = a('max_prb');
      if (!isInt(maxPrb) || maxPrb < 0n || maxPrb > BigInt(PRB_MAX)) return `set_prb_cap: max_prb=${reprJson(maxPrb)} out of [0,${PRB_MAX}]`;
      return maxPrb === 0n ? 'set_prb_cap: max_prb=0 starves the ue entirely (catastrophic)' : null;
    }
    case 'set_mcs_bounds': {
      for (const label of ['mcs_min', 'mcs_max']) {
        const v = a(label);
        if (!isInt(v) || v < 0n || v > BigInt(MCS_MAX)) return `set_mcs_bounds: ${label}=${reprJson(v)} out of [0,${MCS_MAX}]`;
      }
      const [min, max] = [a('mcs_min') as bigint, a('mcs_max') as bigint];
      if (min > max) return `set_mcs_bounds: mcs_min (${min}) > mcs_max (${max})`;
      if (max === 0n) return 'set_mcs_bounds: mcs_max=0 zeroes throughput (catastrophic)';
      const bler = a('target_bler');
      return isNumber(bler) && Number(bler) >= 0 && Number(bler) <= 0.5 ? null : `set_mcs_bounds: target_bler=${reprJson(bler)} out of [0,0.5]`;
    }
    case 'set_qos_weights': {
      const weights = a('weights');
      if (!(weights instanceof Map) || !weights.size) return 'set_qos_weights: weights must be a non-empty mapping';
      for (const [k, v] of weights) {
        const key = /^\s*[-+]?\d+(_\d+)*\s*$/.test(k) ? Number(k.replaceAll('_', '')) : NaN;
        if (Number.isNaN(key)) return `set_qos_weights: 5QI key ${pyRepr(k)} not an integer`;
        if (key < 1 || key > 127) return `set_qos_weights: 5QI ${key} out of [1,127]`;
        if (!isNumber(v) || Number(v) < 0 || Number(v) > 10) return `set_qos_weights[${key}]: weight=${reprJson(v)} out of [0,10]`;
      }
      return [...weights.values()].every((v) => Number(v) === 0) ? 'set_qos_weights: all weights zero (catastrophic)' : null;
    }
    case 'set_admission_policy': {
      const accept = a('accept_threshold_pct');
      if (!isNumber(accept) || Number(accept) < 0 || Number(accept) > 100) return `set_admission_policy: accept_threshold_pct=${reprJson(accept)} out of [0,100]`;
      return Number(accept) <= 0 ? 'set_admission_policy: accept_threshold_pct=0 rejects all admissions (catastrophic)' : null;
    }
    case 'set_handover_trigger': {
      const a3 = a('a3_offset_db');
      const ttt = a('ttt_ms');
      if (!isNumber(a3) || Number(a3) < A3_OFFSET_DB_RANGE[0] || Number(a3) > A3_OFFSET_DB_RANGE[1]) return `set_handover_trigger: a3_offset_db=${reprJson(a3)} out of ${tuple(A3_OFFSET_DB_RANGE)}`;
      return isInt(ttt) && TTT_MS_VALUES.includes(Number(ttt)) ? null : `set_handover_trigger: ttt_ms=${reprJson(ttt)} not in 38.331 set`;
    }
    case 'set_ul_power_control': {
      const p0 = a('p0_dbm');
      const alpha = a('alpha');
      if (!isNumber(p0) || Number(p0) < P0_DBM_RANGE[0] || Number(p0) > P0_DBM_RANGE[1]) return `set_ul_power_control: p0_dbm=${reprJson(p0)} out of ${tuple(P0_DBM_RANGE)}`;
      return isNumber(alpha) && ALPHA_VALUES.includes(Number(alpha)) ? null : `set_ul_power_control: alpha=${reprJson(alpha)} not in ${tuple(ALPHA_VALUES)}`;
    }
    default:
      return `unknown tool ${pyRepr(name)} reached guardrail`;
  }
}

/** Why the call is refused, or null when it is accepted. */
export function guardrailRejection(name: string, args: ToolArgs, ctx: GuardrailContext): string | null {
  if (name === 'noop') return null;
  const cellId = args.get('cell_id');
  if (cellId === undefined) return `${name}: missing cell_id`;
  if (!isInt(cellId) || cellId < 0n || cellId >= BigInt(ctx.nCells)) return `${name}: cell_id=${reprJson(cellId)} out of range [0,${ctx.nCells})`;
  const problem = valueProblem(name, args, ctx, Number(cellId));
  if (problem) return problem;
  // The most recent accepted calls first, back to the start of the window.
  for (const entry of [...ctx.history].reverse()) {
    if (entry.t_s < ctx.nowS - RATE_LIMIT_S) break;
    if (entry.name === name && pyEq(ctx.parse(entry.arguments), args)) return `${name}: identical-action repeat within 2s window`;
  }
  return null;
}

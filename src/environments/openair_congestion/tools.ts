// OpenAir's action space (seven actuators and noop): the operating bounds, and the structural check a call's
// arguments pass before the guardrail judges their values (shape and JSON types only, as NeMo Gym splits it).
import { jsonLoads, type PyJson } from '../../python/json';

export const MAX_CELLS = 4;
export const PRB_MAX = 273;
export const MCS_MAX = 27;
export const POLICY_VALUES = ['PF', 'RR', 'MaxCI'] as const;
export const A3_OFFSET_DB_RANGE = [-24.0, 24.0] as const;
export const TTT_MS_VALUES = [0, 40, 64, 80, 100, 128, 160, 256, 320, 480, 512, 640, 1024, 1280, 2560, 5120] as const as readonly number[];
export const P0_DBM_RANGE = [-126.0, 23.0] as const;
export const ALPHA_VALUES = [0.0, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0] as const as readonly number[];

/** A call's arguments as json.loads reads them: ints are bigint, floats number, objects Maps in key order. */
export type ToolArgs = Map<string, PyJson>;

type JsonType = 'integer' | 'number' | 'string' | 'object';

/** Each tool's properties and their JSON types; every property is required and no other is allowed. */
const SHAPES: Record<string, Record<string, JsonType>> = {
  set_scheduler_policy: { cell_id: 'integer', policy: 'string' },
  set_prb_cap: { cell_id: 'integer', target: 'string', target_id: 'integer', max_prb: 'integer' },
  set_mcs_bounds: { cell_id: 'integer', mcs_min: 'integer', mcs_max: 'integer', target_bler: 'number' },
  set_qos_weights: { cell_id: 'integer', weights: 'object' },
  set_admission_policy: { cell_id: 'integer', accept_threshold_pct: 'number', slice_reservation: 'object' },
  set_handover_trigger: { cell_id: 'integer', a3_offset_db: 'number', ttt_ms: 'integer' },
  set_ul_power_control: { cell_id: 'integer', p0_dbm: 'number', alpha: 'number' },
  noop: {},
};

export const TOOL_NAMES = Object.keys(SHAPES);

/** JSON Schema's types: an integral float is an integer, a boolean is neither. */
function hasType(value: PyJson, type: JsonType): boolean {
  if (type === 'integer') return typeof value === 'bigint' || (typeof value === 'number' && Number.isInteger(value));
  if (type === 'number') return typeof value === 'bigint' || typeof value === 'number';
  if (type === 'string') return typeof value === 'string';
  return value instanceof Map;
}

function shapeProblem(name: string, args: ToolArgs): string | null {
  const shape = SHAPES[name]!;
  for (const key of Object.keys(shape)) if (!args.has(key)) return `'${key}' is a required property`;
  for (const [key, value] of args) {
    const type = shape[key];
    if (!type) return `Additional properties are not allowed ('${key}' was unexpected)`;
    if (!hasType(value, type)) return `${key} is not of type '${type}'`;
  }
  const weights = args.get('weights');
  if (weights instanceof Map) for (const [k, v] of weights) if (!hasType(v, 'number')) return `weights['${k}'] is not of type 'number'`;
  // slice_reservation declares no properties and allows no others: any entry is a shape error.
  const slices = args.get('slice_reservation');
  if (slices instanceof Map && slices.size) return `Additional properties are not allowed in slice_reservation ('${[...slices.keys()][0]}' was unexpected)`;
  return null;
}

function hasDuplicateKeys(text: string): boolean {
  // json.loads with NeMo Gym's object_pairs_hook refuses repeated keys; Maps would keep only the last.
  const seen: Set<string>[] = [];
  let depth = -1;
  const re = /"((?:[^"\\]|\\.)*)"\s*(:)?|[{}]/g;
  for (const m of text.matchAll(re)) {
    if (m[0] === '{') seen[++depth] = new Set();
    else if (m[0] === '}') depth--;
    else if (m[2] && depth >= 0) {
      const key = JSON.parse(`"${m[1]}"`) as string;
      if (seen[depth]!.has(key)) return true;
      seen[depth]!.add(key);
    }
  }
  return false;
}

/** The call's arguments, or why the call is malformed (NeMo Gym then plays a penalised noop). */
export function parseCall(name: string, argumentsText: string): { args: ToolArgs } | { error: string } {
  if (!Object.hasOwn(SHAPES, name)) return { error: `unknown tool '${name}'; valid: (${TOOL_NAMES.map((t) => `'${t}'`).join(', ')})` };
  let parsed: PyJson = new Map();
  if (argumentsText.trim()) {
    try {
      parsed = jsonLoads(argumentsText);
    } catch (e) {
      return { error: (e as Error).message };
    }
    if (hasDuplicateKeys(argumentsText)) return { error: 'duplicate JSON key' };
  }
  if (!(parsed instanceof Map)) return { error: 'arguments must be a JSON object' };
  if (containsNonFinite(parsed)) return { error: 'non-finite JSON constant' };
  const problem = shapeProblem(name, parsed);
  return problem ? { error: problem } : { args: parsed };
}

function containsNonFinite(value: PyJson): boolean {
  if (typeof value === 'number') return !Number.isFinite(value);
  if (Array.isArray(value)) return value.some(containsNonFinite);
  if (value instanceof Map) return [...value.values()].some(containsNonFinite);
  return false;
}

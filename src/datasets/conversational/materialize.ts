// The three materializers between the stages, as NeMo Gym 0.7.0's materialize.py modules behave: each turns
// one stage's rollout rows into the next stage's input rows (and the last into the environment's task rows),
// with NeMo Gym's ids (`<rollout id>[_ng_t<task>_r<rollout>_a<attempt>]_candidate_000000`), lineage under
// `source_artifacts`, first-wins deduplication and refusals of bad rows that name the line and field.
import { GymError } from '../../errors';
import { policySystemPrompt, responsesTool } from '../../environments/conversational_tool_use_simulation/prompts';
import { SimulationTask, ToolSignature } from '../../environments/conversational_tool_use_simulation/schema';
import { PolicyToolRollout, Profile, type GeneratedTool, type PolicyToolInput, type ScenarioInput } from './schema';

type Row = Record<string, unknown>;
const IDENTITY_KEYS = ['id', '_ng_task_index', '_ng_rollout_index', '_ng_attempt_index'] as const;
const present = (v: unknown) => v !== undefined && v !== null;

const bad = (where: string, message: string) => new GymError('BAD_INPUT', `${where}: ${message}`);

/** NeMo Gym's `_derived_rollout_id`: the row id (or the fallback) with the Gym coordinates it has. */
function derivedId(row: Row, fallback: string | undefined): string | undefined {
  const base = row.id ? String(row.id as string) : fallback;
  if (base === undefined) return undefined;
  const parts: string[] = [];
  if (present(row._ng_task_index)) parts.push(`t${String(row._ng_task_index)}`);
  if (present(row._ng_rollout_index)) parts.push(`r${String(row._ng_rollout_index)}`);
  if (present(row._ng_attempt_index)) parts.push(`a${String(row._ng_attempt_index)}`);
  return parts.length ? `${base}_ng_${parts.join('_')}` : base;
}

function lineage(row: Row, where: string, stage: string, extra: Row): Row {
  const existing = row.source_artifacts ?? {};
  if (typeof existing !== 'object' || Array.isArray(existing)) throw bad(where, 'source_artifacts must be a JSON object when present');
  const identity: Row = {};
  for (const key of IDENTITY_KEYS) if (present(row[key])) identity[key] = row[key];
  return { ...structuredClone(existing as Row), [stage]: { ...identity, ...extra } };
}

const pad = (n: number) => String(n).padStart(6, '0');

function uniqueIds(ids: Set<string>, id: string, where: string) {
  if (ids.has(id)) throw bad(where, `duplicate materialized row id: ${id}`);
  ids.add(id);
}

/** NeMo Gym's `format_domain_name`. */
export const formatDomainName = (name: string) => name.replaceAll('(', '').replaceAll(')', '').replaceAll('/', '-').replaceAll(' ', '_').replaceAll('&', '');

/** A rollout row with its 1-based line number, as the materializers read JSONL. */
export interface Numbered {
  line: number;
  row: Row;
}

/** domains → policy/tool inputs: every candidate kept unchanged, deduplicated by casefolded name (first wins). */
export function materializeDomains(rollouts: Numbered[], profile: Profile, source = 'input'): PolicyToolInput[] {
  const names = new Set<string>();
  const ids = new Set<string>();
  const out: PolicyToolInput[] = [];
  for (const { line, row } of rollouts) {
    const where = `${source}:${line}`;
    const result = row.result as Row | undefined;
    if (!result || typeof result !== 'object' || !Array.isArray(result.candidates)) throw bad(where, 'rollout row is missing result.candidates');
    for (const [i, candidate] of (result.candidates as unknown[]).entries()) {
      if (!candidate || typeof candidate !== 'object' || Array.isArray(candidate)) throw bad(where, `result.candidates[${i}] must be a JSON object`);
      const name = (candidate as Row).name;
      if (typeof name !== 'string') throw bad(where, `result.candidates[${i}].name must be a string`);
      const key = casefold(name);
      if (names.has(key)) continue;
      names.add(key);
      const id = `${derivedId(row, `domain_rollout_${pad(line)}`)!}_candidate_${pad(i)}`;
      uniqueIds(ids, id, where);
      out.push({
        id,
        responses_create_params: { input: [] },
        domain: candidate as PolicyToolInput['domain'],
        profile,
        source_artifacts: lineage(row, where, 'domain_generation', { candidate_index: i }),
        agent_ref: { type: 'responses_api_agents', name: 'conversational_tool_use_policy_tool_generation' },
      });
    }
  }
  return out;
}

/** Python's str.casefold for the scripts names are written in (lower-casing, ß → ss). */
export const casefold = (s: string) => s.toLowerCase().replaceAll('ß', 'ss').replaceAll('ς', 'σ');

/** policy/tools → scenario inputs: accepted rollouts only (reward 1.0 and result.accepted), in order. */
export function materializePolicyTools(rollouts: Numbered[], source = 'input'): ScenarioInput[] {
  const ids = new Set<string>();
  const out: ScenarioInput[] = [];
  for (const { line, row } of rollouts) {
    const where = `${source}:${line}`;
    const result = row.result as Row | undefined;
    if (row.reward !== 1 || !result || typeof result !== 'object' || result.accepted !== true) continue;
    const parsed = PolicyToolRollout.shape.result.safeParse(result);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw bad(where, `result.${issue.path.join('.')}: ${issue.message}`);
    }
    const id = derivedId(row, undefined) ?? `policy_tool_rollout_${pad(line)}`;
    uniqueIds(ids, id, where);
    out.push({
      agent_ref: { type: 'responses_api_agents', name: 'conversational_tool_use_scenario_generation' },
      id,
      responses_create_params: { input: [] },
      profile: parsed.data.profile,
      domain_name: formatDomainName(parsed.data.domain.name),
      policy: parsed.data.policy_md,
      tools: result.tools as GeneratedTool[],
      source_artifacts: lineage(row, where, 'policy_tool_generation', { attempt_count: parsed.data.attempt_count }),
    });
  }
  return out;
}

const SCENARIO_FIELDS = ['customer_persona', 'reason_for_contact', 'customer_details', 'unknown_info', 'task_instructions', 'representative_domain', 'outside_policy_scope'] as const;

/** scenarios → the environment's task rows: one per scenario, each checked against SimulationTask. */
export function materializeScenarios(rollouts: Numbered[], source = 'input'): Row[] {
  const ids = new Set<string>();
  const out: Row[] = [];
  for (const { line, row } of rollouts) {
    const where = `${source}:${line}`;
    const result = row.result as Row | undefined;
    if (!result || typeof result !== 'object' || Array.isArray(result)) throw bad(where, 'rollout has no typed result');
    if (!Array.isArray(result.scenarios)) throw bad(where, 'result has no scenarios list');
    for (const key of ['policy', 'domain_name', 'profile'] as const) if (!(key in row)) throw bad(where, `rollout is missing ${key}`);
    const tools = ((row.tools as Row[] | undefined) ?? []).map((t, i) => {
      for (const key of ['name', 'doc', 'params', 'returns']) if (!(key in t)) throw bad(where, `tools[${i}] is missing ${key}`);
      return { name: t.name, doc: t.doc, params: t.params, returns: t.returns };
    });
    const rolloutId = derivedId(row, `scenario_generation_rollout_${pad(line)}`)!;
    const params = {
      input: [{ role: 'system', content: policySystemPrompt(row.policy as string, false) }],
      parallel_tool_calls: false,
      tools: tools.map((t) => responsesTool(ToolSignature.parse(t))),
    };
    for (const [i, raw] of (result.scenarios as Row[]).entries()) {
      if (!('unknown_info' in raw)) continue;
      const missing = SCENARIO_FIELDS.filter((f) => f !== 'unknown_info' && !(f in raw));
      if (missing.length) throw bad(where, `scenario ${i} is missing fields: ${missing.join(', ')}`);
      const id = `${rolloutId}_scenario_${pad(i)}`;
      uniqueIds(ids, id, where);
      const task = {
        id,
        domain_name: row.domain_name,
        profile: row.profile,
        policy: row.policy,
        tools,
        customer_scenario: Object.fromEntries(SCENARIO_FIELDS.map((f) => [f, raw[f]])),
        source_artifacts: lineage(row, where, 'scenario_generation', { scenario_index: i }),
        responses_create_params: params,
        agent_ref: { type: 'responses_api_agents', name: 'conversational_tool_use_agent' },
      };
      const checked = SimulationTask.safeParse(task);
      if (!checked.success) {
        const issue = checked.error.issues[0]!;
        throw bad(where, `scenario ${i}: the task row is not a conversational_tool_use_simulation task: ${issue.path.join('.')}: ${issue.message}`);
      }
      out.push(task);
    }
  }
  return out;
}

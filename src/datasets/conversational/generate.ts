// The three generator agents of NeMo Gym 0.7.0's conversational tool-use pipeline (responses_api_agents/
// conversational_tool_use/{domain,policy_tool,scenario}_generation): each sends NeMo Gym's prompts as chat
// messages to a model (through the Gymflow gateway's /v1/chat/completions), parses the replies as NeMo Gym
// does, and writes one rollout-shaped artifact row per input. The prompt files are NeMo Gym's prepared assets
// (`python -m resources_servers.conversational_tool_use_simulation.prepare`), read from an assets folder.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { z } from 'zod';
import { GymError } from '../../errors';
import { formatDomainName, casefold } from './materialize';
import {
  DomainCandidate,
  DomainRollout,
  GeneratedTool,
  ModelScenarioCollection,
  PolicyToolRollout,
  ScenarioRollout,
  type GeneratedScenario,
  type PolicyToolInput,
  type Profile,
  type ScenarioInput,
  type TraceCall,
} from './schema';

export interface ChatMessage {
  role: 'system' | 'user';
  content: string;
}
/** One chat completion: the assistant text (null when the reply has none). */
export type ChatModel = (messages: ChatMessage[]) => Promise<string | null>;

/** A ChatModel over HTTP: POST {base}/chat/completions with only model and messages, as NeMo Gym's agents send. */
export function httpChatModel(baseUrl: string, model: string, token?: string): ChatModel {
  return async (messages) => {
    const res = await fetch(`${baseUrl.replace(/\/$/, '')}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ model, messages }),
    });
    const text = await res.text();
    if (!res.ok) throw new GymError('MODEL_ERROR', `model ${model}: HTTP ${res.status}: ${text.slice(0, 500)}`);
    const body = JSON.parse(text) as { choices?: { message?: { content?: string | null } }[] };
    if (!body.choices?.length) throw new GymError('MODEL_ERROR', `model ${model}: the completion has no choices`);
    return body.choices[0]!.message?.content ?? null;
  };
}

/** Python's str.format for NeMo Gym's templates: {name} fields, {{ and }} braces; an unknown field is an error. */
export function pyFormat(template: string, values: Record<string, string>, name: string): string {
  return template.replace(/\{\{|\}\}|\{([^{}]*)\}/g, (m, field: string | undefined) => {
    if (m === '{{') return '{';
    if (m === '}}') return '}';
    if (!Object.hasOwn(values, field!)) throw new GymError('BAD_INPUT', `prompt ${name}: unknown field {${field}}`);
    return values[field!]!;
  });
}

/** The prepared prompt folder's file, stripped as NeMo Gym's loaders strip (scenario prompts are not). */
function prompt(dir: string, file: string, strip = true): string {
  const p = path.join(dir, file);
  if (!existsSync(p))
    throw new GymError(
      'NOT_FOUND',
      `conversational tool-use prompt ${p} is missing: run NeMo Gym's \`python -m resources_servers.conversational_tool_use_simulation.prepare\` and pass its package folder as --assets-dir`,
    );
  const text = readFileSync(p, 'utf8');
  return strip ? text.trim() : text;
}

/** A small seeded generator (mulberry32); NeMo Gym's Python `random` sequence is not reproduced. */
export function seededRandom(seed: string): () => number {
  let h = 1779033703 ^ seed.length;
  for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 3432918353) ^ (h >>> 19);
  let a = h >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const shuffled = <T>(items: readonly T[], rand: () => number): T[] => {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
};

/** The row identity NeMo Gym seeds a rollout's random sequence with. */
const seedMaterial = (row: Record<string, unknown>, profile: string, domain: string) =>
  JSON.stringify({ domain_name: domain, id: row.id ?? null, profile, rollout_index: row._ng_rollout_index ?? null, task_index: row._ng_task_index ?? null });

const issueText = (e: z.ZodError) => e.issues.map((i) => `${i.path.join('.') || '(value)'}: ${i.message}`).join('; ');

/** Strips NeMo Gym's ```json fence: strip, remove the ```json prefix and the ``` suffix. */
const unfence = (text: string) => {
  let t = text.trim();
  if (t.startsWith('```json')) t = t.slice(7);
  if (t.endsWith('```')) t = t.slice(0, -3);
  return t;
};

// ---------------------------------------------------------------- domains

export const FOLLOWUP_INSTRUCTION = 'Do not repeat these domains. Try looking for other domains or find specific sub-domains.';

/** Python's repr of a list of strings, as NeMo Gym interpolates the known names. */
export const pyReprList = (names: string[]) =>
  `[${names
    .map((n) => n.replaceAll('\\', '\\\\'))
    .map((n) => (n.includes("'") && !n.includes('"') ? `"${n}"` : `'${n.replaceAll("'", "\\'")}'`))
    .join(', ')}]`;

export interface DomainSettings {
  followup_count: number;
  attempts: number;
}

/**
 * Stage 1 for one input row (its one user message is the domain prompt): the initial call, then
 * `followup_count` calls each naming every domain so far. A reply that is not a JSON list of candidates
 * is asked again (`attempts` tries) and then refused, naming the row, the phase and the field.
 */
export async function generateDomains(row: Record<string, unknown>, where: string, model: ChatModel, s: DomainSettings): Promise<DomainRollout> {
  const input = (row.responses_create_params as { input?: unknown } | undefined)?.input;
  const first = typeof input === 'string' ? input : Array.isArray(input) && input.length === 1 ? (input[0] as { role?: string; content?: unknown }) : undefined;
  const initial = typeof first === 'string' ? first : first?.role === 'user' && typeof first.content === 'string' ? first.content : undefined;
  if (initial === undefined) throw new GymError('BAD_INPUT', `${where}: responses_create_params.input must be one user message with string content (the domain prompt)`);
  const candidates: DomainCandidate[] = [];
  const calls: TraceCall[] = [];
  let text = initial;
  for (let phase = 0; phase <= s.followup_count; phase++) {
    const phaseName = phase === 0 ? 'initial' : `followup ${phase}`;
    const messages: ChatMessage[] = [{ role: 'user', content: text }];
    let batch: DomainCandidate[] | undefined;
    let last = '';
    for (let attempt = 1; attempt <= s.attempts && !batch; attempt++) {
      const reply = await model(messages);
      let error: string | undefined;
      try {
        if (reply === null) throw new Error('the reply has no text');
        const parsed = z.array(DomainCandidate).safeParse(JSON.parse(unfence(reply)));
        if (parsed.success) batch = parsed.data;
        else error = `candidates: ${issueText(parsed.error)}`;
      } catch (e) {
        error = `not JSON: ${(e as Error).message}`;
      }
      calls.push({ phase: phaseName, attempt, messages, reply, ...(error ? { error } : {}) });
      if (error) last = error;
    }
    if (!batch) throw new GymError('MODEL_REJECTED', `${where}: domain generation ${phaseName}: ${s.attempts} replies were not a JSON list of domains; last: ${last}`);
    candidates.push(...batch);
    if (phase < s.followup_count) text = `${initial}\n\nPreviously brainstormed domains: ${pyReprList(candidates.map((c) => c.name))}.\n${FOLLOWUP_INSTRUCTION}`;
  }
  return DomainRollout.parse({ ...row, reward: 1, result: { candidates }, generation_trace: { followup_count: s.followup_count, calls } });
}

// ---------------------------------------------------------------- policy and tools

export interface PolicyToolSettings {
  max_retries: number;
  use_refinement: boolean;
  initial_reference_count: number;
  policy_refine_reference_count: number;
  minimum_tool_count: number;
  cohesion_judge_count: number;
  cohesion_max_failure_fraction: number;
  golden_reference_count: number;
  golden_max_failure_fraction: number;
  seed: number;
}

interface GoldenPair {
  index: number;
  policy: string;
  tools: string;
}

export interface PolicyToolAssets {
  policy: string;
  tools: string;
  policyRefine: string;
  toolsRefine: string;
  cohesion: string;
  golden: string;
  pairs: GoldenPair[];
}

/** NeMo Gym's policy/tool assets: prompts/*.txt and references/golden_policies/{policy-N.md,tools_N.jsonl}. */
export function loadPolicyToolAssets(assetsDir: string, profile: Profile): PolicyToolAssets {
  const dir = path.join(assetsDir, 'policy_tool_generation');
  const prompts = path.join(dir, 'prompts');
  const goldens = path.join(dir, 'references', 'golden_policies');
  const pairs: GoldenPair[] = [];
  for (let i = 1; existsSync(path.join(goldens, `policy-${i}.md`)); i++) {
    pairs.push({ index: i, policy: readFileSync(path.join(goldens, `policy-${i}.md`), 'utf8').trim(), tools: readFileSync(path.join(goldens, `tools_${i}.jsonl`), 'utf8').trim() });
  }
  return {
    policy: prompt(prompts, `${profile}_policy.txt`),
    tools: prompt(prompts, `${profile}_tools.txt`),
    policyRefine: prompt(prompts, `${profile}_policy_refine.txt`),
    toolsRefine: prompt(prompts, 'tools_refine.txt'),
    cohesion: prompt(prompts, 'cohesion_judge.txt'),
    golden: prompt(prompts, 'golden_judge.txt'),
    pairs,
  };
}

const pair = (policy: string, tools: string, i: number) => `\n\n<policy_${i}>\n${policy}\n</policy_${i}>\n<tools_${i}>\n${tools}\n</tools_${i}>`;
const policyRef = (policy: string, i: number) => `\n\n<policy_${i}>\n${policy}\n</policy_${i}>`;

/** NeMo Gym's parse_tag: the last <tag>…</tag>, stripped; null when there is none. */
export function lastTag(text: string, tag: string): string | null {
  const all = [...text.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))];
  return all.length ? all.at(-1)![1]!.trim() : null;
}
/** The <tools> block as JSON lines; null when a line is not JSON. */
export function parseTools(text: string): unknown[] | null {
  const tagged = lastTag(text, 'tools');
  if (tagged === null) return null;
  try {
    return tagged
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as unknown);
  } catch {
    return null;
  }
}
/** The <judgment> value; anything unreadable is false, as in NeMo Gym. */
export function parseJudgment(text: string | null): unknown {
  const tagged = text === null ? null : lastTag(text, 'judgment');
  if (tagged === null) return false;
  try {
    return JSON.parse(tagged.toLowerCase() === 'true' || tagged.toLowerCase() === 'false' ? tagged.toLowerCase() : tagged);
  } catch {
    return false;
  }
}
/** Python equality of a judgment with a label: True == 1, False == 0. */
const pyEq = (v: unknown, n: 0 | 1 | false) => (n === false ? v === false || v === 0 : v === n || v === (n === 1));

export const serializeTools = (tools: unknown[]) => tools.map((t) => pyJson(t)).join('\n');
/** json.dumps's default separators (", " and ": "), ASCII-escaped, for tools the prompts interpolate. */
export function pyJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (Array.isArray(v)) return `[${v.map(pyJson).join(', ')}]`;
  return `{${Object.entries(v)
    .map(([k, x]) => `${pyJson(k)}: ${pyJson(x)}`)
    .join(', ')}}`;
}

const ajv = new Ajv2020({ strict: false, validateSchema: true });
/** The permissive Tau2-compatible check: name and doc strings, params/returns absent or valid JSON Schemas. */
export function toolProblem(tools: unknown[]): string | null {
  for (const [i, t] of tools.entries()) {
    const parsed = GeneratedTool.safeParse(t);
    if (!parsed.success) return `tools[${i}].${issueText(parsed.error)}`;
    for (const key of ['params', 'returns'] as const) {
      const schema = parsed.data[key];
      if (schema && !ajv.validateSchema(schema)) return `tools[${i}].${key}: not a JSON Schema: ${ajv.errorsText(ajv.errors)}`;
    }
  }
  return null;
}

class Rejected extends Error {
  constructor(
    readonly stage: string,
    detail: string,
  ) {
    super(detail);
  }
}

/** The timestamp NeMo Gym's prompts get: a moment of 2025 in a US time zone, weighted as NeMo Gym weights them. */
function sampleTimestamp(rand: () => number): string {
  const zones: [string, number][] = [
    ['America/New_York', 0.47],
    ['America/Chicago', 0.33],
    ['America/Denver', 0.06],
    ['America/Los_Angeles', 0.13],
    ['America/Anchorage', 0.003],
    ['Pacific/Honolulu', 0.004],
    ['America/Phoenix', 0.01],
  ];
  const seconds = Math.floor(rand() * (365 * 86400));
  const total = zones.reduce((a, [, w]) => a + w, 0);
  let pick = rand() * total;
  const zone = zones.find(([, w]) => (pick -= w) < 0)?.[0] ?? zones[0]![0];
  const naive = new Date(Date.UTC(2025, 0, 1) + seconds * 1000);
  const abbr =
    new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'short' }).formatToParts(new Date(naive.getTime() + 12 * 3600 * 1000)).find((p) => p.type === 'timeZoneName')?.value ?? '';
  return `${naive.toISOString().slice(0, 19).replace('T', ' ')} ${abbr}`;
}

/**
 * Stage 2 for one domain: policy v1, tools v1 (with shuffled golden references), the policy and tools
 * refinements, the tool check, the cohesion judges and the golden comparisons; an attempt that fails any of
 * them is rejected and the whole pipeline runs again (`max_retries` more times), then the domain is refused
 * with the last attempt's stage and detail.
 */
export async function generatePolicyTools(
  row: PolicyToolInput,
  where: string,
  policyModel: ChatModel,
  judgeModel: ChatModel,
  assets: PolicyToolAssets,
  s: PolicyToolSettings,
): Promise<PolicyToolRollout> {
  const domain = formatDomainName(row.domain.name);
  const rand = seededRandom(`${s.seed}:${seedMaterial(row, row.profile, row.domain.name)}`);
  const attempts: Record<string, unknown>[] = [];
  const need = (k: number, what: string) => {
    if (k > assets.pairs.length) throw new GymError('BAD_INPUT', `${what} is ${k}, but the assets hold ${assets.pairs.length} golden policy/tool references`);
  };
  need(s.initial_reference_count, 'initial_reference_count');
  need(s.golden_reference_count, 'golden_reference_count');
  if (row.profile === 'general') need(s.policy_refine_reference_count, 'policy_refine_reference_count');
  for (let n = 1; n <= s.max_retries + 1; n++) {
    const calls: TraceCall[] = [];
    const attempt: Record<string, unknown> = { attempt: n, calls };
    attempts.push(attempt);
    /** A model call; one that fails rejects the attempt (NeMo Gym's _call), so the pipeline runs again. */
    const ask = async (m: ChatModel, phase: string, content: string) => {
      try {
        return await m([{ role: 'user', content }]);
      } catch (e) {
        throw new Rejected(phase, (e as Error).message);
      }
    };
    const call = async (m: ChatModel, phase: string, content: string) => {
      const reply = await ask(m, phase, content);
      calls.push({ phase, attempt: n, messages: [{ role: 'user', content }], reply });
      if (reply === null) throw new Rejected(phase, 'model response contains no assistant message content');
      return reply;
    };
    try {
      attempt.timestamp = sampleTimestamp(rand);
      const initialPairs = shuffled(assets.pairs, rand);
      attempt.policy_tool_reference_order = initialPairs.map((p) => p.index);
      const refs = initialPairs
        .slice(0, s.initial_reference_count)
        .map((p, i) => pair(p.policy, p.tools, i))
        .join('');
      let policy = lastTag(await call(policyModel, 'policy_v1', pyFormat(assets.policy, { domain, timestamp: attempt.timestamp as string }, 'policy') + refs), 'policy');
      if (policy === null) throw new Rejected('policy_v1_parse', 'response is missing a case-sensitive <policy> tag');
      const toolsPrompt = pyFormat(assets.tools, { domain, policy }, 'tools') + refs + `\n\n<policy>${policy}</policy>`;
      let tools = parseTools(await call(policyModel, 'tools_v1', toolsPrompt));
      if (tools === null) throw new Rejected('tools_v1_parse', 'response tools could not be parsed as JSONL');
      if (s.use_refinement) {
        const refinePairs = shuffled(assets.pairs, rand);
        attempt.policy_reference_order = refinePairs.map((p) => p.index);
        const values: Record<string, string> = { domain, policy };
        if (row.profile === 'general')
          values.reference_policies = refinePairs
            .slice(0, s.policy_refine_reference_count)
            .map((p, i) => policyRef(p.policy, i))
            .join('');
        policy = lastTag(await call(policyModel, 'policy_refine', pyFormat(assets.policyRefine, values, 'policy_refine')), 'policy');
        if (policy === null) throw new Rejected('policy_refine_parse', 'response is missing a case-sensitive <policy> tag');
        attempt.unused_tools_reference_order = shuffled(assets.pairs, rand).map((p) => p.index);
        tools = parseTools(await call(policyModel, 'tools_refine', pyFormat(assets.toolsRefine, { domain, policy, tools: serializeTools(tools) }, 'tools_refine')));
        if (tools === null) throw new Rejected('tools_refine_parse', 'response tools could not be parsed as JSONL');
      }
      if (tools.length < s.minimum_tool_count) throw new Rejected('tool_count', `generated ${tools.length} tools; minimum_tool_count is ${s.minimum_tool_count}`);
      const problem = toolProblem(tools);
      attempt.tool_validation_passed = problem === null;
      if (problem) throw new Rejected('tool_validation', `tools failed Tau2-compatible permissive validation: ${problem}`);
      if (s.cohesion_judge_count) {
        const p = pyFormat(assets.cohesion, { domain, policy, tools: serializeTools(tools) }, 'cohesion_judge');
        const replies = await Promise.all(Array.from({ length: s.cohesion_judge_count }, () => ask(judgeModel, 'cohesion_judge', p)));
        for (const r of replies) calls.push({ phase: 'cohesion_judge', attempt: n, messages: [{ role: 'user', content: p }], reply: r });
        if (replies.includes(null)) throw new Rejected('generation_error', 'model response contains no assistant message content');
        const failures = replies.filter((r) => pyEq(parseJudgment(r), false)).length;
        attempt.cohesion_failure_fraction = failures / replies.length;
        if (failures / replies.length > s.cohesion_max_failure_fraction) throw new Rejected('cohesion_judge', `policy/tools failed ${failures}/${replies.length} cohesion judgments`);
      }
      if (s.golden_reference_count) {
        const goldens = shuffled(assets.pairs, rand);
        attempt.golden_reference_order = goldens.map((p) => p.index);
        const generated = serializeTools(tools);
        const prompts = goldens.slice(0, s.golden_reference_count).map((g) => assets.golden + pair(g.policy, g.tools, 0) + pair(policy!, generated, 1));
        const targets: [string, 0 | 1][] = [...prompts.map((p) => [p, 1] as [string, 1]), ...prompts.map((p) => [p, 0] as [string, 0])];
        const replies = await Promise.all(targets.map(([p]) => ask(judgeModel, 'golden_judge', p)));
        replies.forEach((r, i) => calls.push({ phase: 'golden_judge', attempt: n, messages: [{ role: 'user', content: targets[i]![0] }], reply: r }));
        if (replies.includes(null)) throw new Rejected('generation_error', 'model response contains no assistant message content');
        const losses = replies.filter((r, i) => pyEq(parseJudgment(r), targets[i]![1])).length;
        attempt.golden_failure_fraction = losses / replies.length;
        if (losses / replies.length > s.golden_max_failure_fraction) throw new Rejected('golden_judge', `generated policy/tools lost ${losses}/${replies.length} golden comparisons`);
      }
      attempt.accepted = true;
      const accepted = tools as GeneratedTool[];
      return PolicyToolRollout.parse({
        ...row,
        reward: 1,
        result: { accepted: true, profile: row.profile, domain: row.domain, attempt_count: n, policy_md: policy, tools: accepted, tools_jsonl: accepted.map((t) => pyJson(t) + '\n').join('') },
        generation_trace: { profile: row.profile, domain_name: domain, max_attempts: s.max_retries + 1, attempts },
      });
    } catch (e) {
      if (!(e instanceof Rejected)) throw e;
      attempt.failure_stage = e.stage;
      attempt.failure_detail = e.message;
    }
  }
  const last = attempts.at(-1)!;
  throw new GymError(
    'MODEL_REJECTED',
    `${where}: domain "${row.domain.name}": policy/tool generation exhausted ${s.max_retries + 1} attempts; last failure at ${String(last.failure_stage)}: ${String(last.failure_detail)}`,
  );
}

// ---------------------------------------------------------------- scenarios

export interface ScenarioSettings {
  request_count: number;
  max_concurrency: number;
  scenarios_per_request: number;
  outside_policy_scope_fraction: number;
  attempts: number;
  seed: number;
}

export interface ScenarioAssets {
  system: string;
  user: string;
  schema: string;
}

export function loadScenarioAssets(assetsDir: string): ScenarioAssets {
  const dir = path.join(assetsDir, 'scenario_generation', 'prompts');
  return { system: prompt(dir, 'scenario_system.txt', false), user: prompt(dir, 'scenario_user.txt', false), schema: prompt(dir, 'customer_scenario_collection_schema.json', false) };
}

/**
 * Stage 3 for one domain: `request_count` calls (at most `max_concurrency` at once), each told whether its
 * scenarios are inside the policy (a seeded draw below `outside_policy_scope_fraction` asks for outside);
 * a reply that is not a scenario collection is asked again (`attempts` tries) and then refused. Scenarios
 * without `unknown_info` are dropped, as in NeMo Gym; the rest are deduplicated case-insensitively on their
 * five content fields, in request order (NeMo Gym's is completion order).
 */
export async function generateScenarios(row: ScenarioInput, where: string, model: ChatModel, assets: ScenarioAssets, s: ScenarioSettings): Promise<ScenarioRollout> {
  const rand = seededRandom(`${s.seed}:${seedMaterial(row, row.profile, row.domain_name)}`);
  const schedule = Array.from({ length: s.request_count }, () => rand() < s.outside_policy_scope_fraction);
  const user = pyFormat(assets.user, { scenario_count: String(s.scenarios_per_request), scenarios_schema: assets.schema }, 'scenario_user');
  const one = async (index: number, outside: boolean) => {
    const messages: ChatMessage[] = [
      { role: 'system', content: pyFormat(assets.system, { domain_policy: row.policy, policy_scope_instruction: outside ? 'does not cover' : 'covers' }, 'scenario_system') },
      { role: 'user', content: user },
    ];
    const tries: TraceCall[] = [];
    for (let attempt = 1; attempt <= s.attempts; attempt++) {
      const reply = await model(messages);
      let error: string;
      try {
        if (reply === null) throw new Error('model returned no text content');
        const parsed = ModelScenarioCollection.safeParse(JSON.parse(unfence(reply)));
        if (parsed.success) {
          tries.push({ phase: `request ${index}`, attempt, messages, reply });
          const raw = (JSON.parse(unfence(reply)) as { scenarios: Record<string, unknown>[] }).scenarios;
          const kept = parsed.data.scenarios.filter((_, i) => 'unknown_info' in raw[i]!);
          const scenarios: GeneratedScenario[] = kept.map((sc) => ({
            customer_persona: (sc.customer_persona ?? sc.persona)!,
            reason_for_contact: (sc.reason_for_contact ?? sc.reason_for_call)!,
            customer_details: sc.customer_details,
            unknown_info: sc.unknown_info ?? null,
            task_instructions: sc.task_instructions,
            representative_domain: row.domain_name,
            outside_policy_scope: outside,
          }));
          return { index, outside, scenarios, parsed: parsed.data.scenarios.length, tries };
        }
        error = `scenarios: ${issueText(parsed.error)}`;
      } catch (e) {
        error = `not JSON: ${(e as Error).message}`;
      }
      tries.push({ phase: `request ${index}`, attempt, messages, reply, error });
    }
    throw new GymError('MODEL_REJECTED', `${where}: domain "${row.domain_name}": scenario request ${index}: ${s.attempts} replies were not a scenario collection; last: ${tries.at(-1)!.error}`);
  };
  const results: Awaited<ReturnType<typeof one>>[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(s.max_concurrency, s.request_count) }, async () => {
      while (next < schedule.length) {
        const i = next++;
        results[i] = await one(i, schedule[i]!);
      }
    }),
  );
  const seen = new Set<string>();
  const accepted: GeneratedScenario[] = [];
  const calls = results.map((r) => {
    let dup = 0;
    for (const sc of r.scenarios) {
      const key = JSON.stringify([sc.customer_persona, sc.reason_for_contact, sc.customer_details, sc.unknown_info, sc.task_instructions].map((v) => (v === null ? null : casefold(v))));
      if (seen.has(key)) dup++;
      else {
        seen.add(key);
        accepted.push(sc);
      }
    }
    return {
      request_index: r.index,
      outside_policy_scope: r.outside,
      parsed_scenario_count: r.parsed,
      accepted_scenario_count: r.scenarios.length - dup,
      duplicate_scenario_count: dup,
      tries: r.tries,
    };
  });
  return ScenarioRollout.parse({ ...row, reward: 1, result: { domain_name: row.domain_name, scenarios: accepted }, generation_trace: { ...s, calls } });
}

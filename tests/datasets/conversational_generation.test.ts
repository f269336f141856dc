// NeMo Gym's conversational tool-use generators end to end through the real HTTP path: each stage of
// `gym dataset generate-conversational` calls a loopback gateway whose openai backend is a scripted fake
// chat-completions upstream; the artifacts validate, the materialized task rows are accepted by the
// environment and play through reset/step/verify, NeMo Gym's own materializers (run in its venv) make the same
// rows from the same artifacts, and model output that stays bad is refused naming the row and field.
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasetGenerateConversational, datasetMaterializeConversational } from '../../src/cli/commands/dataset-conversational';
import { FOLLOWUP_INSTRUCTION, lastTag, parseTools, pyJson, pyReprList, serializeTools, toolProblem } from '../../src/datasets/conversational/generate';
import { formatDomainName } from '../../src/datasets/conversational/materialize';
import { DomainRollout, PolicyToolInput, PolicyToolRollout, ScenarioInput, ScenarioRollout } from '../../src/datasets/conversational/schema';
import { createConversationalToolUseSimulation, SimulationTask } from '../../src/environments/conversational_tool_use_simulation';
import { assistantMessage } from '../../src/environments/example_single_tool_call';
import { NEMO_GYM_VENV_PYTHON } from '../../src/environments/remote/launch';
import type { JudgeCall } from '../../src/environments/types';
import { interopTitle, nemoGymVenv } from '../interop/nemo-gym-venv';

const execFileAsync = promisify(execFile);

const KEY_ENV = 'GYMFLOW_TEST_CONVERSATIONAL_KEY';
const DOMAIN_PROMPT = 'List customer-service domains as a JSON list of {"name": ..., "applications": [...]}.';

const TOOL = {
  name: 'lookup_order',
  doc: 'Look up an order by id.',
  params: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
  returns: { type: 'object', properties: { status: { type: 'string' } }, required: ['status'] },
};
const scenario = (n: number, extra: Record<string, unknown> = {}) => ({
  persona: `Customer ${n}, patient and precise.`,
  reason_for_contact: `Order ${n} is late.`,
  customer_details: `Order id ORD-${n}.`,
  unknown_info: n % 2 ? null : 'The warehouse location.',
  task_instructions: `Ask where order ORD-${n} is; end when told.`,
  ...extra,
});

/** What the fake upstream says to a chat request, by the prompt's marker; `bad` makes a stage's replies unusable. */
const bad = new Set<string>();
let cohesionFalse = 0;
const asked: { marker: string; messages: { role: string; content: string }[] }[] = [];
function answer(messages: { role: string; content: string }[]): string {
  const text = messages.map((m) => m.content).join('\n');
  const marker = /\b(POLICY_V1|TOOLS_V1|POLICY_REFINE|TOOLS_REFINE|COHESION|GOLDEN|SCENARIO_SYSTEM)\b/.exec(text)?.[1] ?? (text.includes('Previously brainstormed domains') ? 'FOLLOWUP' : 'DOMAINS');
  asked.push({ marker, messages });
  if (bad.has(marker)) return marker === 'TOOLS_V1' ? '<tools>\n{"name": "x", "doc": 1}\n</tools>' : 'I cannot comply.';
  switch (marker) {
    case 'DOMAINS':
      return '```json\n' + JSON.stringify([{ name: 'Order & Returns (Online)/Support', applications: [{ function: 'Track an order' }] }, { name: 'Banking' }]) + '\n```';
    case 'FOLLOWUP':
      return JSON.stringify([{ name: 'order & returns (online)/support' }, { name: 'Travel', applications: [] }]);
    case 'POLICY_V1':
      return 'Draft:\n<policy>\nVerify the order id first.\n</policy>';
    case 'TOOLS_V1':
      return `<tools>\n${JSON.stringify({ ...TOOL, doc: 'draft' })}\n</tools>`;
    case 'POLICY_REFINE':
      return '<policy>Verify the order id before any lookup; transfer anything else.</policy>';
    case 'TOOLS_REFINE':
      return `<tools>\n${JSON.stringify(TOOL)}\n\n</tools>`;
    case 'COHESION':
      // While `cohesionFalse` lasts, the judges say the policy and tools do not fit together.
      return cohesionFalse-- > 0 ? 'No.\n<judgment>false</judgment>' : '<judgment>true</judgment>';
    case 'GOLDEN':
      return '<judgment>1</judgment>';
    default:
      return (
        '```json\n' +
        JSON.stringify({
          scenarios: [scenario(1), scenario(2), { ...scenario(1), customer_persona: 'CUSTOMER 1, PATIENT AND PRECISE.', persona: undefined }, (({ unknown_info: _, ...s }) => s)(scenario(3))],
        }) +
        '\n```'
      );
  }
}

let upstream: Server;
let dir: string;
let assets: string;
let spec: string;
const say: string[] = [];
const logger = pino({ level: 'silent' });
const file = (name: string) => path.join(dir, name);
const rows = (name: string) =>
  readFileSync(file(name), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, any>);

beforeAll(async () => {
  upstream = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const request = JSON.parse(body);
      const content = answer(request.messages);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 1,
          model: request.model,
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  process.env[KEY_ENV] = 'sk-test';
  dir = mkdtempSync(path.join(os.tmpdir(), 'gym-ctugen-'));
  spec = file('spec.json');
  writeFileSync(spec, JSON.stringify({ backend: 'openai', model: 'fake-generator', base_url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`, api_key_env: KEY_ENV }));
  // Stand-ins for NeMo Gym's prepared prompt assets: the same files and fields, a marker each.
  assets = file('assets');
  const prompts = path.join(assets, 'policy_tool_generation', 'prompts');
  const goldens = path.join(assets, 'policy_tool_generation', 'references', 'golden_policies');
  const scenarios = path.join(assets, 'scenario_generation', 'prompts');
  for (const d of [prompts, goldens, scenarios]) mkdirSync(d, { recursive: true });
  for (const profile of ['general', 'proactive']) {
    writeFileSync(path.join(prompts, `${profile}_policy.txt`), `POLICY_V1 for {domain} at {timestamp}; braces {{kept}}\n`);
    writeFileSync(path.join(prompts, `${profile}_tools.txt`), 'TOOLS_V1 for {domain}:\n{policy}');
    writeFileSync(path.join(prompts, `${profile}_policy_refine.txt`), profile === 'general' ? 'POLICY_REFINE {domain}\n{policy}\n{reference_policies}' : 'POLICY_REFINE {domain}\n{policy}');
  }
  writeFileSync(path.join(prompts, 'tools_refine.txt'), 'TOOLS_REFINE {domain}\n{policy}\n{tools}');
  writeFileSync(path.join(prompts, 'cohesion_judge.txt'), 'COHESION {domain}\n{policy}\n{tools}');
  writeFileSync(path.join(prompts, 'golden_judge.txt'), 'GOLDEN compare policy_0 and policy_1; say <judgment>0 or 1</judgment>.');
  for (const i of [1, 2]) {
    writeFileSync(path.join(goldens, `policy-${i}.md`), `# Golden policy ${i}\n`);
    writeFileSync(path.join(goldens, `tools_${i}.jsonl`), JSON.stringify({ ...TOOL, name: `golden_${i}` }) + '\n');
  }
  writeFileSync(path.join(scenarios, 'scenario_system.txt'), 'SCENARIO_SYSTEM: the policy {policy_scope_instruction} the request.\n<policy>{domain_policy}</policy>\n');
  writeFileSync(path.join(scenarios, 'scenario_user.txt'), 'Write {scenario_count} scenarios matching {scenarios_schema}\n');
  writeFileSync(path.join(scenarios, 'customer_scenario_collection_schema.json'), '{"type": "object"}');
  writeFileSync(file('domain_inputs.jsonl'), JSON.stringify({ id: 'sampler', responses_create_params: { input: [{ role: 'user', content: DOMAIN_PROMPT }] } }) + '\n');
});
afterAll(async () => {
  delete process.env[KEY_ENV];
  await new Promise((r) => upstream.close(r));
});

const generate = (...argv: string[]) => datasetGenerateConversational(['--model-spec', spec, '--assets-dir', assets, ...argv], logger, (l) => say.push(l));
const materialize = (...argv: string[]) => datasetMaterializeConversational(argv, logger, (l) => say.push(l));
const SMALL = ['--set', 'initial_reference_count=2', '--set', 'policy_refine_reference_count=2'];

describe('gym dataset generate-conversational, stage by stage', () => {
  it('domains: the initial call and one follow-up naming the domains so far; candidates kept unchanged', async () => {
    asked.length = 0;
    await datasetGenerateConversational(['--stage', 'domains', '--input', file('domain_inputs.jsonl'), '--output', file('domain_rollouts.jsonl'), '--model-spec', spec], logger, () => {});
    const [rollout] = rows('domain_rollouts.jsonl');
    DomainRollout.parse(rollout);
    expect(rollout!.result.candidates.map((c: { name: string }) => c.name)).toEqual(['Order & Returns (Online)/Support', 'Banking', 'order & returns (online)/support', 'Travel']);
    expect(asked.map((a) => a.marker)).toEqual(['DOMAINS', 'FOLLOWUP']);
    expect(asked[1]!.messages).toEqual([
      {
        role: 'user',
        content: `${DOMAIN_PROMPT}\n\nPreviously brainstormed domains: ['Order & Returns (Online)/Support', 'Banking'].\nDo not repeat these domains. Try looking for other domains or find specific sub-domains.`,
      },
    ]);
    await materialize('--stage', 'domains', '--profile', 'general', '--input', file('domain_rollouts.jsonl'), '--output', file('policy_tool_inputs.jsonl'));
    const inputs = rows('policy_tool_inputs.jsonl').map((r) => PolicyToolInput.parse(r));
    expect(inputs.map((r) => [r.id, r.domain.name])).toEqual([
      ['sampler_candidate_000000', 'Order & Returns (Online)/Support'],
      ['sampler_candidate_000001', 'Banking'],
      ['sampler_candidate_000003', 'Travel'],
    ]);
    expect(inputs[0]!.source_artifacts).toEqual({ domain_generation: { id: 'sampler', candidate_index: 0 } });
  });

  it('policy-tools: policy, tools, both refinements, the tool check, cohesion and golden judges; one accepted artifact per domain', async () => {
    asked.length = 0;
    await generate('--stage', 'policy-tools', '--input', file('policy_tool_inputs.jsonl'), '--output', file('policy_tool_rollouts.jsonl'), ...SMALL);
    const out = rows('policy_tool_rollouts.jsonl').map((r) => PolicyToolRollout.parse(r));
    expect(out).toHaveLength(3);
    expect(out[0]!.result).toMatchObject({ accepted: true, attempt_count: 1, policy_md: 'Verify the order id before any lookup; transfer anything else.', tools: [TOOL] });
    expect(out[0]!.result.tools_jsonl).toBe(JSON.stringify(TOOL).replaceAll('":', '": ').replaceAll(',"', ', "') + '\n');
    // Per domain: 4 generation calls, 3 cohesion judges, 2 golden references × 2 target labels.
    expect(asked.filter((a) => a.messages[0]!.content.includes('Order__Returns_Online-Support')).map((a) => a.marker)).toEqual([
      'POLICY_V1',
      'TOOLS_V1',
      'POLICY_REFINE',
      'TOOLS_REFINE',
      'COHESION',
      'COHESION',
      'COHESION',
    ]);
    expect(asked.filter((a) => a.marker === 'GOLDEN')).toHaveLength(12);
    const first = asked.find((a) => a.marker === 'POLICY_V1')!.messages[0]!.content;
    expect(first).toMatch(/^POLICY_V1 for Order__Returns_Online-Support at 2025-\d\d-\d\d \d\d:\d\d:\d\d \w+; braces \{kept\}\n\n<policy_0>\n# Golden policy \d\n<\/policy_0>\n<tools_0>\n/);
    await materialize('--stage', 'policy-tools', '--input', file('policy_tool_rollouts.jsonl'), '--output', file('scenario_inputs.jsonl'));
    const inputs = rows('scenario_inputs.jsonl').map((r) => ScenarioInput.parse(r));
    expect(inputs[0]).toMatchObject({ id: 'sampler_candidate_000000', domain_name: 'Order__Returns_Online-Support', profile: 'general', tools: [TOOL] });
    expect(inputs[0]!.source_artifacts).toEqual({ domain_generation: { id: 'sampler', candidate_index: 0 }, policy_tool_generation: { id: 'sampler_candidate_000000', attempt_count: 1 } });
  });

  it('scenarios: scheduled requests, aliases read, no-unknown_info dropped, case-insensitive dedup; task rows the environment plays', async () => {
    asked.length = 0;
    await generate(
      '--stage',
      'scenarios',
      '--input',
      file('scenario_inputs.jsonl'),
      '--output',
      file('scenario_rollouts.jsonl'),
      '--set',
      'request_count=2',
      '--set',
      'scenarios_per_request=4',
      '--set',
      'outside_policy_scope_fraction=1',
    );
    const out = rows('scenario_rollouts.jsonl').map((r) => ScenarioRollout.parse(r));
    expect(out[0]!.result.scenarios).toEqual(
      [1, 2].map((n) => ({ ...(({ persona, ...s }) => ({ customer_persona: persona, ...s }))(scenario(n)), representative_domain: 'Order__Returns_Online-Support', outside_policy_scope: true })),
    );
    expect(asked[0]!.messages).toEqual([
      { role: 'system', content: 'SCENARIO_SYSTEM: the policy does not cover the request.\n<policy>Verify the order id before any lookup; transfer anything else.</policy>\n' },
      { role: 'user', content: 'Write 4 scenarios matching {"type": "object"}\n' },
    ]);
    await materialize('--stage', 'scenarios', '--input', file('scenario_rollouts.jsonl'), '--output', file('tasks.jsonl'));
    const tasks = rows('tasks.jsonl');
    expect(tasks).toHaveLength(6);
    expect(tasks[0]!.id).toBe('sampler_candidate_000000_scenario_000000');
    const env = createConversationalToolUseSimulation({ enable_llm_judge: false });
    const task = SimulationTask.parse(tasks[0]);
    const lines = ['Where is my order ORD-1?', 'Thanks. ###TRANSFER###'];
    const customer: JudgeCall = async () => ({ id: 'c', object: 'response', output: [assistantMessage(lines.shift()!)] });
    const start = await env.reset!(task, { model: customer });
    const turn = [assistantMessage('That request is outside my policy; transferring you to a human agent.')];
    const reply = await env.step!(task, start.state, turn, { model: customer });
    expect(reply.done).toBe(true);
    const verdict = await env.verify(task, { id: 'r', object: 'response', output: [...start.items, ...turn, ...reply.items] }, { state: reply.state });
    expect(verdict.reward).toBe(1);
  });

  it.skipIf(!nemoGymVenv)(
    interopTitle("NeMo Gym's own materializers make the same rows from the same artifacts"),
    async () => {
      // The venv lacks json_repair, which policy_tool_generation/compat.py imports but its materializer never calls.
      const shim = file('shim');
      mkdirSync(shim, { recursive: true });
      writeFileSync(path.join(shim, 'json_repair.py'), 'from json import loads\n');
      // The three materializers read only this test's files: they run side by side (each spends most
      // of its time importing NeMo Gym, which on a loaded machine takes a minute).
      const python = (module: string, ...args: string[]) =>
        execFileAsync(NEMO_GYM_VENV_PYTHON, ['-m', `responses_api_agents.conversational_tool_use.${module}.materialize`, ...args], {
          cwd: os.tmpdir(),
          env: { ...process.env, PYTHONPATH: shim },
        });
      await Promise.all([
        python('domain_generation', '--input-file', file('domain_rollouts.jsonl'), '--output-file', file('nemo_policy_tool_inputs.jsonl'), '--profile', 'general'),
        python('policy_tool_generation', '--input-path', file('policy_tool_rollouts.jsonl'), '--output-path', file('nemo_scenario_inputs.jsonl')),
        python('scenario_generation', '--input', file('scenario_rollouts.jsonl'), '--output', file('nemo_tasks.jsonl')),
      ]);
      expect(rows('policy_tool_inputs.jsonl')).toEqual(rows('nemo_policy_tool_inputs.jsonl'));
      expect(rows('scenario_inputs.jsonl')).toEqual(rows('nemo_scenario_inputs.jsonl'));
      expect(rows('tasks.jsonl')).toEqual(rows('nemo_tasks.jsonl'));
    },
    300_000,
  );
});

describe('policy-tools: the proactive profile and a rejected attempt', () => {
  it('refines without references, and runs the whole pipeline again after the cohesion judges reject it', async () => {
    const one = file('proactive.jsonl');
    writeFileSync(one, JSON.stringify({ ...rows('policy_tool_inputs.jsonl')[1], profile: 'proactive' }) + '\n');
    asked.length = 0;
    cohesionFalse = 2;
    await generate('--stage', 'policy-tools', '--input', one, '--output', file('proactive_rollouts.jsonl'), ...SMALL, '--set', 'golden_reference_count=0');
    const [out] = rows('proactive_rollouts.jsonl').map((r) => PolicyToolRollout.parse(r));
    expect(out!.result).toMatchObject({ profile: 'proactive', attempt_count: 2 });
    const attempts = out!.generation_trace.attempts as Record<string, unknown>[];
    expect(attempts.map((a) => [a.failure_stage, a.cohesion_failure_fraction])).toEqual([
      ['cohesion_judge', 2 / 3],
      [undefined, 0],
    ]);
    const refine = asked.find((a) => a.marker === 'POLICY_REFINE')!.messages[0]!.content;
    expect(refine).toBe('POLICY_REFINE Banking\nVerify the order id first.');
    expect(asked.map((a) => a.marker).filter((m) => m === 'GOLDEN')).toEqual([]);
  });
});

describe('bad model output: a bounded retry, then an error naming the row and field', () => {
  it('domains: three replies that are not JSON', async () => {
    bad.add('DOMAINS');
    asked.length = 0;
    await expect(generate('--stage', 'domains', '--input', file('domain_inputs.jsonl'), '--output', file('x.jsonl'))).rejects.toThrow(
      /domain_inputs\.jsonl:1: domain generation initial: 3 replies were not a JSON list of domains; last: not JSON/,
    );
    expect(asked).toHaveLength(3);
    bad.delete('DOMAINS');
  });

  it('policy-tools: tools failing the permissive check reject every attempt, then the domain', async () => {
    bad.add('TOOLS_V1');
    asked.length = 0;
    const one = file('one_domain.jsonl');
    writeFileSync(
      one,
      rows('policy_tool_inputs.jsonl')
        .slice(0, 1)
        .map((r) => JSON.stringify(r) + '\n')
        .join(''),
    );
    await expect(generate('--stage', 'policy-tools', '--input', one, '--output', file('x.jsonl'), ...SMALL, '--set', 'max_retries=1', '--set', 'use_refinement=false')).rejects.toThrow(
      /one_domain\.jsonl:1: domain "Order & Returns \(Online\)\/Support": policy\/tool generation exhausted 2 attempts; last failure at tool_validation: .*tools\[0\]\.doc/,
    );
    expect(asked.map((a) => a.marker)).toEqual(['POLICY_V1', 'TOOLS_V1', 'POLICY_V1', 'TOOLS_V1']);
    bad.delete('TOOLS_V1');
  });

  it('scenarios: replies that are not a scenario collection', async () => {
    bad.add('SCENARIO_SYSTEM');
    await expect(generate('--stage', 'scenarios', '--input', file('scenario_inputs.jsonl'), '--output', file('x.jsonl'), '--set', 'request_count=1', '--set', 'attempts=2')).rejects.toThrow(
      /scenario_inputs\.jsonl:1: domain "Order__Returns_Online-Support": scenario request 0: 2 replies were not a scenario collection; last: not JSON/,
    );
    bad.delete('SCENARIO_SYSTEM');
  });

  it('materialize: a scenario missing a field is refused with its line and index', async () => {
    const [r] = rows('scenario_rollouts.jsonl');
    delete r!.result.scenarios[1].task_instructions;
    writeFileSync(file('broken.jsonl'), JSON.stringify(r) + '\n');
    await expect(materialize('--stage', 'scenarios', '--input', file('broken.jsonl'), '--output', file('x.jsonl'))).rejects.toThrow(/broken\.jsonl:1: scenario 1 is missing fields: task_instructions/);
    await expect(materialize('--stage', 'domains', '--input', file('broken.jsonl'), '--output', file('x.jsonl'))).rejects.toThrow(/--profile must be general or proactive/);
  });
});

describe.skipIf(!nemoGymVenv)(interopTitle("the generators' text helpers against NeMo Gym's own"), () => {
  it('renders domain names, the follow-up prompt, tool JSON and tags as NeMo Gym does', () => {
    const names = ['Order & Returns (Online)/Support', "Kid's Toys", 'Say "hi" it\'s', 'Back\\slash', 'Café/Bäckerei'];
    const tools = [TOOL, { name: 'café', doc: 'Ünïcode – dash', params: null, returns: { type: 'array', items: { type: 'number' } } }];
    const text = 'x <policy> first </policy> y <policy>\n last \n</policy> <tools>\n' + tools.map((t) => JSON.stringify(t)).join('\n') + '\n</tools>';
    const shim = file('shim');
    mkdirSync(shim, { recursive: true });
    writeFileSync(path.join(shim, 'json_repair.py'), 'from json import loads\n');
    const script = `
import json, sys
from responses_api_agents.conversational_tool_use.policy_tool_generation import compat
from responses_api_agents.conversational_tool_use.domain_generation.app import followup_prompt
a = json.load(sys.stdin)
print(json.dumps({
  "names": [compat.format_domain_name(n) for n in a["names"]],
  "followup": followup_prompt("PROMPT", a["names"]),
  "serialized": compat.serialize_tools(a["tools"]),
  "artifact": compat.tools_artifact(a["tools"]),
  "policy": compat.parse_policy(a["text"]),
  "tools": compat.parse_tools(a["text"]),
  "valid": compat.validate_tools(a["tools"]),
}))`;
    const out = JSON.parse(
      execFileSync(NEMO_GYM_VENV_PYTHON, ['-c', script], { cwd: os.tmpdir(), input: JSON.stringify({ names, tools, text }), env: { ...process.env, PYTHONPATH: shim } }).toString(),
    );
    expect(names.map(formatDomainName)).toEqual(out.names);
    expect(`PROMPT\n\nPreviously brainstormed domains: ${pyReprList(names)}.\n${FOLLOWUP_INSTRUCTION}`).toBe(out.followup);
    expect(serializeTools(tools)).toBe(out.serialized);
    expect(tools.map((t) => pyJson(t) + '\n').join('')).toBe(out.artifact);
    expect(lastTag(text, 'policy')).toBe(out.policy);
    expect(parseTools(text)).toEqual(out.tools);
    expect(toolProblem(tools) === null).toBe(out.valid);
    // Importing NeMo Gym's generator apps takes a minute or more on a loaded machine.
  }, 300_000);
});

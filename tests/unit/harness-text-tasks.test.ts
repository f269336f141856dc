// A harness on a text task (NeMo Gym's <harness>_reasoning_gym / <harness>_math): the prompt built by NeMo
// Gym's rule, the Response verify grades, what is refused and why, and v0.6.0's renamed names with their warnings.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configPathAlias, LEGACY_AGENTS, LEGACY_ENVIRONMENTS } from '../../src/config/aliases';
import { loadConfig } from '../../src/config/load';
import { getEnvironment } from '../../src/environments/registry';
import { getHarness } from '../../src/harnesses/registry';
import { harnessPrompt, harnessRefusal, harnessWork, instructionOf } from '../../src/harnesses/task';
import { trajectoryResponse, type Trajectory } from '../../src/harnesses/trajectory';
import { resolveConfigRun, type ConfigRunRequest } from '../../src/routing/from-config';
import { aliasLegacyAgents } from '../../src/routing/legacy-agents';
import { PACKAGE_ROOT } from '../../src/util/paths';

const RG_ROWS = path.join(PACKAGE_ROOT, 'configs/environments/pi_reasoning_gym/data/example.jsonl');

function request(extra: Partial<ConfigRunRequest>): ConfigRunRequest {
  return { files: [], overrides: [], envYaml: '/dev/null', cwd: os.tmpdir(), env: {}, ...extra };
}

describe("a harness's prompt, by NeMo Gym's rule", () => {
  const task = (input: unknown) => ({ responses_create_params: { input } }) as never;

  it('takes the leading system message and the last user message', () => {
    const input = [
      { role: 'system', content: [{ type: 'input_text', text: 'Row system.' }] },
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: 'an earlier answer' },
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'the ' },
          { type: 'input_text', text: 'question' },
        ],
      },
    ];
    expect(instructionOf(input as never)).toEqual({ instruction: 'the question', system: 'Row system.' });
    expect(instructionOf('bare string')).toEqual({ instruction: 'bare string' });
    // A system message that is not first is no system text.
    expect(
      instructionOf([
        { role: 'user', content: 'q' },
        { role: 'system', content: 'late' },
      ] as never),
    ).toEqual({ instruction: 'q' });
  });

  it("joins the agent's system_prompt and the row's system message, on the command line where the harness takes it, else before the prompt", () => {
    const work = { instruction: 'Solve it.', inputSystem: 'Row system.' };
    expect(harnessPrompt(work, 'Agent system.', getHarness('pi'))).toEqual({ prompt: 'Solve it.', systemPrompt: 'Agent system.\n\nRow system.' });
    expect(harnessPrompt(work, 'Agent system.', getHarness('claude-code'))).toEqual({ prompt: 'Solve it.', systemPrompt: 'Agent system.\n\nRow system.' });
    for (const name of ['opencode', 'codex', 'kilo', 'cline', 'openclaw'] as const) {
      expect(harnessPrompt(work, 'Agent system.', getHarness(name))).toEqual({ prompt: 'Agent system.\n\nRow system.\n\nSolve it.' });
    }
    expect(harnessPrompt({ instruction: 'Solve it.' }, undefined, getHarness('opencode'))).toEqual({ prompt: 'Solve it.' });
    expect(harnessPrompt({ instruction: 'Solve it.' }, 'Agent system.', getHarness('opencode'))).toEqual({ prompt: 'Agent system.\n\nSolve it.' });
  });

  it('puts the system text in the argv of pi and claude-code', () => {
    for (const name of ['pi', 'claude-code'] as const) {
      const args = getHarness(name).invocation({ workspace: '/w', home: '/h', prompt: 'P', systemPrompt: 'S', baseUrl: 'http://127.0.0.1:1/v1', model: 'm', timeoutMs: 1000 }).args;
      expect(args.slice(-3)).toEqual(['--append-system-prompt', 'S', 'P']);
    }
  });

  it('gives a text task an empty working folder, and refuses a row without a user message', () => {
    const work = harnessWork(getEnvironment('reasoning_gym'), task([{ role: 'user', content: 'Who is a knight?' }]), 'task 0');
    expect(work).toEqual({ workdir: '/workspace', files: {}, instruction: 'Who is a knight?' });
    expect(() => harnessWork(getEnvironment('reasoning_gym'), task([{ role: 'system', content: 'only system' }]), 'task 4')).toThrow(
      'task 4: responses_create_params.input has no user message to give the harness as its prompt',
    );
  });
});

describe('the Response a text task is graded on', () => {
  const message = (text: string) => ({ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] });
  const call = { type: 'function_call', call_id: 'c1', name: 'bash', arguments: '{}', status: 'completed' };
  const trajectory = (output: unknown[]): Trajectory => ({ calls: [], turns: [], output: output as never, inputTokens: 3, outputTokens: 4, modelMs: 0 });

  it('ends with the final assistant message, padding an empty one when the last turn left none', () => {
    expect(trajectoryResponse('r', trajectory([call, message('<answer>x</answer>')])).output).toEqual([call, message('<answer>x</answer>')]);
    expect(trajectoryResponse('r', trajectory([message('thinking'), call])).output).toEqual([message('thinking'), call, message('')]);
    expect(trajectoryResponse('r', trajectory([])).output).toEqual([message('')]);
    expect(trajectoryResponse('r', trajectory([])).usage).toEqual({ input_tokens: 3, output_tokens: 4, total_tokens: 7 });
  });

  it("is what reasoning_gym's verify grades: the gold assignment 1, the roles swapped 0", async () => {
    const env = getEnvironment('reasoning_gym');
    const [row] = (await import('node:fs'))
      .readFileSync(RG_ROWS, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => env.taskSchema.parse(JSON.parse(l)));
    const verify = (text: string) => env.verify(row, trajectoryResponse('r', trajectory([call, message(text)])), { state: null });
    expect((await verify('<answer>Zoey is a fool, and Riley is a sage.</answer>')).reward).toBe(1);
    expect((await verify('<answer>Zoey is a sage, and Riley is a fool.</answer>')).reward).toBe(0);
  });
});

describe('what a harness cannot play', () => {
  it('plays sandboxed tasks and tool-free text tasks', () => {
    for (const name of ['swe_repair', 'reasoning_gym', 'math_with_judge', 'mcqa', 'equivalence_llm_judge']) expect(harnessRefusal(getEnvironment(name))).toBeUndefined();
  });

  it('refuses tool-using, non-executing and turn-based environments, naming why', () => {
    expect(harnessRefusal(getEnvironment('example_single_tool_call'))).toBe(
      'environment example_single_tool_call is played with its tools (get_weather), which a harness cannot call; play it with simple_agent',
    );
    expect(harnessRefusal(getEnvironment('structured_outputs'))).toBe(
      "environment structured_outputs grades the model's calls to the task's own tools without running them (non_executing_agent), and a harness offers the model only its own tools; play it with non_executing_simple_agent",
    );
    expect(harnessRefusal(getEnvironment('blackjack'))).toBe(
      "environment blackjack is turn-based (gymnasium): it answers each model turn itself, which a harness's own loop cannot hand it; play it with gymnasium_agent",
    );
  });

  it('refuses a harness agent on a tool-using resources server before the run starts', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'harness-tools-'));
    const config = path.join(dir, 'config.yaml');
    await writeFile(
      config,
      'tools:\n  resources_servers:\n    example_single_tool_call: {entrypoint: app.py}\npi_tools_agent:\n  responses_api_agents:\n    pi_agent:\n      resources_server: {type: resources_servers, name: tools}\n',
    );
    const input = path.join(PACKAGE_ROOT, 'src/environments/example_single_tool_call/data/example.jsonl');
    await expect(resolveConfigRun(request({ files: [config], input, agent: 'pi_tools_agent', limit: 1 }))).rejects.toMatchObject({
      details: [
        'agent "pi_tools_agent" (pi_agent) is an external harness and cannot play resources server "tools": environment example_single_tool_call is played with its tools (get_weather), which a harness cannot call; play it with simple_agent',
      ],
    });
  });
});

describe("v0.6.0's harness-first names", () => {
  it('has one table: environments, their agents and config paths', () => {
    expect(LEGACY_ENVIRONMENTS.reasoning_gym_claude_code).toBe('claude_code_reasoning_gym');
    expect(LEGACY_AGENTS.reasoning_gym_claude_code_agent).toBe('claude_code_reasoning_gym_agent');
    expect(LEGACY_AGENTS.reasoning_gym_rewoo_agent).toBe('langgraph_rewoo_reasoning_gym_agent');
    expect(configPathAlias('environments/reasoning_gym_claude_code/config.yaml')).toBe('environments/claude_code_reasoning_gym/config.yaml');
    expect(configPathAlias('./environments/reasoning_gym_hermes/config.yaml')).toBe('environments/hermes_reasoning_gym/config.yaml');
    expect(configPathAlias('responses_api_agents/tau2/configs/tau2_agent.yaml')).toBe('responses_api_agents/tau2/configs/tau2.yaml');
    expect(configPathAlias('/abs/environments/reasoning_gym_claude_code/config.yaml')).toBeUndefined();
    expect(configPathAlias('environments/claude_code_reasoning_gym/config.yaml')).toBeUndefined();
  });

  it('finds a legacy config path under its new name, with one warning however often it is named', () => {
    const legacy = 'environments/reasoning_gym_claude_code/config.yaml';
    const loaded = loadConfig({ cwd: os.tmpdir(), env: {}, envYaml: '/dev/null', installRoot: PACKAGE_ROOT, files: [legacy], overrides: [`+config_paths=[${legacy}]`] });
    expect(loaded.files).toEqual([path.join(PACKAGE_ROOT, 'configs/environments/claude_code_reasoning_gym/config.yaml'), '/dev/null']);
    expect(loaded.warnings.filter((w) => w.includes('deprecated'))).toEqual([
      'Config path `environments/reasoning_gym_claude_code/config.yaml` is deprecated; use `environments/claude_code_reasoning_gym/config.yaml`.',
    ]);
  });

  it('runs the legacy environment and agent names as the new ones, one warning each', async () => {
    const run = await resolveConfigRun(request({ environment: 'reasoning_gym_claude_code', agent: 'reasoning_gym_claude_code_agent', input: RG_ROWS, limit: 2 }));
    expect(run.warnings).toEqual([
      '`--environment reasoning_gym_claude_code` is deprecated; use `--environment claude_code_reasoning_gym`.',
      'Legacy agent name `reasoning_gym_claude_code_agent` is deprecated; use `claude_code_reasoning_gym_agent`.',
    ]);
    for (const line of run.lines) {
      const row = JSON.parse(line);
      expect(row.agent_ref.name).toBe('claude_code_reasoning_gym_agent');
      expect(row._gf_environment).toMatchObject({ name: 'reasoning_gym', harness: { name: 'claude-code', system_prompt: expect.stringContaining('logic puzzle') } });
    }
  });

  it("aliases a row's agent_ref and the routing keys, and leaves a legacy name alone when the configuration defines it", () => {
    const agents = new Set(['claude_code_reasoning_gym_agent']);
    const rows = [{ agent_ref: { name: 'reasoning_gym_claude_code_agent' } }, { agent_ref: { name: 'other' } }];
    const aliased = aliasLegacyAgents({ agent_map: { x: 'reasoning_gym_claude_code_agent' }, fan_out: { y: ['reasoning_gym_claude_code_agent'] } }, rows, agents);
    expect(aliased.settings).toEqual({ agent_map: { x: 'claude_code_reasoning_gym_agent' }, fan_out: { y: ['claude_code_reasoning_gym_agent'] } });
    expect(aliased.rows.map((r) => (r.agent_ref as { name: string }).name)).toEqual(['claude_code_reasoning_gym_agent', 'other']);
    expect(aliased.warnings).toEqual(['Legacy agent name `reasoning_gym_claude_code_agent` is deprecated; use `claude_code_reasoning_gym_agent`.']);
    const both = aliasLegacyAgents({ agent_name: 'reasoning_gym_claude_code_agent' }, [], new Set([...agents, 'reasoning_gym_claude_code_agent']));
    expect(both).toEqual({ settings: { agent_name: 'reasoning_gym_claude_code_agent' }, rows: [], warnings: [] });
  });

  it('aliases names whose harness Gymflow does not play, then refuses them with the usual error', async () => {
    // A NeMo Gym checkout's hermes bundle, as a search root holds it.
    const root = await mkdtemp(path.join(os.tmpdir(), 'nemo-gym-root-'));
    await mkdir(path.join(root, 'environments/hermes_reasoning_gym'), { recursive: true });
    await writeFile(
      path.join(root, 'environments/hermes_reasoning_gym/config.yaml'),
      'reasoning_gym:\n  resources_servers:\n    reasoning_gym: {entrypoint: app.py}\nhermes_reasoning_gym_agent:\n  responses_api_agents:\n    hermes_agent:\n      entrypoint: app.py\n      resources_server: {type: resources_servers, name: reasoning_gym}\n',
    );
    const legacy = request({ files: ['environments/reasoning_gym_hermes/config.yaml'], searchDirs: [root], agent: 'reasoning_gym_hermes_agent', input: RG_ROWS, limit: 1 });
    const refused = await resolveConfigRun(legacy).catch((e) => e);
    expect(refused.details).toEqual([expect.stringMatching(/^agent "hermes_reasoning_gym_agent" is a hermes_agent, which Gymflow does not play; the agent types it plays: /)]);
    // The warnings are printed before the refusal: loading the configuration alone gives the path's.
    const loaded = loadConfig({ cwd: os.tmpdir(), env: {}, envYaml: '/dev/null', searchDirs: [root], files: ['environments/reasoning_gym_hermes/config.yaml'] });
    expect(loaded.warnings).toEqual(['Config path `environments/reasoning_gym_hermes/config.yaml` is deprecated; use `environments/hermes_reasoning_gym/config.yaml`.']);
  });

  it('names both names when neither the legacy path nor its new one exists', () => {
    expect(() => loadConfig({ cwd: os.tmpdir(), env: {}, envYaml: '/dev/null', files: ['environments/reasoning_gym_rewoo/config.yaml'] })).toThrow(
      /--config: config file environments\/reasoning_gym_rewoo\/config\.yaml not found; looked at:/,
    );
    expect(() => loadConfig({ cwd: os.tmpdir(), env: {}, envYaml: '/dev/null', environment: 'reasoning_gym_rewoo' })).toThrow(
      /--environment reasoning_gym_rewoo \(renamed langgraph_rewoo_reasoning_gym\): config file environments\/langgraph_rewoo_reasoning_gym\/config\.yaml not found/,
    );
  });
});

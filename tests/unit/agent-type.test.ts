// --agent-type as NeMo Gym composes it: the standalone agent config rehosted onto a configuration's agents
// (each keeping its name, resources server, model server and datasets), renamed flavors, and the pairing
// checks (a resources server's allowed_agents, bypassable; a harness on tasks it cannot play, not).
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentTypeFile } from '../../src/config/agent-type';
import { composeUnboundAgent } from '../../src/config/compose';
import type { ConfigMap } from '../../src/config/tree';
import { resolveConfigRun, type ConfigRunRequest } from '../../src/routing/from-config';
import { PACKAGE_ROOT } from '../../src/util/paths';

const CONFIG = path.resolve(import.meta.dirname, '../fixtures/agent-type/swe-and-mcqa.yaml');
const SWE_TASKS = path.join(PACKAGE_ROOT, 'src/environments/swe_repair/data/example.jsonl');
const MCQA_TASKS = path.resolve(import.meta.dirname, '../fixtures/nemo-gym/mcqa/example.jsonl');

const agent = (impl: string, settings: ConfigMap): ConfigMap => ({ responses_api_agents: { [impl]: settings } });
const ref = (type: string, name: string) => ({ type, name });

/** The fixture without one agent instance (a file of its own then defines it another way). */
function configWithout(instance: string): string {
  const text = readFileSync(CONFIG, 'utf8');
  const start = text.indexOf(`${instance}:\n`);
  const end = text.slice(start + 1).search(/\n[a-z]/) + start + 2;
  const file = path.join(os.tmpdir(), `agent-type-without-${instance}-${process.pid}.yaml`);
  writeFileSync(file, text.slice(0, start) + text.slice(end));
  return file;
}

function request(extra: Partial<ConfigRunRequest>): ConfigRunRequest {
  return { files: [CONFIG], overrides: [], envYaml: '/dev/null', cwd: PACKAGE_ROOT, env: {}, ...extra };
}

describe('composing an unbound agent', () => {
  it('rehosts it onto every bound agent, keeping their names and bindings, and drops the standalone instance', () => {
    const tree: ConfigMap = {
      a: agent('simple_agent', { resources_server: ref('resources_servers', 'ra'), model_server: ref('responses_api_models', 'm1'), datasets: [{ name: 'd' }], max_steps: 3 }),
      b: agent('simple_agent', { resources_server: ref('resources_servers', 'rb') }),
      ra: { resources_servers: { mcqa: {} } },
      pi: agent('pi_agent', { resources_server: ref('resources_servers', '???'), model_server: ref('responses_api_models', 'policy_model'), sandbox: 'docker' }),
    };
    const sources = new Map([
      ['pi.responses_api_agents.pi_agent', 'pi.yaml'],
      ['pi.responses_api_agents.pi_agent.sandbox', 'pi.yaml'],
      ['a.responses_api_agents.simple_agent.datasets', 'mine.yaml'],
    ]);
    const composed = composeUnboundAgent(tree, sources);
    expect(composed).toEqual({ agentType: 'pi_agent', from: 'pi.yaml', targets: ['a', 'b'] });
    expect(tree.pi).toBeUndefined();
    expect(tree.a).toEqual(agent('pi_agent', { resources_server: ref('resources_servers', 'ra'), model_server: ref('responses_api_models', 'm1'), datasets: [{ name: 'd' }], sandbox: 'docker' }));
    // b had no model server of its own: it takes the agent type's, as NeMo Gym carries over only what the instance sets.
    expect(tree.b).toEqual(agent('pi_agent', { resources_server: ref('resources_servers', 'rb'), model_server: ref('responses_api_models', 'policy_model'), sandbox: 'docker' }));
    expect(sources.get('a.responses_api_agents.pi_agent.sandbox')).toBe('pi.yaml');
    expect(sources.get('a.responses_api_agents.pi_agent.datasets')).toBe('mine.yaml');
  });

  it("keeps only the replaced agent's bindings: its system_prompt gives way to the agent type's, as in NeMo Gym", () => {
    const tree: ConfigMap = {
      a: agent('simple_agent', { resources_server: ref('resources_servers', 'ra'), system_prompt: 'the replaced agent prompt', max_steps: 3 }),
      b: agent('pi_agent', { resources_server: ref('resources_servers', 'rb'), model_server: ref('responses_api_models', '???'), system_prompt: 'b prompt' }),
      pi: agent('pi_agent', { resources_server: ref('resources_servers', '???'), system_prompt: 'the agent type prompt' }),
    };
    composeUnboundAgent(tree, new Map());
    expect(tree.a).toEqual(agent('pi_agent', { resources_server: ref('resources_servers', 'ra'), system_prompt: 'the agent type prompt' }));
    // A binding left unset (???) stays unset, to be reported, rather than taking the agent type's.
    expect(tree.b).toEqual(agent('pi_agent', { resources_server: ref('resources_servers', 'rb'), model_server: ref('responses_api_models', '???'), system_prompt: 'the agent type prompt' }));
  });

  it("gives the harness the agent type's system_prompt, set in its file or by an override on its instance", async () => {
    const prompt = (run: Awaited<ReturnType<typeof resolveConfigRun>>) =>
      (JSON.parse(run.lines[0]!) as { _gf_environment: { harness?: { system_prompt?: string } } })._gf_environment.harness?.system_prompt;
    const replaced = '+swe_repair_agent.responses_api_agents.simple_agent.system_prompt=the replaced agent prompt';
    const base = { input: SWE_TASKS, agentType: 'pi_agent', agent: 'swe_repair_agent', limit: 1 };
    expect(prompt(await resolveConfigRun(request({ ...base, overrides: [replaced] })))).toBeUndefined();
    const own = await resolveConfigRun(request({ ...base, overrides: [replaced, '++pi_agent.responses_api_agents.pi_agent.system_prompt=Answer in one word.'] }));
    expect(prompt(own)).toBe('Answer in one word.');
  });

  it('does nothing without an unbound agent, and refuses two of them or nothing to rehost on', () => {
    const bound = { a: agent('simple_agent', { resources_server: ref('resources_servers', 'ra') }) };
    expect(composeUnboundAgent(structuredClone(bound), new Map())).toBeUndefined();
    const unbound = (impl: string) => agent(impl, { resources_server: ref('resources_servers', '???') });
    expect(() => composeUnboundAgent({ ...bound, x: unbound('pi_agent'), y: unbound('codex_agent') }, new Map())).toThrow(
      /2 agent instances leave their resources_server unset \(\?\?\?\), so there is no single agent to compose onto the others: x, y/,
    );
    expect(() => composeUnboundAgent({ x: unbound('pi_agent') }, new Map([['x.responses_api_agents.pi_agent', 'pi.yaml']]))).toThrow(
      /agent x \(pi_agent, from pi\.yaml\) leaves its resources_server unset, and the configuration has no other agent to rehost it on/,
    );
  });
});

describe('finding the agent config of --agent-type', () => {
  it("finds Gymflow's shipped configs and NeMo Gym's layout, and names a renamed flavor", async () => {
    const opts = { cwd: PACKAGE_ROOT, env: {}, installRoot: PACKAGE_ROOT };
    expect(agentTypeFile('opencode_agent', opts).file).toBe(path.join(PACKAGE_ROOT, 'configs/agents/opencode_agent/opencode_agent.yaml'));
    const root = await mkdtemp(path.join(os.tmpdir(), 'agent-types-'));
    await mkdir(path.join(root, 'responses_api_agents/tau2/configs'), { recursive: true });
    await writeFile(path.join(root, 'responses_api_agents/tau2/configs/tau2.yaml'), 'x: 1\n');
    const renamed = agentTypeFile('tau2/tau2_agent', { ...opts, searchDirs: [root] });
    expect(renamed.file).toBe(path.join(root, 'responses_api_agents/tau2/configs/tau2.yaml'));
    expect(renamed.warning).toBe('--agent-type tau2/tau2_agent: the agent config tau2_agent.yaml was renamed to tau2.yaml; use --agent-type tau2');
  });

  it('names the flag, the closest agent type and where it looked', () => {
    const opts = { cwd: PACKAGE_ROOT, env: {}, installRoot: PACKAGE_ROOT };
    expect(() => agentTypeFile('opencode_agnt', opts)).toThrow(
      /--agent-type opencode_agnt: no agent config opencode_agnt\.yaml for agent type "opencode_agnt" \(did you mean "opencode_agent"\?\); agent types found: .*pi_agent.*looked at:\n {2}- /s,
    );
    expect(() => agentTypeFile('a/b/c', opts)).toThrow('--agent-type must be NAME or NAME/FLAVOR (letters, digits, . _ -), got "a/b/c"');
  });
});

describe('gym eval run --agent-type on a configuration', () => {
  it('plays every swe_repair row with the chosen harness, in the rollout grain', async () => {
    const run = await resolveConfigRun(request({ input: SWE_TASKS, agentType: 'pi_agent', agent: 'swe_repair_agent', limit: 2 }));
    const rows = run.lines.map((l) => JSON.parse(l));
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.agent_ref.name).toBe('swe_repair_agent');
      expect(row._gf_environment).toEqual({ name: 'swe_repair', options: {}, harness: { name: 'pi', sandbox: 'local', timeout_ms: 600_000, max_model_calls: 100 } });
    }
    expect(run.environments[0]!.harness?.name).toBe('pi');
    expect(run.summary[0]).toMatch(/^agent type pi_agent \(.*configs\/agents\/pi_agent\/pi_agent\.yaml\) plays for swe_repair_agent, mcqa_agent$/);
  });

  it('plays tool-free mcqa with a harness; refuses the agent loop on swe_repair', async () => {
    const onMcqa = await resolveConfigRun(request({ input: MCQA_TASKS, agentType: 'opencode_agent', agent: 'mcqa_agent', limit: 1 }));
    expect(JSON.parse(onMcqa.lines[0]!)._gf_environment).toMatchObject({ name: 'mcqa', harness: { name: 'opencode' } });
    await expect(resolveConfigRun(request({ input: SWE_TASKS, agent: 'swe_repair_agent', limit: 1 }))).rejects.toMatchObject({
      details: [
        expect.stringMatching(
          /^agent "swe_repair_agent" \(simple_agent\) cannot play resources server "swe_repair": environment swe_repair is played by an external harness in a sandbox; use a harness agent type/,
        ),
      ],
    });
  });

  it("plays each row its own agent's way in one run: the loop for mcqa, a harness for swe_repair, in the rollout grain", async () => {
    const mixed = await mkdtemp(path.join(os.tmpdir(), 'agent-type-mixed-'));
    const input = path.join(mixed, 'rows.jsonl');
    const swe = JSON.stringify({ ...JSON.parse(readFileSync(SWE_TASKS, 'utf8').split('\n')[0]!), task_source: 'swe_repair' });
    const mcqa = JSON.stringify({ ...JSON.parse(readFileSync(MCQA_TASKS, 'utf8').split('\n')[0]!), task_source: 'mcqa' });
    await writeFile(input, `${swe}\n${mcqa}\n`);
    const withPi = path.join(mixed, 'pi-on-swe.yaml');
    await writeFile(withPi, 'swe_repair_agent:\n  responses_api_agents:\n    pi_agent:\n      resources_server: {type: resources_servers, name: swe_repair}\n');
    const run = await resolveConfigRun(request({ input, files: [configWithout('swe_repair_agent'), withPi] }));
    const rows = run.lines.map((l) => JSON.parse(l));
    expect(rows.map((r) => [r.agent_ref.name, r._gf_environment.name, r._gf_environment.harness?.name ?? 'loop'])).toEqual([
      ['swe_repair_agent', 'swe_repair', 'pi'],
      ['mcqa_agent', 'mcqa', 'loop'],
    ]);
    expect(run.playing).toBe("played by harness pi in local (swe_repair_agent); Gymflow's agent loop (mcqa_agent): the run takes the rollout grain, since a harness plays whole rollouts");
    expect(run.summary.at(-1)).toBe(run.playing);
  });

  it("holds a resources server's allowed_agents unless the pairing is allowed, by flag, key or variable", async () => {
    const allowed = '++swe_repair.resources_servers.swe_repair.allowed_agents=[codex_agent, claude_code_agent]';
    const base = request({ input: SWE_TASKS, agentType: 'pi_agent', agent: 'swe_repair_agent', limit: 1, overrides: [allowed] });
    await expect(resolveConfigRun(base)).rejects.toMatchObject({
      details: [
        'unsupported agent pairing: swe_repair_agent (pi_agent) uses swe_repair, which accepts codex_agent, claude_code_agent. Select one of: codex_agent, claude_code_agent (or pass --allow-unsupported-pairing, or set NEMO_GYM_ALLOW_UNSUPPORTED_PAIRING=1, to run them anyway)',
      ],
    });
    for (const bypass of [{ allowUnsupportedPairing: true }, { overrides: [allowed, '+allow_unsupported_pairing=true'] }, { env: { NEMO_GYM_ALLOW_UNSUPPORTED_PAIRING: 'yes' } }]) {
      const run = await resolveConfigRun({ ...base, ...bypass });
      expect(run.warnings).toContain('running unsupported agent pairings (--allow-unsupported-pairing): swe_repair_agent (pi_agent) uses swe_repair, which accepts codex_agent, claude_code_agent');
    }
    await expect(resolveConfigRun({ ...base, env: { NEMO_GYM_ALLOW_UNSUPPORTED_PAIRING: 'false' } })).rejects.toMatchObject({ code: 'BAD_INPUT' });
    // A single name is one agent type, as a ++…allowed_agents=name override gives it.
    const one = await resolveConfigRun({ ...base, overrides: ['++swe_repair.resources_servers.swe_repair.allowed_agents=pi_agent'] });
    expect(one.warnings).toEqual([]);
  });

  it('refuses an agent type Gymflow does not play, naming the ones it does', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'agent-type-tau2-'));
    const tau2 = path.join(dir, 'tau2-on-mcqa.yaml');
    await writeFile(tau2, 'mcqa_agent:\n  responses_api_agents:\n    tau2:\n      resources_server: {type: resources_servers, name: mcqa}\n');
    await expect(resolveConfigRun(request({ input: MCQA_TASKS, agent: 'mcqa_agent', files: [configWithout('mcqa_agent'), tau2] }))).rejects.toMatchObject({
      details: [expect.stringMatching(/^agent "mcqa_agent" is a tau2, which Gymflow does not play; the agent types it plays: anyterminal_agent, claude_code_agent, cline_agent, /)],
    });
  });
});

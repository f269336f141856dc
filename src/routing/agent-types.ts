// The NeMo Gym agent types (a `responses_api_agents` implementation) Gymflow plays, and how: with its own
// agent loop (the environment's kind: simple, non-executing or gymnasium) or as an external harness CLI in a
// sandbox. An agent's settings may name the harness's sandbox provider and image, deadline, model-call cap and system prompt.
import { HarnessRef, type EnvRef } from '../environments/ref';
import { getHarness } from '../harnesses/registry';
import type { HarnessName } from '../harnesses/types';
import type { ConfigMap } from '../config/tree';

const LOOP_AGENTS = ['simple_agent', 'simple_agent_with_compaction', 'non_executing_simple_agent', 'gymnasium_agent'] as const;

const HARNESS_AGENTS: Readonly<Record<string, HarnessName>> = {
  opencode_agent: 'opencode',
  opencode_sandboxed_agent: 'opencode',
  pi_agent: 'pi',
  pi_sandboxed_agent: 'pi',
  codex_agent: 'codex',
  claude_code_agent: 'claude-code',
  kilocode_agent: 'kilo',
  cline_agent: 'cline',
  openclaw_agent: 'openclaw',
  simple_strands_agent: 'strands',
  terminus_2_agent: 'terminus-2',
};

/**
 * NeMo Gym's anyterminal_agent runs one of its agents (`agent_server_module`) inside each Terminal-Bench
 * task's container, then the task's tests there; it has no resources server. Gymflow plays it with the
 * harness of that agent on terminal_bench_2_1, scored by AnyTerminal's rule (docs/harnesses.md).
 */
const ANYTERMINAL_AGENT = 'anyterminal_agent';

export const PLAYABLE_AGENT_TYPES: readonly string[] = [...LOOP_AGENTS, ...Object.keys(HARNESS_AGENTS), ANYTERMINAL_AGENT].sort();

/** NeMo Gym's harness agents take `timeout` in seconds; Gymflow's own key is `timeout_ms`. */
const secondsAsMs = (value: unknown) => (typeof value === 'number' ? value * 1000 : undefined);

/** How an agent instance plays its rows: Gymflow's loop, a harness, or why it cannot. */
export type AgentPlay =
  { kind: 'loop' } | { kind: 'harness'; harness: HarnessRef; /** The environment an agent without a resources server plays (anyterminal_agent's). */ env?: EnvRef } | { problem: string };

/** anyterminal_agent's own defaults (NeMo Gym 0.7.0): the agent's deadline and the tests' when a task sets none, in seconds. */
const ANYTERMINAL_AGENT_TIMEOUT_S = 1800;
const ANYTERMINAL_EVAL_TIMEOUT_S = 300;

function anyTerminalPlay(instance: string, settings: ConfigMap): AgentPlay {
  const module = typeof settings.agent_server_module === 'string' ? settings.agent_server_module : '';
  // responses_api_agents.openclaw_agent.app → openclaw_agent, as anyterminal names the agent's folder.
  const agentType = module.split('.').at(-2) ?? '';
  const name = HARNESS_AGENTS[agentType];
  if (!name) {
    return {
      problem: `agent "${instance}" (anyterminal_agent) runs ${module || 'no agent_server_module'} in the task's container, which Gymflow has no harness for; the agents it plays there: ${Object.keys(HARNESS_AGENTS).join(', ')}`,
    };
  }
  const provider = settings.sandbox_provider;
  const parsed = HarnessRef.safeParse({
    name,
    sandbox: settings.sandbox ?? (provider && typeof provider === 'object' && !Array.isArray(provider) ? Object.keys(provider)[0] : undefined) ?? 'docker',
    sandbox_image: settings.sandbox_image ?? undefined,
    timeout_ms: settings.timeout_ms ?? secondsAsMs(settings.global_agent_timeout ?? settings.tb_agent_timeout ?? ANYTERMINAL_AGENT_TIMEOUT_S),
    max_model_calls: settings.max_model_calls ?? undefined,
    system_prompt: settings.system_prompt ?? undefined,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { problem: `agent "${instance}" (anyterminal_agent): ${issue.path.join('.')}: ${issue.message}` };
  }
  const evaluationTimeout = typeof settings.tb_eval_timeout === 'number' ? settings.tb_eval_timeout : ANYTERMINAL_EVAL_TIMEOUT_S;
  return { kind: 'harness', harness: parsed.data, env: { name: 'terminal_bench_2_1', options: { reward_rule: 'anyterminal', evaluation_timeout: evaluationTimeout } } };
}

export function agentPlay(instance: string, type: string, settings: ConfigMap): AgentPlay {
  if ((LOOP_AGENTS as readonly string[]).includes(type)) return { kind: 'loop' };
  if (type === ANYTERMINAL_AGENT) return anyTerminalPlay(instance, settings);
  const name = HARNESS_AGENTS[type];
  if (!name) {
    return { problem: `agent "${instance}" is a ${type}, which Gymflow does not play; the agent types it plays: ${PLAYABLE_AGENT_TYPES.join(', ')}` };
  }
  // An agent played with the environment's tools (strands) runs in no sandbox: a sandbox setting would be ignored.
  if (getHarness(name).playsEnvironmentTools && (settings.sandbox != null || settings.sandbox_image != null)) {
    return { problem: `agent "${instance}" (${type}): sandbox and sandbox_image do not apply: it runs on the worker's host with only the environment's tools` };
  }
  const parsed = HarnessRef.safeParse({
    name,
    sandbox: settings.sandbox ?? undefined,
    sandbox_image: settings.sandbox_image ?? undefined,
    timeout_ms: settings.timeout_ms ?? secondsAsMs(settings.timeout),
    max_model_calls: settings.max_model_calls ?? undefined,
    system_prompt: settings.system_prompt ?? undefined,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { problem: `agent "${instance}" (${type}): ${issue.path.join('.')}: ${issue.message}` };
  }
  return { kind: 'harness', harness: parsed.data };
}

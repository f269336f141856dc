// The NeMo Gym agent types (a `responses_api_agents` implementation) Gymflow plays, and how: with its own
// agent loop (the environment's kind: simple, non-executing or gymnasium) or as an external harness CLI in a
// sandbox. An agent's settings may name the harness's sandbox provider and image, deadline, model-call cap and system prompt.
import { HarnessRef } from '../environments/ref';
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
  terminus_2_agent: 'terminus-2',
};

export const PLAYABLE_AGENT_TYPES: readonly string[] = [...LOOP_AGENTS, ...Object.keys(HARNESS_AGENTS)].sort();

/** NeMo Gym's harness agents take `timeout` in seconds; Gymflow's own key is `timeout_ms`. */
const secondsAsMs = (value: unknown) => (typeof value === 'number' ? value * 1000 : undefined);

/** How an agent instance plays its rows: Gymflow's loop, a harness, or why it cannot. */
export type AgentPlay = { kind: 'loop' } | { kind: 'harness'; harness: HarnessRef } | { problem: string };

export function agentPlay(instance: string, type: string, settings: ConfigMap): AgentPlay {
  if ((LOOP_AGENTS as readonly string[]).includes(type)) return { kind: 'loop' };
  const name = HARNESS_AGENTS[type];
  if (!name) {
    return { problem: `agent "${instance}" is a ${type}, which Gymflow does not play; the agent types it plays: ${PLAYABLE_AGENT_TYPES.join(', ')}` };
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

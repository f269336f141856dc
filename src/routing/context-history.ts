// NeMo Gym's `context_history` (simple_agent_with_compaction) on the agents a configuration routes to,
// read as the run's one history policy; what Gymflow does not do is refused by name, never ignored.
import { z } from 'zod';
import type { HistoryPolicy } from '../agents/history-policy';
import type { AgentNode } from './graph';

const DEFAULT_MARKER = '[Earlier image omitted]';

// NeMo Gym's own defaults: three image groups, three reasoning blocks.
const Recency = z.strictObject({
  images: z
    .strictObject({
      enabled: z.boolean().default(false),
      protect_initial_context: z.boolean().default(true),
      keep_last_groups: z.number().int().min(0).default(3),
      omission_marker: z.string().nullish(),
    })
    .optional(),
  reasoning: z.strictObject({ enabled: z.boolean().default(false), keep_first_block: z.boolean().default(false), keep_last_blocks: z.number().int().min(0).default(3) }).optional(),
});

const ContextHistory = z.strictObject({
  enabled: z.boolean().default(false),
  policy: z.strictObject({ type: z.string().default('identity'), config: z.unknown().optional() }).optional(),
  schedule: z.strictObject({ type: z.string().default('rolling_recency'), actions_per_chunk: z.number().int().optional() }).optional(),
  guards: z.record(z.string(), z.unknown()).optional(),
});

/** One agent's context_history as a policy (undefined: the whole history), or the problems that stop it. */
export function agentHistoryPolicy(agent: string, contextHistory: unknown): { policy?: HistoryPolicy; problems: string[] } {
  if (contextHistory === undefined || contextHistory === null) return { problems: [] };
  const at = `agent "${agent}": context_history`;
  const parsed = ContextHistory.safeParse(contextHistory);
  if (!parsed.success) return { problems: parsed.error.issues.map((i) => `${at}.${i.path.join('.')}: ${i.message}`) };
  const c = parsed.data;
  if (!c.enabled) return { problems: [] };
  const problems: string[] = [];
  if (c.schedule && c.schedule.type !== 'rolling_recency') problems.push(`${at}.schedule.type: Gymflow compacts before every call (rolling_recency), not "${c.schedule.type}"`);
  const guards = Object.entries(c.guards ?? {}).filter(([, v]) => v !== null && v !== undefined && v !== 0);
  if (guards.length) problems.push(`${at}.guards: Gymflow has no admission guards (${guards.map(([k]) => k).join(', ')}); bound the prompt with --history-policy last-tokens=N instead`);
  const type = c.policy?.type ?? 'identity';
  if (type === 'identity') return { problems };
  if (type !== 'recency') return { problems: [...problems, `${at}.policy.type: "${type}" is not a policy Gymflow has (identity, recency); see docs/agents.md`] };
  const recency = Recency.safeParse(c.policy?.config ?? {});
  if (!recency.success) return { problems: [...problems, ...recency.error.issues.map((i) => `${at}.policy.config.${i.path.join('.')}: ${i.message}`)] };
  const { images, reasoning } = recency.data;
  const policy: HistoryPolicy = {};
  if (images?.enabled) {
    if (!images.protect_initial_context) problems.push(`${at}.policy.config.images.protect_initial_context: Gymflow always shows the initial context's images`);
    if (images.omission_marker !== undefined && images.omission_marker !== DEFAULT_MARKER) problems.push(`${at}.policy.config.images.omission_marker: Gymflow's marker is "${DEFAULT_MARKER}"`);
    // The observation the next action answers is always kept, and counts toward the window.
    policy.keep_images = Math.max(1, images.keep_last_groups);
  }
  if (reasoning?.enabled) {
    if (reasoning.keep_first_block) problems.push(`${at}.policy.config.reasoning.keep_first_block: Gymflow keeps only the last blocks`);
    policy.keep_reasoning = reasoning.keep_last_blocks;
  }
  if (policy.keep_images === undefined && policy.keep_reasoning === undefined) problems.push(`${at}.policy.config: the recency policy needs images.enabled or reasoning.enabled`);
  return problems.length ? { problems } : { policy, problems };
}

/** The run's policy from the agents its rows go to: they must agree, since a run has one. */
export function runHistoryPolicy(agents: readonly AgentNode[]): { policy?: HistoryPolicy; problems: string[] } {
  const each = agents.map((a) => ({ agent: a.name, ...agentHistoryPolicy(a.name, a.contextHistory) }));
  const problems = each.flatMap((e) => e.problems);
  if (problems.length) return { problems };
  const distinct = new Set(each.map((e) => JSON.stringify(e.policy ?? null)));
  if (distinct.size > 1) {
    return {
      problems: [`the routed agents' context_history differ (${each.map((e) => e.agent).join(', ')}): Gymflow applies one history policy to a run; run them separately or give them the same one`],
    };
  }
  return { policy: each[0]?.policy, problems: [] };
}

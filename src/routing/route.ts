// Task routing, as NeMo Gym 0.7.0 dispatches rows: each row goes to an agent by agent_map (its agent_ref
// name, then its task_source, then `_default`; `+agent_name` is `_default`), else its own agent_ref, else
// the agent its task_source resolves to; fan_out (or an agent_map list) plays it once per listed agent.
// The environment is the resources server behind task_source, else the agent's. Pure; all problems at once.
import { z } from 'zod';
import type { EnvRef } from '../environments/ref';
import { closest } from '../util/closest';
import type { RoutingGraph } from './graph';

export const DEFAULT_KEY = '_default';

const AgentList = z.array(z.string().min(1)).min(1, 'is an empty list, which would drop every row it matches; list at least one agent');

/** The routing keys of a configuration (or the command line). */
export const RoutingSettings = z.object({
  agent_name: z.string().min(1).optional(),
  /** Gymflow also takes a list here: the rows it matches are played once by each listed agent (a fan-out). */
  agent_map: z.record(z.string(), z.union([z.string().min(1), AgentList])).optional(),
  fan_out: z.record(z.string(), AgentList).optional(),
});
export type RoutingSettings = z.infer<typeof RoutingSettings>;

/** One row to play, with the agent that plays it and the environment it is played against. */
export interface RoutedRow {
  /** Position of the source row in the input (0-based). */
  readonly source: number;
  readonly agent: string;
  /** The resources server behind the environment (its allowed_agents decide the pairing). */
  readonly server: string;
  /** The environment, with the harness that plays it when the agent is one. */
  readonly env: EnvRef;
  readonly row: Record<string, unknown>;
}

export interface Routing {
  readonly rows: RoutedRow[];
  readonly problems: string[];
  readonly warnings: string[];
}

export const agentRefName = (row: Record<string, unknown>): string | undefined => {
  const ref = row.agent_ref;
  return ref && typeof ref === 'object' && typeof (ref as { name?: unknown }).name === 'string' ? (ref as { name: string }).name : undefined;
};

/** Problems of the routing settings themselves: targets that are not agents of the configuration, a conflicting +agent_name. */
export function settingsProblems(settings: RoutingSettings, graph: RoutingGraph): string[] {
  const problems: string[] = [];
  const mappedDefault = settings.agent_map?.[DEFAULT_KEY];
  if (settings.agent_name !== undefined && mappedDefault !== undefined && mappedDefault !== settings.agent_name) {
    problems.push(`agent_name=${settings.agent_name} conflicts with agent_map._default=${String(mappedDefault)}; set only one of them`);
  }
  const targets: [string, string][] = [];
  if (settings.agent_name !== undefined) targets.push(['agent_name', settings.agent_name]);
  for (const [key, value] of Object.entries(settings.agent_map ?? {})) for (const a of [value].flat()) targets.push([`agent_map.${key}`, a]);
  for (const [key, list] of Object.entries(settings.fan_out ?? {})) for (const a of list) targets.push([`fan_out.${key}`, a]);
  const lists = [
    ...Object.entries(settings.fan_out ?? {}).map(([k, l]) => [`fan_out.${k}`, l] as const),
    ...Object.entries(settings.agent_map ?? {})
      .filter(([, v]) => Array.isArray(v))
      .map(([k, l]) => [`agent_map.${k}`, l as string[]] as const),
  ];
  for (const [where, list] of lists) {
    const twice = [...new Set(list.filter((a, i) => list.indexOf(a) !== i))];
    if (twice.length) problems.push(`${where} lists ${twice.join(', ')} more than once; each listed agent plays every matching row once (use num_repeats for more)`);
  }
  for (const [where, name] of targets) {
    if (graph.agents.has(name)) continue;
    problems.push(`${where}: ${unknownAgent(name, graph)}`);
  }
  return problems;
}

function unknownAgent(name: string, graph: RoutingGraph): string {
  const type = graph.instances.get(name);
  if (type) return `"${name}" is a ${type} instance, not an agent (responses_api_agents)`;
  const known = [...graph.agents.keys()].sort();
  const close = closest(name, known);
  return `unknown agent "${name}"${close ? ` (did you mean "${close}"?)` : ''}; the configuration's agents: ${known.join(', ') || 'none'}`;
}

/** The agent a task_source resolves to (NeMo Gym's resolve_dataset_agent), or why it does not. */
function agentOfSource(source: string, graph: RoutingGraph): { agent: string } | { problem: string } {
  const type = graph.instances.get(source);
  const pins = graph.pins.get(source) ?? [];
  if (type === undefined) {
    const close = closest(source, [...graph.instances.keys()]);
    return {
      problem: `task_source "${source}" is not an instance of the configuration${close ? ` (did you mean "${close}"?)` : ''}; add the configuration that declares it, or route it with +agent_map={${source}: <agent>}`,
    };
  }
  if (type === 'responses_api_agents') {
    if (pins.some((p) => p !== source))
      return {
        problem: `task_source "${source}": a dataset declared by agent "${source}" pins agent ${pins.join(', ')}, but its rows go to the declaring agent; drop the pin, or declare the dataset on the resources server`,
      };
    return { agent: source };
  }
  if (type !== 'resources_servers') return { problem: `task_source "${source}" is a ${type} instance; only agents and resources servers declare datasets` };
  const candidates = [...graph.agents.values()]
    .filter((a) => a.resourcesServer === source)
    .map((a) => a.name)
    .sort();
  if (pins.length > 1)
    return { problem: `task_source "${source}": its datasets pin different agents (${pins.join(', ')}), which task_source alone cannot tell apart; pass +agent_map={${source}: <agent>}` };
  if (pins.length === 1) {
    if (!candidates.includes(pins[0]!))
      return { problem: `task_source "${source}": its datasets pin agent "${pins[0]}", which is not an agent bound to resources server "${source}" (bound: ${candidates.join(', ') || 'none'})` };
    return { agent: pins[0]! };
  }
  if (candidates.length === 0) return { problem: `task_source "${source}": no agent of the configuration has resources_server ${source}; add one, or route it with +agent_map={${source}: <agent>}` };
  if (candidates.length > 1)
    return {
      problem: `task_source "${source}": ${candidates.length} agents are bound to it (${candidates.join(', ')}); pin one with \`agent:\` on the dataset, or pass +agent_map={${source}: <agent>}`,
    };
  return { agent: candidates[0]! };
}

/**
 * Routes every row; a row's problems are reported with its line (1-based), sources and agents once each.
 * The settings' own problems are settingsProblems', checked whether or not there are rows.
 */
export function routeRows(rows: readonly Record<string, unknown>[], settings: RoutingSettings, graph: RoutingGraph): Routing {
  const problems: string[] = [];
  const warnings: string[] = [];
  const map: Record<string, string | string[]> = { ...(settings.agent_map ?? {}), ...(settings.agent_name !== undefined ? { [DEFAULT_KEY]: settings.agent_name } : {}) };
  const fanOut: Record<string, string[]> = { ...(settings.fan_out ?? {}) };
  const sources = new Map<string, { agent: string } | { problem: string }>();
  const envProblems = new Set<string>();
  const missing: number[] = [];
  const overridden = new Set<string>();
  let legacy = 0;
  const out: RoutedRow[] = [];

  const envFor = (source: string | undefined, agent: string): { server: string; env: EnvRef } | undefined => {
    const sourceType = source === undefined ? undefined : graph.instances.get(source);
    const server = sourceType === 'resources_servers' ? source! : sourceType === 'responses_api_agents' ? graph.agents.get(source!)?.resourcesServer : graph.agents.get(agent)?.resourcesServer;
    const holder = sourceType === 'responses_api_agents' ? source! : agent;
    const implied = graph.agents.get(agent)!.play;
    // An agent that carries its own environment (anyterminal_agent) has no resources server to name.
    if (server === undefined && 'kind' in implied && implied.kind === 'harness' && implied.env) return { server: agent, env: { ...implied.env, harness: implied.harness } };
    if (server === undefined) {
      envProblems.add('problem' in implied ? implied.problem : `agent "${holder}" has no resources_server, so its rows have no environment`);
      return undefined;
    }
    const env = graph.environments.get(server);
    const play = graph.agents.get(agent)!.play;
    if (env === undefined) envProblems.add(`agent "${holder}" names resources_server "${server}", which the configuration does not define`);
    else if ('problem' in env) envProblems.add(env.problem);
    else if ('problem' in play) envProblems.add(play.problem);
    else return { server, env: play.kind === 'harness' ? { ...env.env, harness: play.harness } : env.env };
    return undefined;
  };

  rows.forEach((row, i) => {
    const named = agentRefName(row);
    const source = typeof row.task_source === 'string' ? row.task_source : undefined;
    if (named !== undefined && source === undefined) legacy++;
    const basis = named ?? source;
    const mapped = (named !== undefined ? map[named] : undefined) ?? (source !== undefined ? map[source] : undefined) ?? map[DEFAULT_KEY];
    let targets: string[] | undefined;
    if (basis !== undefined && fanOut[basis]) targets = fanOut[basis];
    else if (Array.isArray(mapped)) targets = mapped;
    else if (mapped !== undefined) {
      if (named !== undefined && named !== mapped) overridden.add(`${named} → ${mapped}`);
      targets = [mapped];
    } else if (named !== undefined) targets = [named];
    else if (source !== undefined) {
      if (!sources.has(source)) sources.set(source, agentOfSource(source, graph));
      const resolved = sources.get(source)!;
      if ('problem' in resolved) return;
      targets = [resolved.agent];
    } else {
      missing.push(i + 1);
      return;
    }
    for (const agent of targets) {
      if (!graph.agents.has(agent)) {
        // A target the settings name is reported once, by settingsProblems; one the row names, with its line.
        if (agent !== named) continue;
        problems.push(`line ${i + 1}: agent_ref names ${unknownAgent(agent, graph)}`);
        continue;
      }
      const played = envFor(source, agent);
      if (played) out.push({ source: i, agent, ...played, row: { ...row, agent_ref: { ...(row.agent_ref as object | undefined), name: agent } } });
    }
  });

  for (const resolved of sources.values()) if ('problem' in resolved) problems.push(resolved.problem);
  problems.push(...envProblems);
  if (missing.length) {
    problems.push(
      `no agent for line(s) ${listed(missing)}: they have neither agent_ref nor task_source; pass +agent_name=<agent> (or +agent_map={_default: <agent>}), or collate the data with gym dataset collate`,
    );
  }
  if (overridden.size) warnings.push(`agent_map re-routed rows away from the agent_ref they carry: ${[...overridden].sort().join(', ')}`);
  if (legacy) {
    warnings.push(
      `${legacy} row(s) are routed by the agent_ref they carry, without a task_source: this is deprecated; collate the data again with gym dataset collate (it stamps task_source), or route them with +agent_map`,
    );
  }
  return { rows: out, problems: dedupe(problems), warnings };
}

const dedupe = (list: string[]) => [...new Set(list)];

function listed(lines: number[]): string {
  const shown = lines.slice(0, 20).join(', ');
  return lines.length > 20 ? `${shown} and ${lines.length - 20} more` : shown;
}

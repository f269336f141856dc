// The part of a NeMo Gym configuration that routing reads: its agent instances, the resources server each
// is bound to (a Gymflow environment with its settings), the model server each uses, and dataset pins.
import { serverInstances, type ServerInstance, type ServerType } from '../config/check';
import type { LoadedConfig } from '../config/load';
import { isMap, type ConfigMap } from '../config/tree';
import type { EnvRef } from '../environments/ref';
import { environmentNames, getEnvironment } from '../environments/registry';
import { agentPlay, type AgentPlay } from './agent-types';

/** A resources server's environment (with the agent types its `allowed_agents` accepts, when it says), or why it cannot be one. */
export type EnvOf = { env: EnvRef; ignored: string[]; allowedAgents?: string[] } | { problem: string };

export interface AgentNode {
  readonly name: string;
  /** NeMo Gym's agent implementation (simple_agent, …). */
  readonly implementation: string;
  readonly resourcesServer: string | undefined;
  readonly modelServer: string | undefined;
  /** NeMo Gym's context_history (simple_agent_with_compaction), as the configuration has it. */
  readonly contextHistory?: unknown;
  /** How Gymflow plays it: its agent loop or a harness (agent-types.ts). */
  readonly play: AgentPlay;
}

export interface RoutingGraph {
  /** Every server instance's type, by instance name. */
  readonly instances: ReadonlyMap<string, ServerType>;
  readonly agents: ReadonlyMap<string, AgentNode>;
  /** Resources servers by name, each with its Gymflow environment. */
  readonly environments: ReadonlyMap<string, EnvOf>;
  /** Model server instances (responses_api_models) by name. */
  readonly models: ReadonlyMap<string, ServerInstance>;
  /** The distinct `agent:` pins of the datasets an instance declares, in declaration order. */
  readonly pins: ReadonlyMap<string, readonly string[]>;
}

/** Settings every NeMo Gym server has, which say how to serve it rather than how it grades. */
const SERVER_KEYS = new Set([
  'entrypoint',
  'host',
  'port',
  'datasets',
  'description',
  'value',
  'domain',
  'verified',
  'license',
  'num_workers',
  'allowed_agents',
  'requires_agent',
  'dependencies',
  'python_version',
]);

const refName = (value: unknown): string | undefined => (isMap(value) && typeof value.name === 'string' ? value.name : undefined);

export function routingGraph(loaded: LoadedConfig): RoutingGraph {
  const { servers } = serverInstances(loaded.config, loaded.sources);
  const instances = new Map(servers.map((s) => [s.name, s.type]));
  const agents = new Map<string, AgentNode>();
  const environments = new Map<string, EnvOf>();
  const models = new Map<string, ServerInstance>();
  const pins = new Map<string, string[]>();
  for (const s of servers) {
    if (s.type === 'responses_api_agents') {
      agents.set(s.name, {
        name: s.name,
        implementation: s.implementation,
        resourcesServer: refName(s.config.resources_server),
        modelServer: refName(s.config.model_server),
        contextHistory: s.config.context_history,
        play: agentPlay(s.name, s.implementation, s.config),
      });
    } else if (s.type === 'resources_servers') environments.set(s.name, environmentOf(s));
    else if (s.type === 'responses_api_models') models.set(s.name, s);
    const declared = Array.isArray(s.config.datasets) ? s.config.datasets : [];
    const own = [...new Set(declared.map((d) => (isMap(d) && typeof d.agent === 'string' ? d.agent : undefined)).filter((p): p is string => !!p))];
    if (own.length) pins.set(s.name, own);
  }
  return { instances, agents, environments, models, pins };
}

/**
 * A resources server as a Gymflow environment: its implementation names the environment, and those of
 * its keys that are the environment's settings become its options (null means "the default"). Keys that
 * are neither a setting nor one of NeMo Gym's serving keys are listed, since they change nothing here.
 */
function environmentOf(server: ServerInstance): EnvOf {
  if (!environmentNames().includes(server.implementation)) {
    return {
      problem: `resources server "${server.name}" is "${server.implementation}", which is not a Gymflow environment (known: ${environmentNames().join(', ')}); serve it with NeMo Gym and run it with --env remote`,
    };
  }
  const settings = getEnvironment(server.implementation).configurable?.schema.shape ?? {};
  const options: Record<string, unknown> = {};
  const ignored: string[] = [];
  for (const [key, value] of Object.entries(server.config as ConfigMap)) {
    if (value === null || SERVER_KEYS.has(key)) continue;
    if (Object.hasOwn(settings, key)) options[key] = value;
    else ignored.push(key);
  }
  const allowed = server.config.allowed_agents;
  // A bare string is one agent type (an `++…allowed_agents=name` override arrives as one).
  const allowedAgents = typeof allowed === 'string' ? [allowed] : Array.isArray(allowed) ? allowed.map(String) : undefined;
  return { env: { name: server.implementation, options }, ignored, ...(allowedAgents ? { allowedAgents } : {}) };
}

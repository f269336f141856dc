// NeMo Gym's agent composition (`--agent-type`): a standalone agent config leaves its resources server
// unset (`???`); merged into a configuration, it is rehosted onto every other agent instance — each keeps
// its own name, resources server, model server and datasets, so rows routed to it still find it, and takes
// every other setting (system_prompt…) from the agent type — and the standalone instance is dropped. Runs
// on the merged tree, before `???` values are reported as missing.
import { GymError } from '../errors';
import { clone, isMap, keyPath, type ConfigMap, type Sources } from './tree';

const AGENTS = 'responses_api_agents';
/**
 * What a rehosted agent keeps of the instance it replaces (NeMo Gym 0.7.0's carry-over keys); one the instance
 * does not set is the agent type's own, as in NeMo Gym.
 */
const BINDINGS = ['resources_server', 'model_server', 'datasets'] as const;

interface AgentInstance {
  name: string;
  type: string;
  settings: ConfigMap;
}

export interface Composition {
  /** The agent type composed in (the standalone config's implementation) and where it came from. */
  readonly agentType: string;
  readonly from: string | undefined;
  /** The instances that now run that agent type, by name. */
  readonly targets: readonly string[];
}

function agentInstances(tree: ConfigMap): AgentInstance[] {
  const out: AgentInstance[] = [];
  for (const [name, value] of Object.entries(tree)) {
    if (!isMap(value) || Object.keys(value).length !== 1 || !isMap(value[AGENTS])) continue;
    const impls = value[AGENTS];
    const entries = Object.entries(impls);
    if (entries.length !== 1 || !isMap(entries[0]![1])) continue;
    out.push({ name, type: entries[0]![0], settings: entries[0]![1] });
  }
  return out;
}

const resourcesServerName = (settings: ConfigMap): unknown => (isMap(settings.resources_server) ? settings.resources_server.name : undefined);
const isUnbound = (a: AgentInstance) => resourcesServerName(a.settings) === '???';
const isBound = (a: AgentInstance) => {
  const name = resourcesServerName(a.settings);
  return typeof name === 'string' && name !== '???';
};

/** Re-keys the sources of `from.…` to `to.…`, so problems found later still name the file. */
function moveSources(sources: Sources, from: string, to: string): void {
  for (const [key, file] of [...sources.entries()]) {
    if (key === from || key.startsWith(`${from}.`)) sources.set(to + key.slice(from.length), file);
  }
}

/**
 * Composes the configuration's one unbound agent onto its other agents, in place. Nothing to do (undefined)
 * when no agent is unbound; BAD_INPUT when more than one is, or when there is no agent to rehost it on.
 */
export function composeUnboundAgent(tree: ConfigMap, sources: Sources): Composition | undefined {
  const instances = agentInstances(tree);
  const unbound = instances.filter(isUnbound);
  if (unbound.length === 0) return undefined;
  if (unbound.length > 1) {
    throw new GymError(
      'BAD_INPUT',
      `${unbound.length} agent instances leave their resources_server unset (???), so there is no single agent to compose onto the others: ${unbound
        .map((a) => a.name)
        .sort()
        .join(', ')}; load exactly one standalone agent config (--agent-type), or bind the others in your configuration`,
    );
  }
  const source = unbound[0]!;
  const from = sources.get(keyPath([source.name, AGENTS, source.type]));
  const targets = instances.filter((a) => a.name !== source.name && isBound(a));
  if (targets.length === 0) {
    throw new GymError(
      'BAD_INPUT',
      `agent ${source.name} (${source.type}${from ? `, from ${from}` : ''}) leaves its resources_server unset, and the configuration has no other agent to rehost it on: ` +
        'add the configuration of an environment or benchmark (with its agent) alongside --agent-type',
    );
  }
  delete tree[source.name];
  for (const target of targets) {
    const composed = clone(source.settings);
    for (const key of BINDINGS) if (Object.hasOwn(target.settings, key)) composed[key] = clone(target.settings[key]!);
    tree[target.name] = { [AGENTS]: { [source.type]: composed } };
    const at = keyPath([target.name, AGENTS, source.type]);
    moveSources(sources, keyPath([source.name, AGENTS, source.type]), at);
    for (const key of BINDINGS) moveSources(sources, keyPath([target.name, AGENTS, target.type, key]), `${at}.${key}`);
  }
  return { agentType: source.type, from, targets: targets.map((t) => t.name) };
}

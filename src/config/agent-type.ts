// `--agent-type NAME[/FLAVOR]`: the standalone agent config a run composes onto its agents, found as NeMo
// Gym finds it (`responses_api_agents/<name>/configs/<flavor or name>.yaml` under the search roots) or in
// Gymflow's own `configs/agents/<name>/<flavor or name>.yaml`; renamed flavors still work, with a warning.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { GymError } from '../errors';
import { closest } from '../util/closest';
import { RENAMED_AGENT_FLAVORS } from './aliases';
import { searchRoots, type SearchOptions } from './roots';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Where the agent types' configs are under a root: NeMo Gym's layout and Gymflow's. */
const LAYOUTS = [
  { dir: 'responses_api_agents', file: (name: string, flavor: string) => path.join('responses_api_agents', name, 'configs', `${flavor}.yaml`), configs: (name: string) => path.join(name, 'configs') },
  { dir: path.join('configs', 'agents'), file: (name: string, flavor: string) => path.join('configs', 'agents', name, `${flavor}.yaml`), configs: (name: string) => name },
];

/** The agent types a user can pick: every agent folder with configs under the search roots. */
function knownAgentTypes(roots: readonly string[]): string[] {
  const names = new Set<string>();
  for (const root of roots) {
    for (const layout of LAYOUTS) {
      const dir = path.join(root, layout.dir);
      if (!existsSync(dir)) continue;
      for (const name of readdirSync(dir)) if (existsSync(path.join(dir, layout.configs(name)))) names.add(name);
    }
  }
  return [...names].sort();
}

/** The config file of `--agent-type value`, and a warning when it names a renamed flavor. */
export function agentTypeFile(value: string, opts: SearchOptions): { file: string; warning?: string } {
  const [name = '', flavor, ...extra] = value.split('/');
  if (!NAME.test(name) || (flavor !== undefined && !NAME.test(flavor)) || extra.length) {
    throw new GymError('BAD_FLAG', `--agent-type must be NAME or NAME/FLAVOR (letters, digits, . _ -), got ${JSON.stringify(value)}`);
  }
  let chosen = flavor ?? name;
  let warning: string | undefined;
  const renamed = RENAMED_AGENT_FLAVORS[`${name}/${chosen}`];
  if (renamed) {
    warning = `--agent-type ${value}: the agent config ${chosen}.yaml was renamed to ${renamed}.yaml; use --agent-type ${name}${renamed === name ? '' : `/${renamed}`}`;
    chosen = renamed;
  }
  const roots = searchRoots(opts, undefined).map((root) => path.resolve(opts.cwd, root));
  const candidates = roots.flatMap((root) => LAYOUTS.map((layout) => path.join(root, layout.file(name, chosen))));
  const file = candidates.find((c) => existsSync(c) && statSync(c).isFile());
  if (file) return { file, ...(warning ? { warning } : {}) };
  const known = knownAgentTypes(roots);
  const close = closest(name, known);
  throw new GymError(
    'BAD_FLAG',
    `--agent-type ${value}: no agent config ${chosen}.yaml for agent type "${name}"${close && close !== name ? ` (did you mean "${close}"?)` : ''}; ` +
      `agent types found: ${known.join(', ') || 'none'}; looked at:\n${[...new Set(candidates)].map((c) => `  - ${c}`).join('\n')}`,
  );
}

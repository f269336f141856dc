// NeMo Gym v0.6.0's renames, kept working with a migration warning: the harness-first environment names
// (and their agents and config paths) and the renamed agent configs. One table; config, routing and the CLI read it.
import path from 'node:path';

/** Old environment name → the harness-first one (v0.6.0 release notes; NeMo Gym's _config_aliases.py). */
export const LEGACY_ENVIRONMENTS: Readonly<Record<string, string>> = {
  reasoning_gym_claude_code: 'claude_code_reasoning_gym',
  reasoning_gym_hermes: 'hermes_reasoning_gym',
  reasoning_gym_orchestrator: 'langgraph_orchestrator_reasoning_gym',
  reasoning_gym_parallel_thinking: 'langgraph_parallel_thinking_reasoning_gym',
  reasoning_gym_reflection: 'langgraph_reflection_reasoning_gym',
  reasoning_gym_rewoo: 'langgraph_rewoo_reasoning_gym',
};

/** Each environment's agent instance is `<environment>_agent`, renamed with it. */
export const LEGACY_AGENTS: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(LEGACY_ENVIRONMENTS).map(([legacy, canonical]) => [`${legacy}_agent`, `${canonical}_agent`]));

/** v0.6.0's renamed agent configs: `<agent>/<old flavor>` → the new flavor. */
export const RENAMED_AGENT_FLAVORS: Readonly<Record<string, string>> = {
  'stirrup_agent/stirrup_gdpval': 'stirrup_agent',
  'tau2/tau2_agent': 'tau2',
  'verifiers_agent/acereason-math': 'verifiers_agent',
};

const CONFIG_PATHS: Readonly<Record<string, string>> = {
  ...Object.fromEntries(Object.entries(LEGACY_ENVIRONMENTS).map(([legacy, canonical]) => [`environments/${legacy}/config.yaml`, `environments/${canonical}/config.yaml`])),
  ...Object.fromEntries(
    Object.entries(RENAMED_AGENT_FLAVORS).map(([old, flavor]) => {
      const [agent, oldFlavor] = old.split('/') as [string, string];
      return [`responses_api_agents/${agent}/configs/${oldFlavor}.yaml`, `responses_api_agents/${agent}/configs/${flavor}.yaml`];
    }),
  ),
};

/** The canonical path of a renamed relative config path (as written, `./` and `\` aside), or undefined. */
export function configPathAlias(p: string): string | undefined {
  if (path.isAbsolute(p)) return undefined;
  return CONFIG_PATHS[path.posix.normalize(p.split(path.sep).join('/'))];
}

export const configPathWarning = (legacy: string, canonical: string) => `Config path \`${legacy}\` is deprecated; use \`${canonical}\`.`;
export const environmentWarning = (legacy: string, canonical: string) => `\`--environment ${legacy}\` is deprecated; use \`--environment ${canonical}\`.`;
export const agentWarning = (legacy: string, canonical: string) => `Legacy agent name \`${legacy}\` is deprecated; use \`${canonical}\`.`;

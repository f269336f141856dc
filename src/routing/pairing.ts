// Whether each agent may play the environment its rows go to, checked before anything runs. A resources
// server's `allowed_agents` (NeMo Gym's declaration) can be overridden with --allow-unsupported-pairing;
// what Gymflow cannot play at all (a harness on a tool-using or turn-based environment, the loop on sandboxed tasks) cannot.
import { resolveEnvironment } from '../environments/registry';
import { getHarness } from '../harnesses/registry';
import { harnessRefusal } from '../harnesses/task';
import type { RoutingGraph } from './graph';
import type { RoutedRow } from './route';

export const PAIRING_ENV = 'NEMO_GYM_ALLOW_UNSUPPORTED_PAIRING';

/** NeMo Gym's reading of its bypass variable: set to anything but empty, 0 or false. */
export function pairingAllowedByEnv(env: Readonly<Record<string, string | undefined>>): boolean {
  const value = env[PAIRING_ENV]?.trim().toLowerCase();
  return value !== undefined && value !== '' && value !== '0' && value !== 'false';
}

export interface PairingCheck {
  /** Refusals: the run cannot start. */
  readonly problems: string[];
  /** Pairings let through by the bypass, each named once. */
  readonly warnings: string[];
}

export function pairingProblems(rows: readonly RoutedRow[], graph: RoutingGraph, allowUnsupported: boolean): PairingCheck {
  const problems: string[] = [];
  const rejected = new Map<string, { agentType: string; server: string; allowed: string[] }>();
  const seen = new Set<string>();
  for (const r of rows) {
    const key = `${r.agent}|${r.server}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const agentType = graph.agents.get(r.agent)!.implementation;
    const environment = resolveEnvironment(r.env);
    if (environment.sandboxed && !r.env.harness) {
      problems.push(
        `agent "${r.agent}" (${agentType}) cannot play resources server "${r.server}": environment ${r.env.name} is played by an external harness in a sandbox; use a harness agent type (e.g. --agent-type opencode_agent)`,
      );
      continue;
    }
    const refusal = r.env.harness ? harnessRefusal(environment, getHarness(r.env.harness.name)) : undefined;
    if (refusal) {
      problems.push(`agent "${r.agent}" (${agentType}) is an external harness and cannot play resources server "${r.server}": ${refusal}`);
      continue;
    }
    const env = graph.environments.get(r.server);
    const allowed = env && 'env' in env ? env.allowedAgents : undefined;
    if (allowed && !allowed.includes(agentType)) rejected.set(key, { agentType, server: r.server, allowed });
  }
  if (rejected.size === 0) return { problems, warnings: [] };
  const lines = [...rejected.entries()].map(([key, x]) => `${key.split('|')[0]} (${x.agentType}) uses ${x.server}, which accepts ${x.allowed.join(', ')}`);
  if (allowUnsupported) return { problems, warnings: [`running unsupported agent pairings (--allow-unsupported-pairing): ${lines.join('; ')}`] };
  const sets = [...rejected.values()].map((x) => x.allowed);
  const common = sets.reduce((acc, set) => acc.filter((a) => set.includes(a)));
  problems.push(
    `unsupported agent pairing: ${lines.join('; ')}. ${common.length ? `Select one of: ${common.join(', ')}` : 'No single agent satisfies all of them'} ` +
      `(or pass --allow-unsupported-pairing, or set ${PAIRING_ENV}=1, to run them anyway)`,
  );
  return { problems, warnings: [] };
}

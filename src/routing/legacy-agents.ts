// Pre-v0.6.0 agent names (`reasoning_gym_claude_code_agent`) routed to their harness-first instances, as
// NeMo Gym does: only when the configuration has the new instance and not the old; one warning per old name used. Pure.
import { agentWarning, LEGACY_AGENTS } from '../config/aliases';
import type { RoutingSettings } from './route';

export interface Aliased {
  readonly settings: RoutingSettings;
  readonly rows: Record<string, unknown>[];
  readonly warnings: string[];
}

/** The settings' targets and the rows' agent_ref names, each legacy name that the configuration can alias replaced by its new one. */
export function aliasLegacyAgents(settings: RoutingSettings, rows: readonly Record<string, unknown>[], agents: ReadonlySet<string>): Aliased {
  const active = new Map(Object.entries(LEGACY_AGENTS).filter(([legacy, canonical]) => !agents.has(legacy) && agents.has(canonical)));
  const used = new Set<string>();
  const alias = (name: string): string => {
    const canonical = active.get(name);
    if (canonical === undefined) return name;
    used.add(name);
    return canonical;
  };
  const aliasAll = (value: string | string[]) => (Array.isArray(value) ? value.map(alias) : alias(value));
  const out: RoutingSettings = {
    ...settings,
    ...(settings.agent_name !== undefined ? { agent_name: alias(settings.agent_name) } : {}),
    ...(settings.agent_map ? { agent_map: Object.fromEntries(Object.entries(settings.agent_map).map(([key, value]) => [alias(key), aliasAll(value)])) } : {}),
    ...(settings.fan_out ? { fan_out: Object.fromEntries(Object.entries(settings.fan_out).map(([key, list]) => [alias(key), list.map(alias)])) } : {}),
  };
  const aliasedRows = rows.map((row) => {
    const ref = row.agent_ref as { name?: unknown } | undefined;
    if (typeof ref?.name !== 'string' || !active.has(ref.name)) return row;
    return { ...row, agent_ref: { ...ref, name: alias(ref.name) } };
  });
  return { settings: out, rows: aliasedRows, warnings: [...used].sort().map((legacy) => agentWarning(legacy, active.get(legacy)!)) };
}

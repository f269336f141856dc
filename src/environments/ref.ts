// A structured reference to an environment — its name, its settings and, for a NeMo Gym resources
// server, its address — as it travels in run inputs and manifests; resolved to an environment here.
import { z } from 'zod';
import { canonicalJson } from '../gateway/canonical';
import { configuredEnvironmentName, remoteEnvironmentName } from './names';

export const EnvRef = z.object({
  /** A registered environment's name, or "remote" for a NeMo Gym resources server. */
  name: z.string().min(1),
  /** The environment's settings (NeMo Gym's per-server config keys), validated strictly on resolve. */
  options: z.record(z.string(), z.unknown()).default({}),
  remote: z.object({ url: z.string().url(), tools: z.array(z.string()).default([]) }).optional(),
});
export type EnvRef = z.infer<typeof EnvRef>;
export type EnvRefInput = z.input<typeof EnvRef>;

/** The registry key of a reference: readable, unique per name + settings + address. */
export function envKey(ref: EnvRefInput): string {
  if (ref.name === 'remote') {
    if (!ref.remote) throw new Error('a remote environment reference needs remote.url');
    return remoteEnvironmentName(ref.remote.url, ref.remote.tools ?? []);
  }
  return configuredEnvironmentName(ref.name, ref.options ?? {});
}

/** A short label for logs, search attributes and the progress line. */
export function envLabel(ref: EnvRefInput): string {
  if (ref.name === 'remote') return `remote:${ref.remote?.url ?? '?'}`;
  const keys = Object.keys(ref.options ?? {});
  return keys.length ? `${ref.name}(${keys.sort().map((k) => `${k}=${canonicalJson(ref.options![k])}`).join(',')})` : ref.name;
}

// How an environment's settings or a remote server's address are carried in its name through manifests,
// workflows and activities: pure string functions, so reading a reference needs no environment loaded.
import { z } from 'zod';
import { GymError } from '../errors';

/** The same ceiling as a model call's timeouts (25 minutes). */
const MAX_TIMEOUT_MS = 1_500_000;

export const REMOTE_PREFIX = 'remote+';

/**
 * Bounds on each call to a remote environment server. NeMo Gym sets none, but a server that accepts a
 * call and never answers must not hold its rollouts forever: the defaults leave a slow tool minutes.
 */
export const RemoteTimeouts = z.strictObject({
  connect_ms: z.number().int().positive().max(MAX_TIMEOUT_MS).default(10_000),
  /** Until the response's headers: what a silent server runs into. */
  first_byte_ms: z.number().int().positive().max(MAX_TIMEOUT_MS).default(300_000),
  total_ms: z.number().int().positive().max(MAX_TIMEOUT_MS).default(900_000),
});
export type RemoteTimeouts = z.infer<typeof RemoteTimeouts>;
export type RemoteTimeoutsInput = z.input<typeof RemoteTimeouts>;
const TIMEOUT_KEYS = ['connect_ms', 'first_byte_ms', 'total_ms'] as const;

/** The address, tools and bounds a remote environment's name carries. */
export function parseRemoteName(name: string): { baseUrl: string; tools: string[]; timeouts: RemoteTimeouts } {
  const url = new URL(name.slice(REMOTE_PREFIX.length));
  const tools = url.searchParams.get('tools')?.split(',').filter(Boolean) ?? [];
  const timeouts = RemoteTimeouts.parse(Object.fromEntries(TIMEOUT_KEYS.flatMap((key) => (url.searchParams.has(key) ? [[key, Number(url.searchParams.get(key))]] : []))));
  url.search = '';
  return { baseUrl: url.href, tools, timeouts };
}

/**
 * The name of a remote environment (a NeMo Gym resources server) carries its address and tool names,
 * so it travels through manifests, workflows and activities like any other environment name.
 */
export function remoteEnvironmentName(baseUrl: string, tools: readonly string[], timeouts: RemoteTimeoutsInput = {}): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new GymError('BAD_FLAG', `--remote-url: "${baseUrl}" is not a URL`);
  }
  if (tools.length) url.searchParams.set('tools', tools.join(','));
  for (const key of TIMEOUT_KEYS) if (timeouts[key] !== undefined) url.searchParams.set(key, String(timeouts[key]));
  return `${REMOTE_PREFIX}${url.href}`;
}

/**
 * The name of an environment with settings: `name?key=value&…`, values as JSON. Like a remote name,
 * it carries the settings through manifests, workflows and activities, and into the run's identity.
 */
export function configuredEnvironmentName(name: string, options: Record<string, unknown>): string {
  const keys = Object.keys(options).sort();
  if (!keys.length) return name;
  return `${name}?${keys.map((k) => `${encodeURIComponent(k)}=${encodeURIComponent(JSON.stringify(options[k]))}`).join('&')}`;
}

/** The inverse of configuredEnvironmentName: the base name and the settings (none for a plain name). */
export function parseConfiguredName(name: string): { base: string; options: Record<string, unknown> } {
  const at = name.indexOf('?');
  if (at < 0 || name.startsWith(REMOTE_PREFIX)) return { base: name, options: {} };
  const options: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(name.slice(at + 1))) {
    try {
      options[key] = JSON.parse(value);
    } catch {
      options[key] = value;
    }
  }
  return { base: name.slice(0, at), options };
}

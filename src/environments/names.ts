// How an environment's settings or a remote server's address are carried in its name through manifests,
// workflows and activities: pure string functions, so reading a reference needs no environment loaded.
import { GymError } from '../errors';

export const REMOTE_PREFIX = 'remote+';

/**
 * The name of a remote environment (a NeMo Gym resources server) carries its address and tool names,
 * so it travels through manifests, workflows and activities like any other environment name.
 */
export function remoteEnvironmentName(baseUrl: string, tools: readonly string[]): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new GymError('BAD_FLAG', `--remote-url: "${baseUrl}" is not a URL`);
  }
  if (tools.length) url.searchParams.set('tools', tools.join(','));
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

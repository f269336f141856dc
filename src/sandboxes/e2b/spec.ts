// A Gymflow sandbox spec in E2B's terms, pure: labels as sandbox metadata (and back), the network policy as
// E2B's egress options, and the parts E2B cannot honour refused by name instead of silently dropped.
import { isIP } from 'node:net';
import { ALL_TRAFFIC } from 'e2b';
import { GymError } from '../../errors';
import { SandboxLabels, type NetworkPolicy, type ResolvedSandboxSpec } from '../schema';

/** Metadata keys: the marker every Gymflow sandbox carries, its labels, and what `attach` needs back. */
export const META = {
  sandbox: 'gymflow.sandbox',
  run: 'gymflow.run',
  rollout: 'gymflow.rollout',
  attempt: 'gymflow.attempt',
  user: 'gymflow.user',
  execUser: 'gymflow.exec-user',
  workdir: 'gymflow.workdir',
} as const;

/** The sandbox user of E2B's templates (envd's default); root is the other one every template has. */
export const DEFAULT_USER = 'user';

export function metadataOf(spec: ResolvedSandboxSpec, user: string): Record<string, string> {
  return {
    [META.sandbox]: '1',
    [META.run]: spec.labels.run,
    [META.rollout]: spec.labels.rollout,
    [META.attempt]: String(spec.labels.attempt),
    [META.user]: spec.labels.user,
    [META.execUser]: user,
    [META.workdir]: spec.workdir,
  };
}

/** The metadata filter `list` sends: the marker, and each asked-for label. */
export function metadataFilter(match: Partial<SandboxLabels>): Record<string, string> {
  const filter: Record<string, string> = { [META.sandbox]: '1' };
  for (const [key, value] of Object.entries(match)) filter[META[key as keyof SandboxLabels]] = String(value);
  return filter;
}

/** A Gymflow sandbox's labels from its metadata; undefined for a sandbox that is not Gymflow's. */
export function labelsOf(metadata: Record<string, string>): SandboxLabels | undefined {
  if (metadata[META.sandbox] !== '1') return undefined;
  const parsed = SandboxLabels.safeParse({
    run: metadata[META.run],
    rollout: metadata[META.rollout],
    attempt: Number(metadata[META.attempt]),
    user: metadata[META.user],
  });
  return parsed.success ? parsed.data : undefined;
}

export interface NetworkOptions {
  allowInternetAccess: boolean;
  network?: { allowOut: string[]; denyOut: string[] };
}

/**
 * E2B filters egress by host (IP, CIDR or domain), not by port, and its sandboxes run in E2B's cloud, so
 * they cannot reach this machine's loopback. `allow` therefore maps only when the caller accepts that every
 * port of an allowed host opens (`allowByHost`), and never for a loopback endpoint.
 */
export function networkOptions(policy: NetworkPolicy, allowByHost: boolean): NetworkOptions {
  if (policy.mode === 'none') return { allowInternetAccess: false };
  if (policy.mode === 'host') return { allowInternetAccess: true };
  for (const [i, endpoint] of policy.endpoints.entries()) {
    if (isLoopback(endpoint.host)) {
      throw new GymError(
        'BAD_INPUT',
        `sandbox spec field "network.endpoints.${i}": ${endpoint.host} is this machine's loopback, which an e2b sandbox (a VM in E2B's cloud) cannot reach; give an address reachable from the internet (e.g. a public gateway URL)`,
      );
    }
  }
  if (!allowByHost) {
    throw new GymError(
      'BAD_INPUT',
      'sandbox spec field "network": e2b filters egress by host, not by port, so the allow policy would open every port of each listed host; set the e2b provider option allowByHost: true to accept that, or use mode none or host',
    );
  }
  return { allowInternetAccess: true, network: { allowOut: [...new Set(policy.endpoints.map((e) => e.host))], denyOut: [ALL_TRAFFIC] } };
}

function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return bare === '::1';
}

/** E2B sizes a sandbox by its template: limits the provider cannot apply are refused, naming the field. */
export function checkResources(spec: ResolvedSandboxSpec): void {
  const unsupported: Array<[keyof ResolvedSandboxSpec['resources'], string]> = [
    ['cpus', 'CPUs come from the template (set cpuCount when building it)'],
    ['memoryBytes', 'memory comes from the template (set memoryMB when building it)'],
    ['pids', 'the sandbox is a VM of its own; E2B has no process limit'],
    ['fileSizeBytes', 'E2B has no file size limit; the template sets the disk size'],
  ];
  for (const [field, why] of unsupported) {
    if (spec.resources[field] !== undefined) throw new GymError('BAD_INPUT', `sandbox spec field "resources.${field}": the e2b provider cannot apply it (${why}); leave it out`);
  }
}

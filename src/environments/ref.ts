// A structured reference to an environment — its name, its settings and, for a NeMo Gym resources
// server, its address — as it travels in run inputs and manifests; resolved to an environment here.
import { z } from 'zod';
import { canonicalJson } from '../gateway/canonical';
import { HarnessName } from '../harnesses/types';
import { ProviderName } from '../sandboxes/schema';
import { configuredEnvironmentName, RemoteTimeouts, remoteEnvironmentName } from './names';

/**
 * The external agent harness that plays an environment's tasks (`--agent`), in which sandbox
 * provider, under what deadline and cap on model calls. It travels with the environment so every worker
 * (and the rollout grain's batch activity) plays the same way without a change to the workflows.
 */
export const HarnessRef = z
  .strictObject({
    name: HarnessName,
    sandbox: ProviderName.default('local'),
    /**
     * The sandbox's image (`--sandbox-image`): for docker an image in the engine holding the tasks' tools
     * (scripts/setup-docker.sh builds one), for local an optional root file system folder.
     */
    sandbox_image: z.string().min(1).optional(),
    timeout_ms: z.number().int().min(1000).default(600_000),
    /** The gateway refuses calls beyond this many for one attempt: a harness in a loop is stopped. */
    max_model_calls: z.number().int().min(1).default(100),
    /** The agent config's `system_prompt`: put before the row's own system message (src/harnesses/task.ts). */
    system_prompt: z.string().min(1).optional(),
  })
  .superRefine((ref, ctx) => {
    // Only local can fall back on the worker's own system folders; every other provider starts from an image.
    if (ref.sandbox !== 'local' && ref.sandbox_image === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['sandbox_image'],
        message: `the ${ref.sandbox} sandbox needs an image for the harness to run in (for docker, \`bash scripts/setup-docker.sh image\` builds the task image and prints its name)`,
      });
    }
  });
export type HarnessRef = z.infer<typeof HarnessRef>;

export const EnvRef = z.object({
  /** A registered environment's name, or "remote" for a NeMo Gym resources server. */
  name: z.string().min(1),
  /** The environment's settings (NeMo Gym's per-server config keys), validated strictly on resolve. */
  options: z.record(z.string(), z.unknown()).default({}),
  remote: z.object({ url: z.string().url(), tools: z.array(z.string()).default([]), timeouts: RemoteTimeouts.partial().optional() }).optional(),
  harness: HarnessRef.optional(),
});
export type EnvRef = z.infer<typeof EnvRef>;
export type EnvRefInput = z.input<typeof EnvRef>;

/** The registry key of a reference: readable, unique per name + settings + address. */
export function envKey(ref: EnvRefInput): string {
  if (ref.name === 'remote') {
    if (!ref.remote) throw new Error('a remote environment reference needs remote.url');
    return remoteEnvironmentName(ref.remote.url, ref.remote.tools ?? [], ref.remote.timeouts);
  }
  return configuredEnvironmentName(ref.name, ref.options ?? {});
}

/** A short label for logs, search attributes and the progress line. */
export function envLabel(ref: EnvRefInput): string {
  if (ref.name === 'remote') return `remote:${ref.remote?.url ?? '?'}`;
  const keys = Object.keys(ref.options ?? {});
  return keys.length
    ? `${ref.name}(${keys
        .sort()
        .map((k) => `${k}=${canonicalJson(ref.options![k])}`)
        .join(',')})`
    : ref.name;
}

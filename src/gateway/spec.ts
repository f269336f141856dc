// What a caller registers with the gateway: which backend serves a model name and how. The name is a
// hash of the spec, so registering the same spec twice (e.g. from a retried activity) is a no-op.
import { z } from 'zod';
import { GymError } from '../errors';
import { canonicalJson, sha256Hex } from './canonical';

export const MockModelSpec = z.object({
  backend: z.literal('mock'),
  env: z.string(),
  seed: z.number().int().default(0),
  accuracy: z.number().min(0).max(1).default(1),
  latency_ms: z.number().nonnegative().default(0),
  tasks_file: z.string().optional(),
  replay_files: z.array(z.string()).default([]),
});

const HOUR_MS = 3_600_000;
const bound = (fallback: number) => z.number().int().min(1).max(HOUR_MS).default(fallback);

/**
 * Bounds on one upstream call, in milliseconds; `total_ms` caps the others too. A non-streaming
 * upstream sends its headers only once the whole answer is ready, so `first_byte_ms` also bounds
 * generation time: raise it (and `total_ms`) for long reasoning outputs. `total_ms` stays under the
 * model-call activity's 10-minute start-to-close so the gateway, not Temporal, reports the timeout.
 * Strict, because a misspelled bound would otherwise silently keep its default.
 */
export const ModelTimeouts = z.strictObject({
  connect_ms: bound(10_000),
  first_byte_ms: bound(120_000),
  /** Longest silence between two chunks of the body (between events, once streaming lands). */
  idle_ms: bound(60_000),
  total_ms: bound(540_000),
});
export type ModelTimeouts = z.infer<typeof ModelTimeouts>;

export const OpenAIModelSpec = z.object({
  backend: z.literal('openai'),
  model: z.string(),
  base_url: z.string().url().optional(),
  /** The NAME of the environment variable holding the key; the key itself never enters a spec. */
  api_key_env: z.string().default('OPENAI_API_KEY'),
  /**
   * Optional so a spec that does not set them hashes (model name, run identity) as it did before
   * timeouts existed; the backend fills in the defaults.
   */
  timeouts: ModelTimeouts.optional(),
});

export const ModelSpec = z.discriminatedUnion('backend', [MockModelSpec, OpenAIModelSpec]);

export type ModelSpec = z.infer<typeof ModelSpec>;
/** A spec as written by a caller, defaults not yet applied. */
export type ModelSpecInput = z.input<typeof ModelSpec>;
export type MockModelSpec = z.infer<typeof MockModelSpec>;
export type OpenAIModelSpec = z.infer<typeof OpenAIModelSpec>;

export function parseModelSpec(input: ModelSpecInput): ModelSpec {
  const parsed = ModelSpec.safeParse(input);
  if (!parsed.success) {
    const details = parsed.error.issues.map((i) => `${i.path.join('.') || '(spec)'}: ${i.message}`);
    throw new GymError('BAD_INPUT', `invalid model spec: ${details.join('; ')}`, details);
  }
  return parsed.data;
}

/** `<backend>-<env or upstream model>-<hash>`: readable in logs, unique per spec (defaults applied first). */
export function modelName(spec: ModelSpec): string {
  const label = spec.backend === 'mock' ? spec.env : spec.model;
  const slug = label.replace(/[^A-Za-z0-9._-]+/g, '_');
  return `${spec.backend}-${slug}-${sha256Hex(canonicalJson(spec)).slice(0, 12)}`;
}

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

/**
 * How connection failures are ridden out across replicas and endpoint rotation. Every loop is bounded:
 * after `connection_retries` more attempts (paused `retry_backoff_ms`, doubling, at most 2 s each) the
 * call fails with `upstream_unreachable`. Strict, as for the timeouts.
 */
export const Rotation = z.strictObject({
  /**
   * Default 4 with replicas or an endpoint_file, where another attempt can land elsewhere; 0 for one fixed
   * URL, where it would only delay the failure the caller's own retry policy handles.
   */
  connection_retries: z.number().int().min(0).max(20).optional(),
  retry_backoff_ms: z.number().int().min(0).max(10_000).default(100),
  /** How long a replica that refused a connection is passed over. */
  dead_for_ms: bound(30_000),
  /** How often `endpoint_file` is checked for a change; a failed connection checks it at once. */
  endpoint_check_ms: z.number().int().min(0).max(HOUR_MS).default(1_000),
  /** How long a missing or empty `endpoint_file` keeps the endpoints it last named in use. */
  endpoint_stale_grace_ms: bound(300_000),
});
export type Rotation = z.infer<typeof Rotation>;

/**
 * Sampling settings forced onto every call to the model, whatever the caller sent (NeMo Gym's
 * `sampling_overrides`): a harness picks its own settings, and on-policy training needs the pinned ones.
 * Neutral names; each backend writes them in its upstream's vocabulary (`max_tokens` is Responses'
 * `max_output_tokens`, `stop` Anthropic's `stop_sequences`).
 */
export const SamplingOverrides = z.strictObject({
  temperature: z.number().min(0).optional(),
  top_p: z.number().gt(0).max(1).optional(),
  top_k: z.number().int().optional(),
  min_p: z.number().min(0).max(1).optional(),
  max_tokens: z.number().int().min(1).optional(),
  seed: z.number().int().optional(),
  stop: z.union([z.string(), z.array(z.string())]).optional(),
  frequency_penalty: z.number().optional(),
  presence_penalty: z.number().optional(),
  repetition_penalty: z.number().optional(),
});
export type SamplingOverrides = z.infer<typeof SamplingOverrides>;

const Url = z.string().url();

/**
 * Where an upstream is, for every HTTP backend: one base URL, several replicas (a rollout sticks to
 * one), or a file a serving job rewrites when it moves (one URL per line, re-read on change). All
 * optional so a spec that sets none hashes as it did before they existed.
 */
const UpstreamFields = {
  base_url: z.union([Url, z.array(Url).min(1)]).optional(),
  endpoint_file: z.string().min(1).optional(),
  rotation: Rotation.optional(),
  /** Optional so a spec that does not set them hashes (model name, run identity) as it did before; the backend fills in the defaults. */
  timeouts: ModelTimeouts.optional(),
  sampling_overrides: SamplingOverrides.optional(),
};

/**
 * Streaming from the upstream: a streaming caller then gets its pieces as they are generated (and
 * `idle_ms`, not `first_byte_ms`, bounds a long generation). `true` streams even for whole-answer
 * callers; `false` always asks for whole answers (streams to the caller are then replayed from them).
 */
const StreamUpstream = z.boolean();

export const OpenAIModelSpec = z.object({
  backend: z.literal('openai'),
  model: z.string(),
  /** The NAME of the environment variable holding the key; the key itself never enters a spec. */
  api_key_env: z.string().default('OPENAI_API_KEY'),
  /** What the upstream speaks: `chat` serves Responses callers through the Responses↔Chat conversion. */
  api: z.enum(['responses', 'chat']).optional(),
  /** Whether to stream from the upstream; default: when the caller streams. See `StreamUpstream`. */
  stream_upstream: StreamUpstream.optional(),
  ...UpstreamFields,
});

/** vLLM's OpenAI server, asked for the sampled token ids and log-probs of every generation. */
export const VLLMModelSpec = z.object({
  backend: z.literal('vllm'),
  model: z.string(),
  /** vLLM runs without a key unless started with --api-key; then name the variable holding it. */
  api_key_env: z.string().optional(),
  /** Whether to stream from the upstream; default: when the caller streams. See `StreamUpstream`. */
  stream_upstream: StreamUpstream.optional(),
  ...UpstreamFields,
});

/** An Anthropic Messages upstream (`/v1/messages`). */
export const AnthropicModelSpec = z.object({
  backend: z.literal('anthropic'),
  model: z.string(),
  api_key_env: z.string().default('ANTHROPIC_API_KEY'),
  /** Messages requires max_tokens; used when the caller sets none. */
  max_tokens: z.number().int().min(1).default(8192),
  anthropic_version: z.string().default('2023-06-01'),
  /** Whether to stream from the upstream; default: when the caller streams. See `StreamUpstream`. */
  stream_upstream: StreamUpstream.optional(),
  ...UpstreamFields,
});

/**
 * NVIDIA's Switchyard routing proxy (PyPI nemo-switchyard): hosted by the gateway from a TOML `deployment`
 * (its native server on a free loopback port, for as long as the gateway runs) or attached at `base_url`.
 * `model` is the route's id: Switchyard picks the target that serves each call; the rest is an
 * OpenAI-compatible upstream.
 */
export const SwitchyardModelSpec = z.object({
  backend: z.literal('switchyard'),
  /** The route's id (`[routes.<key>] id = …`): every request's `model` is overwritten with it. */
  model: z.string().min(1),
  /** Hosted mode: the absolute path of the native server's TOML deployment. */
  deployment: z.string().min(1).optional(),
  /** The hosted proxy's loopback port (default: a free one). */
  proxy_port: z.number().int().min(1).max(65535).optional(),
  /** The NAME of the variable holding the key the proxy's callers must send; none sends a placeholder. */
  api_key_env: z.string().optional(),
  /** What Gymflow calls the proxy with: `chat` serves Responses callers through the Responses↔Chat conversion. */
  api: z.enum(['responses', 'chat']).optional(),
  /** Whether to stream from the proxy; default: when the caller streams. See `StreamUpstream`. */
  stream_upstream: StreamUpstream.optional(),
  /** The headers the rollout attempt id is sent in: Switchyard reads `x-switchyard-session-id` as its session id. */
  session_id_headers: z
    .array(z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'an HTTP header name'))
    .min(1)
    .default(['x-switchyard-session-id']),
  forward_session_id: z.boolean().default(true),
  /** Where the hosted proxy's own log (its per-request routing lines) is appended; default: the gateway's log at debug level. */
  proxy_log_file: z.string().min(1).optional(),
  ...UpstreamFields,
});

/** The backends a routed model's targets may be: any but another routed model. */
export const TargetModelSpec = z.discriminatedUnion('backend', [MockModelSpec, OpenAIModelSpec, VLLMModelSpec, AnthropicModelSpec, SwitchyardModelSpec]);
export type TargetModelSpec = z.infer<typeof TargetModelSpec>;

const TargetName = z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'letters, digits and . _ - only');

/** A rule of the `rules` strategy: every `when` key (a dotted path into the task row) must hold one of its values. */
export const RoutingRule = z.strictObject({
  when: z.record(z.string().min(1), z.union([z.string(), z.number(), z.boolean(), z.array(z.union([z.string(), z.number(), z.boolean()])).min(1)])),
  target: TargetName,
});

/** How Gymflow's own router picks a rollout's target (once, at the rollout's first call; docs/gateway.md). */
export const RoutingStrategy = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('fixed'), target: TargetName }),
  z.strictObject({ type: z.literal('round_robin') }),
  z.strictObject({ type: z.literal('random'), seed: z.number().int().default(0), weights: z.record(TargetName, z.number().positive()).optional() }),
  z.strictObject({ type: z.literal('rules'), rules: z.array(RoutingRule).min(1), default: TargetName }),
]);
export type RoutingStrategy = z.infer<typeof RoutingStrategy>;

/** Gymflow's own router, for users without the Switchyard proxy: each rollout served by one of `targets`. */
export const RoutedModelSpec = z.object({
  backend: z.literal('routed'),
  /** The routed model's name, as labels and the condition record show it. */
  model: z.string().min(1).default('routed'),
  strategy: RoutingStrategy,
  targets: z.record(TargetName, TargetModelSpec).refine((t) => Object.keys(t).length > 0, 'name at least one target'),
});

export const ModelSpec = z.discriminatedUnion('backend', [MockModelSpec, OpenAIModelSpec, VLLMModelSpec, AnthropicModelSpec, SwitchyardModelSpec, RoutedModelSpec]).superRefine((spec, ctx) => {
  if (spec.backend === 'switchyard' && spec.deployment === undefined && spec.base_url === undefined) {
    ctx.addIssue({ code: 'custom', path: ['deployment'], message: 'give deployment (the TOML the gateway hosts Switchyard from) or base_url (a running proxy)' });
  }
  if (spec.backend === 'switchyard' && spec.deployment !== undefined && spec.base_url !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['base_url'], message: 'give deployment (hosted) or base_url (attached), not both' });
  }
  if (spec.backend === 'switchyard' && spec.endpoint_file !== undefined) ctx.addIssue({ code: 'custom', path: ['endpoint_file'], message: 'a Switchyard proxy is one base_url' });
  if (spec.backend !== 'routed') return;
  const names = Object.keys(spec.targets);
  const named = (target: string, where: (string | number)[]) => {
    if (!names.includes(target)) ctx.addIssue({ code: 'custom', path: where, message: `"${target}" is not one of the targets (${names.join(', ')})` });
  };
  const { strategy } = spec;
  if (strategy.type === 'fixed') named(strategy.target, ['strategy', 'target']);
  if (strategy.type === 'random') for (const t of Object.keys(strategy.weights ?? {})) named(t, ['strategy', 'weights', t]);
  if (strategy.type === 'rules') {
    named(strategy.default, ['strategy', 'default']);
    strategy.rules.forEach((r, i) => named(r.target, ['strategy', 'rules', i, 'target']));
  }
});

export type ModelSpec = z.infer<typeof ModelSpec>;
/** A spec as written by a caller, defaults not yet applied. */
export type ModelSpecInput = z.input<typeof ModelSpec>;
export type MockModelSpec = z.infer<typeof MockModelSpec>;
export type OpenAIModelSpec = z.infer<typeof OpenAIModelSpec>;
export type VLLMModelSpec = z.infer<typeof VLLMModelSpec>;
export type AnthropicModelSpec = z.infer<typeof AnthropicModelSpec>;
export type SwitchyardModelSpec = z.infer<typeof SwitchyardModelSpec>;
export type RoutedModelSpec = z.infer<typeof RoutedModelSpec>;
/** The specs of backends that call an upstream over HTTP. */
export type UpstreamModelSpec = OpenAIModelSpec | VLLMModelSpec | AnthropicModelSpec | SwitchyardModelSpec;

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

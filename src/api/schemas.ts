// The trigger API's request and response bodies, defined once as zod schemas: the server validates with
// them, the OpenAPI document is generated from them, and the TypeScript client takes its types from them.
import { z } from 'zod';
import { RUN_STATUSES } from '../runs/list';
import type { RunProgress as WorkflowRunProgress } from '../../workflows/definitions';

const positiveInt = z.number().int().min(1);
/** The name of an environment variable on the API's host; only those the API was started to allow are accepted. */
const EnvVarName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'the name of an environment variable');

/**
 * A run to start: the settings of an eval YAML (configs/evals/*.yaml), in its snake_case spelling, which
 * `gym eval run` validates as it validates its flags; or a NeMo Gym configuration (config_paths, with what
 * `gym eval run --config` takes beside it), routed and checked as that command does. Left out on purpose: the task queue (the API's own),
 * the W&B Python (a path the API would execute) and the CLI's follow-up settings (gates, --detach).
 */
export const RunRequest = z.strictObject({
  /** The client's request id: the same id with the same body starts one run, however often it is sent. */
  request_id: z.string().min(1).max(200).optional(),
  env: z.string().min(1).optional().describe('a registered environment (gym env list), or "remote" with remote_url; not with config_paths'),
  remote_url: z.string().optional(),
  remote_tools: z.string().optional().describe('comma-separated tool names of the remote server'),
  env_options: z.record(z.string(), z.unknown()).optional(),
  model: z.enum(['mock', 'openai']).optional().describe("the policy model; with config_paths, by default the routed agents' model server"),
  input: z.string().min(1).optional().describe("the tasks JSONL, a path on the API's host; with config_paths, or split instead"),
  config_paths: z
    .array(z.string().min(1))
    .min(1)
    .optional()
    .describe("a NeMo Gym configuration, as gym eval run --config (files on the API's host, merged in order): each row to its agent and environment"),
  overrides: z.array(z.string().min(1)).optional().describe("the configuration's overrides, as gym eval run takes them: key.path=value, +key=value, ++key=value"),
  split: z.string().min(1).optional().describe('with config_paths: run the declared datasets of this type (train, validation or benchmark), as --split'),
  agent_name: z.string().min(1).optional().describe('with config_paths: every row to this agent instance, as --agent-name (+agent_name)'),
  agent_type: z.string().min(1).optional().describe("with config_paths: the agent type composed onto the configuration's agents, as --agent-type NAME[/FLAVOR]"),
  allow_unsupported_pairing: z.boolean().optional().describe('with config_paths: run agents on resources servers whose allowed_agents do not list them'),
  output: z.string().min(1).optional().describe("the run folder, inside the API's --runs-dir (default: one named after the run or request id)"),
  run_id: z.string().optional(),
  limit: positiveInt.optional(),
  num_repeats: positiveInt.optional(),
  concurrency: positiveInt.optional(),
  max_steps: positiveInt.optional(),
  history_policy: z.string().optional().describe('what of its history the model is shown on each call, as --history-policy: last-turns=N, last-tokens=N, drop-old-images[=N], drop-old-reasoning[=N]'),
  max_attempts: positiveInt.optional(),
  durability: z.enum(['turn', 'rollout']).optional(),
  shards: positiveInt.optional(),
  mock: z
    .strictObject({
      accuracy: z.number().min(0).max(1).optional(),
      seed: z.number().int().optional(),
      latency_ms: z.number().int().min(0).optional(),
      replay: z.array(z.string()).optional(),
    })
    .optional(),
  openai: z.strictObject({ name: z.string().optional(), url: z.string().optional(), api_key_env: EnvVarName.optional() }).optional(),
  judge: z.strictObject({ model: z.enum(['mock', 'openai']).optional(), name: z.string().optional(), url: z.string().optional() }).optional(),
  exporters: z
    .strictObject({
      upload_rollouts: z.boolean().optional(),
      mlflow: z.strictObject({ tracking_uri: z.string(), experiment: z.string().optional(), run_name: z.string().optional(), token_env: EnvVarName.optional() }).optional(),
      wandb: z
        .strictObject({ project: z.string(), entity: z.string().optional(), name: z.string().optional(), mode: z.enum(['offline', 'online']).optional(), api_key_env: EnvVarName.optional() })
        .optional(),
    })
    .optional(),
});
export type RunRequest = z.infer<typeof RunRequest>;

export const RunProgress = z.object({
  phase: z.enum(['collating', 'running', 'finalizing', 'completed']),
  total: z.number().int().nullable(),
  done: z.number().int(),
  failed: z.number().int(),
  inFlight: z.number().int(),
  concurrency: z.number().int(),
  paused: z.boolean(),
  meanReward: z.number().nullable(),
});
export type RunProgress = z.infer<typeof RunProgress>;
// The workflow's progress and this schema are one shape; a change to either fails the type check here.
const _sameProgress: [RunProgress, WorkflowRunProgress] = [{} as WorkflowRunProgress, {} as RunProgress];
void _sameProgress;

export const RunStatus = z.enum(RUN_STATUSES);

/** A started (or found again) run. */
export const RunCreated = z.object({
  run_id: z.string(),
  workflow_id: z.string(),
  run_dir: z.string(),
  /** False when the request (or its folder) named a run that already existed: nothing new was started. */
  created: z.boolean(),
  request_id: z.string().optional(),
});
export type RunCreated = z.infer<typeof RunCreated>;

/** A run in one of these may still change: an event stream follows it, a poller waits for it. */
export const LIVE_STATUSES: readonly string[] = ['starting', 'running', 'paused'];

export const RunView = z.object({
  run_id: z.string(),
  workflow_id: z.string(),
  status: z.string().describe('starting (accepted, its workflow not yet started), running, paused, completed, failed, cancelled, terminated, timed_out'),
  started: z.string(),
  run_dir: z.string().optional(),
  progress: RunProgress.optional(),
  metrics: z.record(z.string(), z.unknown()).optional().describe("the run's metrics.json once finalized (docs/metrics.md)"),
  start_error: z
    .object({ code: z.string(), message: z.string() })
    .optional()
    .describe('why starting its workflow failed: while starting, the last failure (it is tried again); with status failed, why it cannot start'),
  observed_at: z.string().describe('when this status was read: polls share one reading, refreshed in the background once it is --status-cache-ms old'),
});
export type RunView = z.infer<typeof RunView>;

export const RunRow = z.object({
  run: z.string(),
  workflow_id: z.string(),
  status: z.string(),
  env: z.string(),
  agent: z.string(),
  model: z.string(),
  started: z.string(),
  folder: z.string(),
});

export const RunList = z.object({ runs: z.array(RunRow) });
export type RunList = z.infer<typeof RunList>;

/** `GET /v1/runs`'s query: the filters of `gym eval list`. */
export const ListQuery = z.strictObject({
  env: z.string().optional(),
  agent: z.string().optional(),
  model: z.string().optional(),
  status: z.string().optional().describe(RUN_STATUSES.join(', ')),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
});
export type ListQuery = z.infer<typeof ListQuery>;

export const SteerAnswer = z.object({ run_id: z.string(), workflow_id: z.string(), action: z.enum(['cancel', 'pause', 'resume']), sent: z.literal(true) });
export type SteerAnswer = z.infer<typeof SteerAnswer>;

/** Codes the HTTP layer answers with before a request reaches a handler; every other code is a GymError's. */
export const TRANSPORT_CODES = ['UNAUTHORIZED', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE', 'METHOD_NOT_ALLOWED'] as const;

export const ErrorBody = z.object({
  error: z.object({
    code: z.string().describe(`a GymError code (src/errors.ts) or one of ${TRANSPORT_CODES.join(', ')}`),
    message: z.string(),
    /** The request field the error is about, in the body's spelling (e.g. `mock.accuracy`). */
    field: z.string().optional(),
    details: z.array(z.string()).optional(),
  }),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** The events of `GET /v1/runs/:id/events`: progress while it runs, then one `end`. */
export const ProgressEvent = RunProgress;
export const EndEvent = RunView;

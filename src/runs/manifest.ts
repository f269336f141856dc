// A run's manifest: the resolved configuration, the dataset hash and versions, plus an identity
// hash over everything that changes results (concurrency and transport settings excluded). A run
// resumes only with the same identity.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { HistoryPolicy } from '../agents/history-policy';
import { EnvRef } from '../environments/ref';
import { ExportersConfig } from '../exporters/config';
import { ModelSpec, type TargetModelSpec } from '../gateway/spec';
import { FailureClass } from '../schemas/records';
import { OUTPUT_FORMATS } from '../store/nemo-gym-files';
import { MAX_CONCURRENCY, MAX_SHARDS } from '../../workflows/definitions';
import { PACKAGE_ROOT } from '../util/paths';

export { MAX_CONCURRENCY };

export const RunConfig = z.object({
  runId: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'use letters, digits, ".", "_" and "-"'),
  runDir: z.string(),
  /** The run's object store (`--store <root>` names the root; the run's URL is `<root>/<run id>`); not part of its identity. */
  store: z.string().regex(/^s3:\/\//).optional(),
  env: EnvRef,
  inputFile: z.string(),
  model: ModelSpec,
  judgeModel: ModelSpec.optional(),
  numRepeats: z.number().int().min(1),
  limit: z.number().int().min(1).optional(),
  concurrency: z.number().int().min(1).max(MAX_CONCURRENCY),
  shards: z.number().int().min(1).max(MAX_SHARDS),
  /** The task queue the run's work is on: its own by default, so no other run's worker picks it up. */
  taskQueue: z.string().min(1),
  /** The rollout grain's batches on a queue of their own (`--rollout-queue`), played by `gym worker start --role rollouts`. */
  rolloutQueue: z.string().min(1).optional(),
  maxSteps: z.number().int().min(1).optional(),
  /** What of its history the model is shown on each call (`--history-policy`); absent: all of it. */
  historyPolicy: HistoryPolicy.optional(),
  retry: z.object({
    maximumAttempts: z.number().int().min(1),
    initialIntervalMs: z.number().int().min(1),
    maximumIntervalMs: z.number().int().min(1),
    heartbeatTimeoutMs: z.number().int().min(100),
    /** A failure class's own tries and backoff (`--backoff`). */
    byClass: z.partialRecord(FailureClass, z.object({ maximumAttempts: z.number().int().min(1), initialIntervalMs: z.number().int().min(1), maximumIntervalMs: z.number().int().min(1) }).partial()).optional(),
  }),
  /** Failure classes whose sidecar rollouts count as reward 0 in the metrics (metrics only; the records stay in the sidecar). */
  countAsZero: z.array(FailureClass).optional(),
  /** `nemo-gym`: NeMo Gym's files are also written when the run finishes (not part of its identity; may change on resume). */
  outputFormat: z.enum(OUTPUT_FORMATS).optional(),
  stepsPerExecution: z.number().int().min(1).optional(),
  durability: z.enum(['turn', 'rollout']).default('turn'),
  /** Where the finished run is sent (not part of its identity; may change on resume). */
  exporters: ExportersConfig.optional(),
});
export type RunConfig = z.infer<typeof RunConfig>;

export const Manifest = z.object({
  schema_version: z.literal(2),
  run_id: z.string(),
  workflow_id: z.string(),
  created_at: z.string(),
  identity: z.string(),
  dataset_hash: z.string(),
  config: RunConfig,
  versions: z.object({ gymflow: z.string(), node: z.string(), git_revision: z.string().nullable() }),
  /** Identities this run had before `gym eval resume --force` replaced them, oldest first. */
  replaced_identities: z.array(z.object({ identity: z.string(), dataset_hash: z.string(), replaced_at: z.string(), reasons: z.array(z.string()) })).optional(),
  /** How the run's last execution ended, written when it finalizes: completed, or cancelled (rollouts left missing). */
  status: z.enum(['completed', 'cancelled']).optional(),
  status_at: z.string().optional(),
});
export type Manifest = z.infer<typeof Manifest>;

/** Where a model is served and how it is reached: may change between a run and its resume. */
function withoutEndpoint(spec: ModelSpec | TargetModelSpec | undefined): unknown {
  if (spec === undefined || spec.backend === 'mock') return spec ?? null;
  if (spec.backend === 'routed') return { ...spec, targets: Object.fromEntries(Object.entries(spec.targets).map(([name, target]) => [name, withoutEndpoint(target)])) };
  const { base_url: _url, api_key_env: _key, timeouts: _timeouts, endpoint_file: _file, rotation: _rotation, ...rest } = spec;
  return rest;
}

/** How long calls to a remote environment server may take: may change between a run and its resume. */
function withoutRemoteBounds(env: RunConfig['env']): RunConfig['env'] {
  if (!env.remote?.timeouts) return env;
  const { timeouts: _timeouts, ...remote } = env.remote;
  return { ...env, remote };
}

const hash16 = (material: unknown) => createHash('sha256').update(JSON.stringify(material)).digest('hex').slice(0, 16);

/**
 * What must match for a resume: the environment, the model (not its endpoint), the agent settings and
 * the data. Concurrency, shards, task queue, retries and endpoints may change.
 */
export function runIdentity(config: RunConfig, datasetHash: string): string {
  const { model, judgeModel, numRepeats, limit, maxSteps } = config;
  return hash16({ env: withoutRemoteBounds(config.env), model: withoutEndpoint(model), judgeModel: withoutEndpoint(judgeModel), numRepeats, limit: limit ?? null, maxSteps: maxSteps ?? null, ...historyPolicyOf(config), datasetHash });
}

/** The identity as manifests written before endpoints were excluded hold it (the whole model spec). */
function endpointBoundIdentity(config: RunConfig, datasetHash: string): string {
  const { env, model, judgeModel, numRepeats, limit, maxSteps } = config;
  return hash16({ env, model, judgeModel: judgeModel ?? null, numRepeats, limit: limit ?? null, maxSteps: maxSteps ?? null, ...historyPolicyOf(config), datasetHash });
}

/** Hashed only when set, so the identities of runs without a history policy stay what they were. */
function historyPolicyOf(config: RunConfig): { historyPolicy?: HistoryPolicy } {
  return config.historyPolicy ? { historyPolicy: config.historyPolicy } : {};
}

/** Whether a stored identity is this configuration's, in either way it has been computed. */
export function identityMatches(stored: string, config: RunConfig, datasetHash: string): boolean {
  return stored === runIdentity(config, datasetHash) || stored === endpointBoundIdentity(config, datasetHash);
}

/**
 * Why resuming `manifest` would not continue the same run: its recorded configuration no longer hashes
 * to its identity (the file was edited), its dataset changed, or Temporal's run of that id has another
 * identity. Empty when it is the same run.
 */
export function identityDifferences(manifest: Manifest, now: { datasetHash?: string; datasetError?: string; workflowIdentity?: string }): string[] {
  const out: string[] = [];
  const { config } = manifest;
  if (!identityMatches(manifest.identity, config, manifest.dataset_hash)) {
    out.push(`the configuration in manifest.json (environment, model, agent settings) is not the one the run started with: it hashes to ${runIdentity(config, manifest.dataset_hash)}, the run's identity is ${manifest.identity}`);
  }
  if (now.datasetError) out.push(`the dataset cannot be checked: ${now.datasetError}`);
  else if (now.datasetHash !== undefined && now.datasetHash !== manifest.dataset_hash) {
    out.push(`the dataset ${config.inputFile} changed since the run started (sha256 ${manifest.dataset_hash.slice(0, 12)}…, now ${now.datasetHash.slice(0, 12)}…)`);
  }
  if (now.workflowIdentity !== undefined && now.workflowIdentity !== manifest.identity) {
    out.push(`Temporal's workflow ${manifest.workflow_id} ran with identity ${now.workflowIdentity}, this folder's manifest says ${manifest.identity}`);
  }
  return out;
}

let revision: string | null | undefined;

/** Asked once per process: a long-lived client (the trigger API) would otherwise spawn git, blocking, per run. */
function gitRevision(): string | null {
  if (revision !== undefined) return revision;
  try {
    revision = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: PACKAGE_ROOT, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  } catch {
    revision = null;
  }
  return revision;
}

function gymflowVersion(): string {
  return (JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * A run's id: the folder's name plus a hash of its absolute path, so two folders that share a name are
 * two runs (and two workflows), never one.
 */
export function defaultRunId(runDir: string): string {
  const base = path.basename(runDir).replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[^A-Za-z0-9]+/, '') || 'run';
  return `${base}-${createHash('sha256').update(path.resolve(runDir)).digest('hex').slice(0, 8)}`;
}

/** The task queue of a run that was not pointed at a shared worker pool. */
export function runTaskQueue(runId: string): string {
  return `gymflow-run-${runId}`;
}

export function buildManifest(config: RunConfig, workflowId: string, datasetHash: string): Manifest {
  return {
    schema_version: 2,
    run_id: config.runId,
    workflow_id: workflowId,
    created_at: new Date().toISOString(),
    identity: runIdentity(config, datasetHash),
    dataset_hash: datasetHash,
    config,
    versions: { gymflow: gymflowVersion(), node: process.version, git_revision: gitRevision() },
  };
}

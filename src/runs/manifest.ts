// A run's manifest: the resolved configuration, the dataset hash and versions, plus an identity
// hash over everything that changes results (concurrency and transport settings excluded). A run
// resumes only with the same identity.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { EnvRef } from '../environments/ref';
import { ExportersConfig } from '../exporters/config';
import { ModelSpec } from '../gateway/spec';
import { MAX_CONCURRENCY, MAX_SHARDS } from '../../workflows/definitions';
import { PACKAGE_ROOT } from '../util/paths';

export { MAX_CONCURRENCY };

export const RunConfig = z.object({
  runId: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'use letters, digits, ".", "_" and "-"'),
  runDir: z.string(),
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
  maxSteps: z.number().int().min(1).optional(),
  retry: z.object({ maximumAttempts: z.number().int().min(1), initialIntervalMs: z.number().int().min(1), maximumIntervalMs: z.number().int().min(1), heartbeatTimeoutMs: z.number().int().min(100) }),
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
});
export type Manifest = z.infer<typeof Manifest>;

/** What must match for a resume: the environment, the model, the agent settings and the data. */
export function runIdentity(config: RunConfig, datasetHash: string): string {
  const { env, model, judgeModel, numRepeats, limit, maxSteps } = config;
  const material = JSON.stringify({ env, model, judgeModel: judgeModel ?? null, numRepeats, limit: limit ?? null, maxSteps: maxSteps ?? null, datasetHash });
  return createHash('sha256').update(material).digest('hex').slice(0, 16);
}

function gitRevision(): string | null {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: PACKAGE_ROOT, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  } catch {
    return null;
  }
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

// The client side of a run: prepare its folder and manifest, start (or re-attach to) its workflow,
// and find runs again by id or folder. Used by the CLI and by other services in-process.
import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { WorkflowIdConflictPolicy } from '@temporalio/common';
import { WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import { GymError } from '../errors';
import { envLabel } from '../environments/ref';
import { RunStore } from '../store/run-store';
import { loadTasks } from '../tasks/load';
import { AGENT_NAME, ENV_NAME, MODEL_NAME, RUN_ID, RUN_STATUS } from '../temporal/search-attributes';
import { runStateQuery, runWorkflowId, shardProgressQuery, type RolloutSelection, type RunInput, type RunProgress, type RunResult } from '../../workflows/definitions';
import type { evalRunWorkflow } from '../../workflows/run';
import { Manifest, buildManifest, identityDifferences, identityMatches, runIdentity, type RunConfig } from './manifest';
import { clearOutdatedReports } from './output-dir';
import { RunInput as RunInputSchema } from './run-input';
import { lazyImport } from '../util/lazy-import';

export interface PreparedRun {
  manifest: Manifest;
  /** True when the folder already held this run (same identity): the run resumes. */
  resumed: boolean;
}

/**
 * Loaded on demand: the registry imports every environment, which a command that only reads or steers a
 * run (status, list, pause) should not pay for at start-up.
 */
const environmentRegistry = lazyImport(() => import('../environments/registry'));

async function environmentOf(config: RunConfig) {
  return (await environmentRegistry()).resolveEnvironment(config.env);
}

/**
 * Input files this process has found valid, by the file's identity on disk (inode, size, change times) and what
 * it was checked as: a long-lived process (the trigger API) sent one dataset again and again checks it once.
 */
const validInputs = new Map<string, string>();
const VALID_INPUTS_KEPT = 64;

/** Validates every input row against the environment; returns the dataset hash. */
export async function validateRunInput(config: RunConfig): Promise<string> {
  const env = await environmentOf(config);
  // statSync: a few microseconds, where a stat through the thread pool costs the event loop far more.
  let st;
  try {
    st = statSync(config.inputFile);
  } catch {
    // loadTasks says what is wrong with the file.
  }
  const seen = st && JSON.stringify([path.resolve(config.inputFile), st.dev, st.ino, st.size, st.mtimeMs, st.ctimeMs, config.env, config.limit ?? null]);
  const known = seen === undefined ? undefined : validInputs.get(seen);
  if (known !== undefined) return known;
  const { datasetHash } = await loadTasks(config.inputFile, env, config.limit);
  if (seen !== undefined) {
    validInputs.set(seen, datasetHash);
    if (validInputs.size > VALID_INPUTS_KEPT) validInputs.delete(validInputs.keys().next().value!);
  }
  return datasetHash;
}

/** Writes the manifest; refuses a folder that holds a different run. */
export async function prepareRun(config: RunConfig, datasetHash: string): Promise<PreparedRun> {
  const store = new RunStore(config.runDir);
  const fresh = buildManifest(config, runWorkflowId(config.runId), datasetHash);
  const existing = await readManifest(config.runDir);
  if (existing) {
    const conflict = folderConflict(existing, fresh, config, datasetHash);
    if (conflict) throw conflict;
    // Concurrency, transport, retries, endpoints and exporters may change on resume; the identity may not.
    const { concurrency, shards, taskQueue, rolloutQueue, retry, model, judgeModel, exporters, countAsZero, outputFormat } = config;
    const manifest = { ...existing, config: { ...existing.config, concurrency, shards, taskQueue, rolloutQueue, retry, model, judgeModel, exporters, countAsZero, outputFormat } };
    await store.writeJson(store.manifestPath, manifest);
    return { manifest, resumed: true };
  }
  await store.init();
  await clearOutdatedReports(config.runDir);
  await store.writeJson(store.manifestPath, fresh);
  return { manifest: fresh, resumed: false };
}

/** Why a run folder cannot take this run (it holds another), or undefined when it is this run's own. */
function folderConflict(existing: Manifest, fresh: Manifest, config: RunConfig, datasetHash: string): GymError | undefined {
  if (!identityMatches(existing.identity, config, datasetHash)) {
    return new GymError(
      'CONFLICT',
      `${config.runDir} holds run "${existing.run_id}" with a different configuration or dataset (identity ${existing.identity}, now ${fresh.identity}); ` +
        'choose another --output folder, or resume it with `gym eval resume`',
    );
  }
  if (existing.workflow_id !== fresh.workflow_id) {
    return new GymError('CONFLICT', `${config.runDir} holds run "${existing.run_id}"; resume it with \`gym eval resume ${config.runDir}\` (not as run "${config.runId}")`);
  }
  // The results so far are where the run keeps them: a resume that names another place would play them again.
  if (existing.config.store !== config.store) {
    return new GymError(
      'CONFLICT',
      existing.config.store
        ? `${config.runDir} holds run "${existing.run_id}", whose files are in ${existing.config.store}: resume it with the same --store (or \`gym eval resume ${config.runDir}\`)`
        : `${config.runDir} holds run "${existing.run_id}", whose files are in this folder: resume it without --store`,
    );
  }
  return undefined;
}

/** Refuses a run whose folder holds another run, as prepareRun would, without writing anything. */
export async function checkRunFolder(config: RunConfig, datasetHash: string): Promise<void> {
  // A fresh folder, the usual case, is known by one stat (the trigger API checks one per request).
  if (!existsSync(path.join(config.runDir, 'manifest.json'))) return;
  const existing = await readManifest(config.runDir);
  const conflict = existing && folderConflict(existing, buildManifest(config, runWorkflowId(config.runId), datasetHash), config, datasetHash);
  if (conflict) throw conflict;
}

export async function readManifest(runDir: string): Promise<Manifest | undefined> {
  const raw = await new RunStore(runDir).readJson<unknown>(path.join(runDir, 'manifest.json'));
  if (raw === undefined) return undefined;
  const parsed = Manifest.safeParse(raw);
  if (!parsed.success) throw new GymError('BAD_INPUT', `${runDir}/manifest.json is not a Gymflow manifest: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

/** Made once: zod compiles a schema's parser on its first use, and `.strip()` makes a new schema. */
const StrippedRunInput = RunInputSchema.strip();

export function runInput(config: RunConfig): RunInput {
  return StrippedRunInput.parse(config);
}

/** What the memo of a run's workflow execution says: its folder, identity, and whether it is a retry. */
export interface RunMemo {
  runDir?: string;
  identity?: string;
  /** Set on an execution of `gym eval retry-failures`: how many sidecar rollouts it plays again. */
  retry?: { rollouts: number; classes: string[] };
}

/** Temporal's limit on a keyword search attribute's value: its JSON payload, in UTF-8 bytes. */
const KEYWORD_LIMIT = 2048;
const payloadBytes = (value: string) => Buffer.byteLength(JSON.stringify(value));

/**
 * A search attribute value Temporal accepts: one over its 2,048-byte limit (an environment's settings can
 * carry a whole judge prompt) is cut, ending in a hash of the whole value so distinct values stay distinct.
 */
export function keywordValue(value: string): string {
  if (payloadBytes(value) <= KEYWORD_LIMIT) return value;
  const tail = `…#${createHash('sha256').update(value).digest('hex').slice(0, 16)}`;
  let head = '';
  for (const ch of value) {
    if (payloadBytes(head + ch + tail) > KEYWORD_LIMIT) break;
    head += ch;
  }
  return head + tail;
}

/**
 * Starts the run's workflow, or attaches to it when it is already running — only if that workflow is
 * this folder's run: a workflow of the same id writing elsewhere is refused. With `retry`, the new
 * execution plays only that selection (sidecar rollouts, as new attempts).
 */
export async function startRun(
  client: Client,
  manifest: Manifest,
  retry?: { only: RolloutSelection; classes: string[] },
): Promise<WorkflowHandle<typeof evalRunWorkflow>> {
  const config = manifest.config;
  if (config.store) await (await import('../store/object/publish')).publishRun(config.store, config.runDir, config.inputFile);
  const model = config.model.backend === 'mock' ? `mock:${config.model.env}` : `${config.model.backend}:${config.model.model}`;
  const handle = await client.workflow.start<typeof evalRunWorkflow>('evalRunWorkflow', {
    taskQueue: config.taskQueue,
    workflowId: manifest.workflow_id,
    args: [retry ? { ...runInput(config), only: retry.only } : runInput(config)],
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    typedSearchAttributes: [
      { key: RUN_ID, value: config.runId },
      { key: ENV_NAME, value: keywordValue(envLabel(config.env)) },
      { key: AGENT_NAME, value: (await environmentOf(config)).agent ?? 'simple_agent' },
      { key: MODEL_NAME, value: keywordValue(model) },
      { key: RUN_STATUS, value: 'running' },
    ],
    memo: { runDir: config.runDir, identity: manifest.identity, ...(retry ? { retry: { rollouts: retry.only.ordinals.length, classes: retry.classes } } : {}) } satisfies RunMemo,
  });
  const memo = (await handle.describe()).memo as RunMemo | undefined;
  if (memo?.runDir !== undefined && path.resolve(memo.runDir) !== path.resolve(config.runDir)) {
    throw new GymError('CONFLICT', `workflow ${manifest.workflow_id} is already running for ${memo.runDir}, not ${config.runDir}; choose another --run-id`);
  }
  if (memo?.identity !== undefined && memo.identity !== manifest.identity) {
    throw new GymError('CONFLICT', `workflow ${manifest.workflow_id} is running with identity ${memo.identity}, not ${manifest.identity}; a running workflow keeps its input: cancel it (\`gym eval cancel\`) before resuming with another configuration`);
  }
  return handle;
}

/** The identity Temporal's latest execution of the run was started with, if any is known. */
async function workflowIdentity(client: Client, workflowId: string): Promise<string | undefined> {
  try {
    return ((await client.workflow.getHandle(workflowId).describe()).memo as { identity?: string } | undefined)?.identity;
  } catch (e) {
    if (e instanceof WorkflowNotFoundError) return undefined;
    throw e;
  }
}

/**
 * Checks that resuming continues the same run (see identityDifferences). Refuses with every reason,
 * unless `force`: then the manifest takes the configuration's identity and the dataset's hash now,
 * keeping the replaced ones, and the run continues under them.
 */
export async function checkResumeIdentity(client: Client, manifest: Manifest, opts: { force?: boolean } = {}): Promise<{ manifest: Manifest; differences: string[] }> {
  let datasetHash: string | undefined;
  let datasetError: string | undefined;
  try {
    datasetHash = await validateRunInput(manifest.config);
  } catch (e) {
    if (!(e instanceof GymError)) throw e;
    datasetError = e.message;
  }
  const differences = identityDifferences(manifest, { datasetHash, datasetError, workflowIdentity: await workflowIdentity(client, manifest.workflow_id) });
  if (!differences.length) return { manifest, differences };
  if (!opts.force) {
    throw new GymError('CONFLICT', `${manifest.config.runDir} would not resume the same run; pass --force to resume it anyway under the new identity`, differences);
  }
  const dataset = datasetHash ?? manifest.dataset_hash;
  const forced: Manifest = {
    ...manifest,
    identity: runIdentity(manifest.config, dataset),
    dataset_hash: dataset,
    replaced_identities: [...(manifest.replaced_identities ?? []), { identity: manifest.identity, dataset_hash: manifest.dataset_hash, replaced_at: new Date().toISOString(), reasons: differences }],
  };
  const store = new RunStore(manifest.config.runDir);
  await store.writeJson(store.manifestPath, forced);
  return { manifest: forced, differences };
}

/** The status of a run's latest workflow execution, or undefined when Temporal has none. */
export async function runStatus(client: Client, workflowId: string): Promise<string | undefined> {
  try {
    return (await client.workflow.getHandle(workflowId).describe()).status.name;
  } catch (e) {
    if (e instanceof WorkflowNotFoundError) return undefined;
    throw e;
  }
}

/** A run named by its folder (holding manifest.json) or by its run id. */
export async function resolveRun(ref: string): Promise<{ workflowId: string; manifest?: Manifest }> {
  if (existsSync(path.join(ref, 'manifest.json'))) {
    const manifest = (await readManifest(ref))!;
    return { workflowId: manifest.workflow_id, manifest };
  }
  return { workflowId: runWorkflowId(ref) };
}

/**
 * How long a progress query may wait. A query is answered only by a polling worker: with none (every
 * worker of an interrupted run gone) the server holds it until the RPC's own deadline, tens of seconds.
 */
export const PROGRESS_QUERY_MS = 5_000;

/** Live progress: the run's own state plus the counts of each shard still running; undefined when no worker answers in time. */
export async function queryProgress(handle: WorkflowHandle, timeoutMs = PROGRESS_QUERY_MS, signal?: AbortSignal): Promise<RunProgress | undefined> {
  const deadline = Date.now() + timeoutMs;
  const within = <T>(fn: () => Promise<T>) => handle.client.withDeadline(deadline, signal ? () => handle.client.withAbortSignal(signal, fn) : fn);
  let state;
  try {
    state = await within(() => handle.query(runStateQuery));
  } catch {
    return undefined;
  }
  let done = 0;
  let failed = 0;
  let rewardSum = 0;
  let inFlight = 0;
  await Promise.all(
    state.shardIds.map(async (id) => {
      const counts = state.finished[id] ?? (await within(() => handle.client.getHandle(id).query(shardProgressQuery)).catch(() => undefined));
      if (!counts) return;
      done += counts.done;
      failed += counts.failed;
      rewardSum += counts.rewardSum;
      inFlight += 'inFlight' in counts ? (counts.inFlight as number) : 0;
    }),
  );
  return { phase: state.phase, total: state.total, done, failed, inFlight, concurrency: state.concurrency, paused: state.paused, stopping: state.stopping, meanReward: done ? rewardSum / done : null };
}

export type { RunResult };

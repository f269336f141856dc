// A POST /v1/runs body turned into a run's configuration by the same code as `gym eval run` (its config
// file's settings → its flags → buildRunConfig, or a NeMo Gym configuration routed as `--config` routes it),
// plus what the API alone decides: the folder, the queue, and which of its host's variables a run may read.
import { randomUUID, createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { GymError } from '../errors';
import { isSecretName } from '../util/secrets';
import { buildRunConfig, EVAL_RUN_FLAG_NAMES, routedRunConfig } from '../cli/commands/eval-run';
import { resolveConfigRun } from '../routing/from-config';
import { configToFlags, settingOfFlag } from '../cli/config-file';
import type { RunConfig } from '../runs/manifest';
import { missingFolders } from '../runs/output-dir';
import { fieldError, type FieldError } from './errors';
import type { RunRequest } from './schemas';

export interface ApiPolicy {
  /** Every run folder lies inside it. */
  runsDir: string;
  /** The task queue of every run the API starts: the one its worker (or a pool) polls. */
  taskQueue: string;
  /** Environment variables a run may name for a secret: a request could otherwise send any of the host's to a URL it chooses. */
  allowedSecretEnv: ReadonlySet<string>;
}

/**
 * A GymError about a flag, said in the request's terms: `--mock-accuracy must be …` becomes
 * `mock.accuracy must be …` with that field, and the CLI's usage text is dropped.
 */
export function inRequestTerms(e: GymError): FieldError {
  let field: string | undefined;
  const message = e.message.split('\n\n')[0]!.replace(/--([a-z][a-z-]*)/g, (_, flag: string) => {
    const setting = settingOfFlag(flag);
    field ??= setting;
    return setting;
  });
  return field === undefined ? new GymError(e.code, message, e.details) : fieldError(e.code, message, field);
}

function folderName(req: RunRequest, requestId: string | undefined): string {
  if (req.run_id) return req.run_id;
  // A hash, so any request id makes a valid, fixed folder name.
  if (requestId) return `request-${createHash('sha256').update(requestId).digest('hex').slice(0, 16)}`;
  return `run-${randomUUID()}`;
}

/** The run folder: `output` resolved inside the runs folder, refused when it would leave it. */
function runFolder(req: RunRequest, requestId: string | undefined, runsDir: string): string {
  const root = path.resolve(runsDir);
  const dir = path.resolve(root, req.output ?? folderName(req, requestId));
  const rel = path.relative(root, dir);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) {
    throw fieldError('BAD_INPUT', `output must be a folder inside the API's runs folder ${root}, got ${JSON.stringify(req.output)}`, 'output');
  }
  return dir;
}

/** Refuses a secret named by a variable the API was not started to lend to runs. */
function checkSecrets(config: RunConfig, allowed: ReadonlySet<string>): void {
  const named: [string, string | undefined][] = [
    ['openai.api_key_env', config.model.backend === 'openai' ? config.model.api_key_env : undefined],
    ['openai.api_key_env', config.judgeModel?.backend === 'openai' ? config.judgeModel.api_key_env : undefined],
    ['exporters.mlflow.token_env', config.exporters?.mlflow?.token_env],
    ['exporters.wandb.api_key_env', config.exporters?.wandb?.mode === 'online' ? config.exporters.wandb.api_key_env : undefined],
  ];
  for (const [field, name] of named) {
    if (name !== undefined && !allowed.has(name)) {
      throw fieldError('BAD_INPUT', `${field}: this API does not lend ${name} to runs; start gym api serve with --allow-secret-env ${name} to allow it`, field);
    }
  }
}

/** A run the API will start: its configuration, and for a configured run its routed rows and their hash. */
export interface PlannedRun {
  config: RunConfig;
  /** The routed rows, written into the run folder once it is prepared (a run from config_paths). */
  materialized?: string[];
  datasetHash?: string;
  /** The run folder does not exist yet (its check found so): it holds no other run. */
  folderMissing: boolean;
}

/** What only a run from a NeMo Gym configuration takes. */
const CONFIG_FIELDS = ['config_paths', 'overrides', 'split', 'agent_name', 'agent_type', 'allow_unsupported_pairing'] as const;

/**
 * A request is kept whole in the request ledger (to start its run again after a restart), so a key must come
 * by reference: an override that writes a secret-named setting must be an interpolation (`${env:VAR}`, VAR
 * lent by --allow-secret-env), never the key itself.
 */
function inlineSecretProblem(overrides: readonly string[]): void {
  overrides.forEach((override, i) => {
    const eq = override.indexOf('=');
    if (eq < 0) return;
    const keyPath = override.slice(0, eq).replace(/^\+{1,2}/, '');
    const value = override.slice(eq + 1).trim();
    if (!isSecretName(keyPath.split('.').at(-1) ?? '') || value === '' || value === 'null' || /^\$\{[^}]+\}$/.test(value)) return;
    throw fieldError(
      'BAD_INPUT',
      `overrides[${i}] sets ${keyPath} to a value: a request passes a key by reference (${keyPath}=\${env:VAR}, with VAR allowed by --allow-secret-env), never inline, since requests are kept in the request ledger`,
      'overrides',
    );
  });
}

/** The configuration `gym eval run` would build from the same settings; validation errors name the request's field. */
export async function runFromRequest(req: RunRequest, requestId: string | undefined, policy: ApiPolicy, warn: (message: string) => void): Promise<PlannedRun> {
  const { request_id: _id, output: _output, config_paths: files, overrides, split, agent_name: agent, agent_type: agentType, allow_unsupported_pairing: allow, ...settings } = req;
  if (files === undefined) {
    const stray = CONFIG_FIELDS.find((f) => req[f] !== undefined);
    if (stray) throw fieldError('BAD_INPUT', `${stray} goes with config_paths (a NeMo Gym configuration)`, stray);
  }
  inlineSecretProblem(overrides ?? []);
  const inTerms = <T>(build: () => T): T => {
    try {
      return build();
    } catch (e) {
      if (e instanceof GymError && !('field' in e)) throw inRequestTerms(e);
      throw e;
    }
  };
  const flags = inTerms(() => ({ ...configToFlags(settings, EVAL_RUN_FLAG_NAMES, 'request'), output: runFolder(req, requestId, policy.runsDir), 'task-queue': policy.taskQueue }));
  let planned: Omit<PlannedRun, 'folderMissing'>;
  if (files === undefined) planned = { config: inTerms(() => buildRunConfig(flags, warn)) };
  else {
    // The configuration reads no variable of the API's host but those it lends to runs: a request must
    // not put the host's other secrets into a URL or a prompt it chooses.
    const lent = Object.fromEntries([...policy.allowedSecretEnv].map((name) => [name, process.env[name]]));
    // Its refusal (every problem at once) reads as `gym eval run --config` says it.
    // Nor the host's env.yaml (NeMo Gym's place for the operator's own keys and endpoints).
    const run = await resolveConfigRun({
      files,
      overrides: overrides ?? [],
      envYaml: os.devNull,
      input: req.input,
      split,
      agent,
      agentType,
      allowUnsupportedPairing: !!allow,
      limit: req.limit,
      numRepeats: req.num_repeats,
      cwd: process.cwd(),
      env: lent,
    });
    for (const w of run.warnings) warn(w);
    planned = { config: inTerms(() => routedRunConfig(run, flags, warn).config), materialized: run.lines, datasetHash: run.datasetHash };
  }
  checkSecrets(planned.config, policy.allowedSecretEnv);
  // Checked, not made: the folder is made when the run starts, after the answer (the runs folder was proven
  // writable when the API started).
  try {
    return { ...planned, folderMissing: missingFolders(planned.config.runDir).includes(planned.config.runDir) };
  } catch (e) {
    if (!(e instanceof GymError)) throw e;
    // The folder is named by output, or else by run_id.
    const field = req.output === undefined && req.run_id !== undefined ? 'run_id' : 'output';
    throw fieldError(e.code, e.message.replace('--output', field === 'output' ? 'output' : 'the folder of run_id'), field);
  }
}

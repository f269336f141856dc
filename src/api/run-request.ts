// A POST /v1/runs body turned into a run's configuration by the same code as `gym eval run` (its config
// file's settings → its flags → buildRunConfig), plus what the API alone decides: the folder and the queue.
import { randomUUID, createHash } from 'node:crypto';
import path from 'node:path';
import { GymError } from '../errors';
import { buildRunConfig, EVAL_RUN_FLAG_NAMES } from '../cli/commands/eval-run';
import { configToFlags, settingOfFlag } from '../cli/config-file';
import type { RunConfig } from '../runs/manifest';
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

/** The configuration `gym eval run` would build from the same settings; validation errors name the request's field. */
export function runConfigFromRequest(req: RunRequest, requestId: string | undefined, policy: ApiPolicy, warn: (message: string) => void): RunConfig {
  const { request_id: _id, output: _output, ...settings } = req;
  let config: RunConfig;
  try {
    const flags = configToFlags(settings, EVAL_RUN_FLAG_NAMES, 'request');
    config = buildRunConfig({ ...flags, output: runFolder(req, requestId, policy.runsDir), 'task-queue': policy.taskQueue }, warn);
  } catch (e) {
    if (e instanceof GymError && !('field' in e)) throw inRequestTerms(e);
    throw e;
  }
  checkSecrets(config, policy.allowedSecretEnv);
  return config;
}

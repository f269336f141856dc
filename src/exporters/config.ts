// Which exporters a run sends its results to, defined once as zod schemas, and how the command line and the
// eval YAML's `exporters:` section spell them. Secrets are named by environment variable, never given.
import { z } from 'zod';
import { GymError } from '../errors';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** The name of the environment variable holding a secret; the secret itself never enters a run's records. */
const SecretEnv = z.string().regex(ENV_NAME, 'give the name of an environment variable that holds the secret, not the secret');

export const MlflowConfig = z.strictObject({
  tracking_uri: z.url({ protocol: /^https?$/, error: 'an http(s) URL of the MLflow tracking server' }),
  experiment: z.string().min(1).default('gymflow'),
  /** Defaults to the run id. */
  run_name: z.string().min(1).optional(),
  /** Sent as `Authorization: Bearer …`, like MLFLOW_TRACKING_TOKEN for MLflow's own client. */
  token_env: SecretEnv.optional(),
});
export type MlflowConfig = z.infer<typeof MlflowConfig>;

export const WandbConfig = z.strictObject({
  project: z.string().min(1).default('gymflow'),
  entity: z.string().min(1).optional(),
  /** Defaults to the run id. */
  name: z.string().min(1).optional(),
  /** offline writes `wandb/offline-run-*` in the run folder for `wandb sync`; online uploads with the key. */
  mode: z.enum(['offline', 'online']).default('offline'),
  api_key_env: SecretEnv.default('WANDB_API_KEY'),
  /** A Python with the `wandb` package (default: the venv made by scripts/setup-exporters.sh). */
  python: z.string().min(1).optional(),
});
export type WandbConfig = z.infer<typeof WandbConfig>;

export const ExportersConfig = z.strictObject({
  /** Send rollouts.jsonl too (it can be large); metrics, failures and settings always go. NeMo Gym's default. */
  upload_rollouts: z.boolean().default(true),
  mlflow: MlflowConfig.optional(),
  wandb: WandbConfig.optional(),
});
export type ExportersConfig = z.infer<typeof ExportersConfig>;
export type ExporterName = 'mlflow' | 'wandb';

/** Each exporter setting's flag; the eval YAML nests the same keys under `exporters:`. */
export const EXPORTER_KEYS = {
  upload_rollouts: 'upload-rollouts',
  upload_rollouts_to_wandb: 'upload-rollouts-to-wandb',
  mlflow: { tracking_uri: 'mlflow-tracking-uri', experiment: 'mlflow-experiment', run_name: 'mlflow-run-name', token_env: 'mlflow-token-env' },
  wandb: { project: 'wandb-project', entity: 'wandb-entity', name: 'wandb-name', mode: 'wandb-mode', api_key_env: 'wandb-api-key-env', python: 'wandb-python' },
} as const;

export const EXPORTER_FLAGS = {
  'upload-rollouts': { type: 'string' },
  'upload-rollouts-to-wandb': { type: 'string' },
  'mlflow-tracking-uri': { type: 'string' },
  'mlflow-experiment': { type: 'string' },
  'mlflow-run-name': { type: 'string' },
  'mlflow-token-env': { type: 'string' },
  'wandb-project': { type: 'string' },
  'wandb-entity': { type: 'string' },
  'wandb-name': { type: 'string' },
  'wandb-mode': { type: 'string' },
  'wandb-api-key-env': { type: 'string' },
  'wandb-python': { type: 'string' },
} as const;

export const EXPORTERS_USAGE = `exporters:     --mlflow-tracking-uri URL [--mlflow-experiment NAME --mlflow-run-name NAME --mlflow-token-env VAR]
               --wandb-project P [--wandb-entity E --wandb-name N --wandb-mode offline|online --wandb-api-key-env VAR --wandb-python PY]
               --upload-rollouts true|false (default true); see docs/exporters.md`;

export const DEPRECATED_UPLOAD_ROLLOUTS = '`upload_rollouts_to_wandb` is deprecated: use `upload_rollouts`, which applies to every exporter';

function booleanSetting(raw: unknown, flag: string): boolean {
  if (typeof raw === 'boolean') return raw;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  throw new GymError('BAD_FLAG', `--${flag} must be true or false, got ${JSON.stringify(raw)}`);
}

/**
 * The exporters the flags (or the YAML they came from) ask for; undefined when none is. The deprecated
 * `upload_rollouts_to_wandb` is honoured, unless `upload_rollouts` is given too, with one warning.
 */
export function exportersFromFlags(values: Record<string, unknown>, warn: (message: string) => void): ExportersConfig | undefined {
  const group = (keys: Record<string, string>) => {
    const out = Object.fromEntries(Object.entries(keys).flatMap(([key, flag]) => (values[flag] === undefined ? [] : [[key, values[flag]]])));
    return Object.keys(out).length ? out : undefined;
  };
  let upload: boolean | undefined;
  if (values['upload-rollouts-to-wandb'] !== undefined) {
    warn(DEPRECATED_UPLOAD_ROLLOUTS);
    upload = booleanSetting(values['upload-rollouts-to-wandb'], 'upload-rollouts-to-wandb');
  }
  if (values['upload-rollouts'] !== undefined) upload = booleanSetting(values['upload-rollouts'], 'upload-rollouts');
  const mlflow = group(EXPORTER_KEYS.mlflow);
  const wandb = group(EXPORTER_KEYS.wandb);
  if (!mlflow && !wandb) return undefined;
  const parsed = ExportersConfig.safeParse({ upload_rollouts: upload, mlflow, wandb });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const [exporter, key] = issue.path as [keyof typeof EXPORTER_KEYS, string];
    const keys = EXPORTER_KEYS[exporter];
    const flag = typeof keys === 'object' ? (keys as Record<string, string>)[key] : keys;
    throw new GymError('BAD_FLAG', `--${flag ?? issue.path.join('.')}: ${issue.message}`);
  }
  return parsed.data;
}

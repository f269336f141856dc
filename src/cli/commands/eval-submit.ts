// `gym eval submit`: a run prepared as `gym eval run` prepares it, and a Slurm job that serves its model
// with vLLM replicas, runs its workers and queues its own successor until the run is done.
import { appendFile, chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { GymError } from '../../errors';
import { prepareRun, validateRunInput } from '../../runs/client';
import { temporalSettingsFromEnv } from '../../temporal/connection';
import { PACKAGE_ROOT } from '../../util/paths';
import { jobScript, jobOutputPattern } from '../../slurm/script';
import { liveJobs, sbatch } from '../../slurm/sbatch';
import { ENV_NAME, ENV_NAME_RULE, SlurmJob, type SlurmJobInput } from '../../slurm/spec';
import { intFlag, keyValueFlag, parseFlags, requireFlag } from '../args';
import { readConfigFile } from '../config-file';
import { GATE_FLAGS } from '../gate';
import { EVAL_RUN_FLAGS, EVAL_RUN_FLAG_NAMES, buildRunConfig } from './eval-run';
import { isNemoGymConfigFile } from './eval-run-config';
import { checkOutputDir } from '../../runs/output-dir';

export const EVAL_SUBMIT_USAGE = `usage: gym eval submit --env <name> --model vllm --model-name NAME --input <tasks.jsonl> --output <dir> [run options] [job options]
  prepares the run (as gym eval run does) and submits a Slurm job that serves the model with vLLM replicas,
  publishes them in <output>/slurm/endpoints, runs workers, follows the run to its end, and near its time limit
  queues a successor job that resumes it (docs/slurm.md). Run options are gym eval run's (see gym eval run --help).
  TEMPORAL_ADDRESS must name a Temporal server the compute nodes reach.

  --dry-run                  print the job script; prepare and submit nothing
  --nodes N                  nodes of the job (default 1); each serves --replicas-per-node replicas
  --replicas-per-node R      vLLM replicas on each node (default 1)
  --gpus-per-replica G       GPUs of one replica, its tensor parallel size (default 1; 0: none)
  --gpus-per-node G          GPUs asked of each node (default R × G)
  --cpus-per-node C          CPUs asked of each node (--cpus-per-task)
  --mem SIZE                 memory of each node, e.g. 200G
  --time T                   the job's time limit (default 04:00:00): minutes, HH:MM:SS or D-HH:MM:SS
  --partition P  --account A  --qos Q
  --sbatch-arg=OPT           another #SBATCH option, e.g. --sbatch-arg=--constraint=h100 (repeatable)
  --signal-lead S            seconds before the time limit to queue the successor and stop (default 300)
  --max-jobs N               jobs the chain may have in all (default 20)
  --job-name NAME            (default gym-<run id>)
  --vllm-model M             what vllm serve loads (default --model-name): a Hugging Face id or a path
  --vllm-command CMD         the vLLM executable on the nodes (default vllm)
  --vllm-arg=ARG             another vllm serve argument, e.g. --vllm-arg=--max-model-len=32768 (repeatable)
  --vllm-port P              the first replica's port on a node (default 8000; the next take P+1, …)
  --vllm-startup-timeout S   seconds to wait for the replicas to answer (default 1800)
  --container-image I        run vLLM in this container through pyxis (srun --container-image)
  --container-mount SRC:DST  a container mount (repeatable)
  --job-env KEY=VALUE        exported to the job's processes (repeatable; not for secrets: the job inherits
                             the environment sbatch runs in, so export keys there)
  --workers W                gym worker processes on the first node (default 1)`;

const SUBMIT_FLAGS = {
  ...EVAL_RUN_FLAGS,
  nodes: { type: 'string' },
  'replicas-per-node': { type: 'string' },
  'gpus-per-replica': { type: 'string' },
  'gpus-per-node': { type: 'string' },
  'cpus-per-node': { type: 'string' },
  mem: { type: 'string' },
  time: { type: 'string' },
  partition: { type: 'string' },
  account: { type: 'string' },
  qos: { type: 'string' },
  'sbatch-arg': { type: 'string', multiple: true },
  'signal-lead': { type: 'string' },
  'max-jobs': { type: 'string' },
  'job-name': { type: 'string' },
  'vllm-model': { type: 'string' },
  'vllm-command': { type: 'string' },
  'vllm-arg': { type: 'string', multiple: true },
  'vllm-port': { type: 'string' },
  'vllm-startup-timeout': { type: 'string' },
  'container-image': { type: 'string' },
  'container-mount': { type: 'string', multiple: true },
  'job-env': { type: 'string', multiple: true },
  workers: { type: 'string' },
} as const;

/** gym eval run's flags that a submitted run cannot take, and why. */
const NOT_SUBMITTED: Record<string, string> = {
  'model-url': "the job's vLLM replicas are the model's endpoints",
  'model-endpoint-file': 'the job publishes its replicas in <output>/slurm/endpoints',
  'model-endpoint-timeout': 'the job waits for its replicas (--vllm-startup-timeout)',
  detach: 'a submitted run is always detached: the job runs it',
  'no-worker': 'the job runs its own workers (--workers)',
  'reconnect-timeout': "the job's follower uses gym eval resume's default",
  'min-coverage': 'check the finished run with gym eval status or gym eval gate',
  ...Object.fromEntries(Object.keys(GATE_FLAGS).map((f) => [f, 'check the finished run with gym eval gate'])),
  split: 'a NeMo Gym configuration cannot be submitted yet: pass the run as flags or a flat --config eval file',
  'agent-name': 'a NeMo Gym configuration cannot be submitted yet',
  'agent-type': 'a NeMo Gym configuration cannot be submitted yet',
  environment: 'a NeMo Gym configuration cannot be submitted yet',
  'env-yaml': 'a NeMo Gym configuration cannot be submitted yet',
  'search-dir': 'a NeMo Gym configuration cannot be submitted yet',
  'allow-unsupported-pairing': 'a NeMo Gym configuration cannot be submitted yet',
};

/** vllm serve flags the job sets itself; a --vllm-arg naming one would contradict it. */
const JOB_SET_VLLM_FLAGS = ['--host', '--port', '--served-model-name', '--tensor-parallel-size', '-tp'];

/** A job environment variable that looks like a secret: it would be written into the script in the run folder. */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL/i;

/** Which flag each field of the job spec comes from, for refusals that name it. */
const FLAG_OF_FIELD: Record<string, string> = {
  'allocation.job_name': 'job-name',
  'allocation.time': 'time',
  'allocation.partition': 'partition',
  'allocation.account': 'account',
  'allocation.qos': 'qos',
  'allocation.mem': 'mem',
  'allocation.extra': 'sbatch-arg',
  'vllm.command': 'vllm-command',
  'vllm.model': 'vllm-model',
  'vllm.served_model_name': 'model-name',
  'vllm.container.image': 'container-image',
  'vllm.container.mounts': 'container-mount',
  env: 'job-env',
  run_dir: 'output',
  script_path: 'output',
  endpoint_file: 'output',
};

type Values = Record<string, string | boolean | string[] | undefined>;

function refuseNotSubmitted(values: Values, positionals: string[]): void {
  for (const [flag, why] of Object.entries(NOT_SUBMITTED)) if (values[flag] !== undefined) throw new GymError('BAD_FLAG', `--${flag} does not go with gym eval submit: ${why}`);
  if (positionals.length) throw new GymError('BAD_FLAG', `unexpected argument "${positionals[0]}": a NeMo Gym configuration cannot be submitted yet\n\n${EVAL_SUBMIT_USAGE}`);
  if (typeof values.config === 'string' && isNemoGymConfigFile(values.config)) {
    throw new GymError('BAD_FLAG', `--config ${values.config} is a NeMo Gym configuration, which cannot be submitted yet: pass the run as flags or a flat eval file (configs/evals/)`);
  }
}

function vllmArgs(values: Values): string[] {
  const args = (values['vllm-arg'] as string[] | undefined) ?? [];
  for (const arg of args) {
    const name = arg.split('=')[0]!;
    if (JOB_SET_VLLM_FLAGS.includes(name)) throw new GymError('BAD_FLAG', `--vllm-arg ${arg}: the job sets ${name} itself (--vllm-port, --model-name, --gpus-per-replica)`);
  }
  return args;
}

function jobEnv(values: Values): Record<string, string> {
  const env = Object.fromEntries(Object.entries(keyValueFlag({ 'job-env': values['job-env'] }, 'job-env')).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
  const misnamed = Object.keys(env).find((k) => !ENV_NAME.test(k));
  if (misnamed !== undefined) throw new GymError('BAD_FLAG', `--job-env ${misnamed}: ${ENV_NAME_RULE}`);
  const secret = Object.keys(env).find((k) => SECRET_NAME.test(k));
  if (secret)
    throw new GymError(
      'BAD_FLAG',
      `--job-env ${secret}: a secret would be written into the job script in the run folder; export it in the shell you submit from instead (the job inherits that environment)`,
    );
  return env;
}

/** The job's Temporal: a server the compute nodes reach, never the embedded one on this machine's loopback. */
function temporalTarget(): SlurmJobInput['temporal'] {
  const settings = temporalSettingsFromEnv();
  if (settings.embedded) {
    throw new GymError(
      'BAD_FLAG',
      "gym eval submit needs TEMPORAL_ADDRESS: the job's workers run on compute nodes and must reach the Temporal server (e.g. temporal server start-dev --ip 0.0.0.0 on a host they reach, or your cluster's frontend)",
    );
  }
  return { address: settings.address, namespace: settings.namespace, tls: settings.tls, apiKeyEnv: settings.apiKeyEnv };
}

/** Slurm job names: the run id's letters, at most 128. */
const jobNameOf = (runId: string) => `gym-${runId.replace(/[^A-Za-z0-9._-]/g, '-')}`.slice(0, 128);

export function jobSpec(values: Values, runDir: string, runId: string, servedModelName: string): SlurmJob {
  const replicasPerNode = intFlag(values, 'replicas-per-node', { min: 1, max: 64, fallback: 1 })!;
  const gpusPerReplica = intFlag(values, 'gpus-per-replica', { min: 0, max: 64, fallback: 1 })!;
  const gpusPerNode = intFlag(values, 'gpus-per-node', { min: 0, max: 64, fallback: replicasPerNode * gpusPerReplica })!;
  if (gpusPerNode < replicasPerNode * gpusPerReplica) {
    throw new GymError(
      'BAD_FLAG',
      `--gpus-per-node ${gpusPerNode} is fewer than the ${replicasPerNode * gpusPerReplica} GPUs of ${replicasPerNode} replica(s) × ${gpusPerReplica} (--replicas-per-node × --gpus-per-replica)`,
    );
  }
  const image = values['container-image'] as string | undefined;
  const mounts = (values['container-mount'] as string[] | undefined) ?? [];
  if (!image && mounts.length) throw new GymError('BAD_FLAG', '--container-mount only goes with --container-image');
  const input: SlurmJobInput = {
    run_dir: runDir,
    script_path: path.join(runDir, 'slurm', 'job.sh'),
    endpoint_file: endpointFileOf(runDir),
    gym: [process.execPath, path.join(PACKAGE_ROOT, 'bin', 'gym.mjs')],
    allocation: {
      job_name: (values['job-name'] as string | undefined) ?? jobNameOf(runId),
      nodes: intFlag(values, 'nodes', { min: 1, max: 4096, fallback: 1 })!,
      time: (values.time as string | undefined) ?? '04:00:00',
      partition: values.partition as string | undefined,
      account: values.account as string | undefined,
      qos: values.qos as string | undefined,
      gpus_per_node: gpusPerNode,
      cpus_per_node: intFlag(values, 'cpus-per-node', { min: 1 }),
      mem: values.mem as string | undefined,
      extra: (values['sbatch-arg'] as string[] | undefined) ?? [],
      signal_lead_s: intFlag(values, 'signal-lead', { min: 10, max: 65535, fallback: 300 })!,
    },
    vllm: {
      command: (values['vllm-command'] as string | undefined) ?? 'vllm',
      model: (values['vllm-model'] as string | undefined) ?? servedModelName,
      served_model_name: servedModelName,
      replicas_per_node: replicasPerNode,
      gpus_per_replica: gpusPerReplica,
      port: intFlag(values, 'vllm-port', { min: 1024, max: 65535, fallback: 8000 })!,
      args: vllmArgs(values),
      startup_timeout_s: intFlag(values, 'vllm-startup-timeout', { min: 1, fallback: 1800 })!,
      ...(image ? { container: { image, mounts } } : {}),
    },
    workers: intFlag(values, 'workers', { min: 1, max: 256, fallback: 1 })!,
    max_jobs: intFlag(values, 'max-jobs', { min: 1, max: 1000, fallback: 20 })!,
    env: jobEnv(values),
    temporal: temporalTarget(),
  };
  const parsed = SlurmJob.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const keys = issue.path.filter((p) => typeof p === 'string');
    // The field's own flag, else its group's (a list's item, a container's mount).
    const at = keys.map((_, i) => keys.slice(0, keys.length - i).join('.')).find((f) => FLAG_OF_FIELD[f]);
    const value = issue.path.reduce<unknown>((o, key) => (o as Record<PropertyKey, unknown> | undefined)?.[key as PropertyKey], input);
    throw new GymError('BAD_FLAG', `${at ? `--${FLAG_OF_FIELD[at]}` : keys.join('.')}${typeof value === 'string' ? ` "${value}"` : ''}: ${issue.message}`);
  }
  return parsed.data;
}

export const endpointFileOf = (runDir: string) => path.join(runDir, 'slurm', 'endpoints');
const jobsFileOf = (runDir: string) => path.join(runDir, 'slurm', 'jobs');

/** Two chains on one run would serve and stop it at cross purposes: a job of the folder's chain still in Slurm is refused. */
async function refuseLiveChain(runDir: string): Promise<void> {
  const known = await readFile(jobsFileOf(runDir), 'utf8').catch(() => '');
  const live = await liveJobs(known.split('\n').filter(Boolean));
  if (live.length) throw new GymError('CONFLICT', `Slurm job ${live.join(', ')} of this run is still queued or running; let it finish, or scancel ${live.join(' ')} first`);
}

export async function evalSubmit(argv: string[], _logger: Logger, say: (line: string) => void): Promise<void> {
  const { values, positionals } = parseFlags(argv, SUBMIT_FLAGS, EVAL_SUBMIT_USAGE);
  if (values.help) return say(EVAL_SUBMIT_USAGE);
  refuseNotSubmitted(values, positionals);
  const fromFile = values.config ? readConfigFile(values.config, EVAL_RUN_FLAG_NAMES) : {};
  for (const [flag, why] of Object.entries(NOT_SUBMITTED))
    if (fromFile[flag] !== undefined) throw new GymError('BAD_FLAG', `${values.config}: ${flag.replaceAll('-', '_')} does not go with gym eval submit: ${why}`);
  const settings: Values = { ...fromFile, ...values };
  const backend = (settings.model as string | undefined) ?? 'vllm';
  if (backend !== 'vllm') throw new GymError('BAD_FLAG', `--model ${backend}: gym eval submit serves the model with vLLM in the job, so --model must be vllm`);
  const servedModelName = requireFlag(settings, 'model-name', EVAL_SUBMIT_USAGE);
  const runDir = path.resolve(requireFlag(settings, 'output', EVAL_SUBMIT_USAGE));
  const config = buildRunConfig({ ...settings, model: 'vllm', 'model-endpoint-file': endpointFileOf(runDir) });
  checkOutputDir(config.runDir);
  const spec = jobSpec(values, config.runDir, config.runId, servedModelName);
  const script = jobScript(spec);
  const datasetHash = await validateRunInput(config);
  if (values['dry-run']) {
    say(script);
    return;
  }
  await refuseLiveChain(config.runDir);
  const { resumed } = await prepareRun(config, datasetHash);
  await mkdir(path.dirname(spec.script_path), { recursive: true });
  await writeFile(spec.script_path, script);
  await chmod(spec.script_path, 0o755);
  const jobId = await sbatch(spec.script_path);
  await appendFile(jobsFileOf(config.runDir), `${jobId}\n`);
  say(`submitted Slurm job ${jobId} for ${resumed ? 'resuming ' : ''}run ${config.runId} → ${config.runDir}`);
  say(`job output: ${jobOutputPattern(config.runDir).replace('%j', jobId)}; follow the run with gym eval status ${config.runDir}`);
}

// What a Slurm job of `gym eval submit` is made of: its allocation, the vLLM replicas it serves, the
// Gymflow workers it runs and how it reaches Temporal. The job script is generated from this alone.
import { z } from 'zod';

/** A name the shell takes as a variable: exported into the job, never quoted into a command. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const ENV_NAME_RULE = 'must be a shell variable name (letters, digits, _)';
const EnvName = z.string().regex(ENV_NAME, ENV_NAME_RULE);

/** Slurm's time formats: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS. */
export const SLURM_TIME = /^(?:\d+|\d+:\d{2}|\d+:\d{2}:\d{2}|\d+-\d+|\d+-\d+:\d{2}|\d+-\d+:\d{2}:\d{2})$/;

const SlurmWord = z.string().regex(/^[A-Za-z0-9._,-]+$/, 'letters, digits, ".", ",", "_" and "-" only');

export const SlurmAllocation = z.strictObject({
  job_name: z.string().regex(/^[A-Za-z0-9._-]{1,128}$/, 'letters, digits, ".", "_" and "-" only'),
  nodes: z.number().int().min(1).max(4096),
  time: z.string().regex(SLURM_TIME, 'a Slurm time: minutes, HH:MM:SS or D-HH:MM:SS'),
  partition: SlurmWord.optional(),
  account: SlurmWord.optional(),
  qos: SlurmWord.optional(),
  /** GPUs each node is allocated (`--gpus-per-node`); 0 asks for none. */
  gpus_per_node: z.number().int().min(0).max(64),
  cpus_per_node: z.number().int().min(1).optional(),
  mem: z
    .string()
    .regex(/^\d+[KMGT]?$/, 'a Slurm memory size, e.g. 64G')
    .optional(),
  /** Further `#SBATCH` directives, each one option as sbatch takes it (`--constraint=h100`). */
  extra: z.array(z.string().regex(/^--?[A-Za-z][^\n]*$/, 'one sbatch option, starting with - or --')).default([]),
  /** Seconds before the time limit at which Slurm signals the job (`--signal=B:USR1@S`) to queue its successor. */
  signal_lead_s: z.number().int().min(10).max(65535),
});

export const ContainerSpec = z.strictObject({
  /** Run through pyxis (`srun --container-image`), as NVIDIA's clusters do. */
  image: z.string().min(1),
  mounts: z.array(z.string().regex(/^[^,:\s]+:[^,:\s]+(?::[a-z,]+)?$/, 'SRC:DST or SRC:DST:FLAGS')).default([]),
});

export const VllmSpec = z.strictObject({
  /** The vLLM executable on the nodes (or in the container). */
  command: z.string().min(1),
  /** What `vllm serve` loads: a Hugging Face id or a path. */
  model: z.string().min(1),
  /** The name the model is served (and called) under: the run's --model-name. */
  served_model_name: z.string().min(1),
  replicas_per_node: z.number().int().min(1).max(64),
  /** GPUs of one replica (its tensor parallel size); 0 runs it without GPUs. */
  gpus_per_replica: z.number().int().min(0).max(64),
  /** The first replica's port on each node; the next replicas take the following ports. */
  port: z.number().int().min(1024).max(65535),
  args: z.array(z.string()).default([]),
  /** How long the job waits for the replicas to answer before it gives up. */
  startup_timeout_s: z.number().int().min(1),
  container: ContainerSpec.optional(),
});

/** How the job's processes reach Temporal: names and paths only, the API key stays in the environment. */
export const TemporalTarget = z.strictObject({
  address: z.string().min(1),
  namespace: z.string().min(1),
  /** `false`: plaintext even with an API key (TEMPORAL_TLS=false). */
  tls: z.union([z.literal(false), z.strictObject({ certPath: z.string().optional(), keyPath: z.string().optional(), caPath: z.string().optional(), serverName: z.string().optional() })]).optional(),
  apiKeyEnv: EnvName.optional(),
});

/** sbatch reads `#SBATCH --output=PATH` without a shell, and takes % as a pattern: such paths are refused. */
const JobPath = z.string().regex(/^\/[^\s%'"\\]*$/, 'an absolute path without spaces, quotes, backslashes or %');

export const SlurmJob = z.strictObject({
  run_dir: JobPath,
  /** Where the script is kept: the successor is this same file, submitted again. */
  script_path: JobPath,
  /** The endpoint file the run's model reads (its `endpoint_file`): the job publishes its replicas there. */
  endpoint_file: JobPath,
  /** The command that runs `gym` on the nodes, e.g. [node, /repo/bin/gym.mjs]. */
  gym: z.array(z.string().min(1)).min(1),
  allocation: SlurmAllocation,
  vllm: VllmSpec,
  /** `gym worker start --run` processes on the first node. */
  workers: z.number().int().min(1).max(256),
  /** How many jobs the chain may have in all, this one included; the last one queues no successor. */
  max_jobs: z.number().int().min(1).max(1000),
  env: z.record(EnvName, z.string()).default({}),
  temporal: TemporalTarget,
});
export type SlurmJob = z.infer<typeof SlurmJob>;
export type SlurmJobInput = z.input<typeof SlurmJob>;

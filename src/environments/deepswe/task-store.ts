// DeepSWE v1.1's task store, as NeMo Gym's deepswe server reads it (task_schema.py, task_store.py): one
// folder per task in Pier 0.3.1's layout — task.toml, instruction.md, the held-out tests/ and solution/ —
// checked against the fixed DeepSWE contract, keyed by metadata.task_id.
import { existsSync, lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { z } from 'zod';
import { GymError } from '../../errors';
import { PROJECT_ROOT, readTextFolder } from '../sandboxed/text-folder';

const NetworkMode = z.enum(['no-network', 'public', 'allowlist']);
const VerifierEnvironmentMode = z.enum(['shared', 'separate']);
const PACKAGE_NAME = /^[a-zA-Z0-9][a-zA-Z0-9._-]*\/[a-zA-Z0-9][a-zA-Z0-9._-]*$/;

/** Pier's EnvironmentConfig: the image and its resource requests. */
const EnvironmentConfig = z.looseObject({
  build_timeout_sec: z.number().default(600),
  docker_image: z.string().nullish(),
  os: z.string().default('linux'),
  cpus: z.number().int().nullish(),
  memory_mb: z.number().int().nullish(),
  storage_mb: z.number().int().default(10240),
  gpus: z.number().int().default(0),
  network_mode: NetworkMode.nullish(),
  env: z.record(z.string(), z.string()).default({}),
  mcp_servers: z.array(z.record(z.string(), z.unknown())).default([]),
});
type EnvironmentConfig = z.infer<typeof EnvironmentConfig>;

const CollectHook = z.looseObject({
  command: z.string(),
  service: z.string().default('main'),
  timeout_sec: z.number().default(60),
  user: z.union([z.string(), z.number().int()]).nullish(),
});
export type CollectHook = z.infer<typeof CollectHook>;

/** Pier 0.3.1's TaskConfig, as NeMo Gym's narrow copy of it validates task.toml. */
const TaskConfig = z.looseObject({
  schema_version: z.string().default('1.2'),
  task: z
    .looseObject({
      name: z.string().refine((n) => PACKAGE_NAME.test(n) && !n.includes('..'), 'is not a task package name (owner/name)'),
      description: z.string().default(''),
      authors: z.array(z.record(z.string(), z.unknown())).default([]),
      keywords: z.array(z.string()).default([]),
    })
    .nullish(),
  metadata: z.record(z.string(), z.unknown()).default({}),
  verifier: z
    .looseObject({
      timeout_sec: z.number().default(600),
      network_mode: NetworkMode.nullish(),
      environment_mode: VerifierEnvironmentMode.nullish(),
      environment: EnvironmentConfig.nullish(),
      env: z.record(z.string(), z.string()).default({}),
      collect: z.array(CollectHook).default([]),
    })
    .default({ timeout_sec: 600, env: {}, collect: [] }),
  agent: z.looseObject({ timeout_sec: z.number().nullish(), network_mode: NetworkMode.nullish() }).default({}),
  environment: EnvironmentConfig.default(EnvironmentConfig.parse({})),
  solution: z.record(z.string(), z.unknown()).default({}),
  steps: z.array(z.record(z.string(), z.unknown())).nullish(),
  artifacts: z.array(z.union([z.string(), z.record(z.string(), z.unknown())])).default([]),
});
type TaskConfig = z.infer<typeof TaskConfig>;

/** The files DeepSWE's contract requires of a task (the verifier's four are staged into its sandbox). */
export const REQUIRED_TASK_FILES = ['task.toml', 'instruction.md', 'tests/test.sh', 'tests/test.patch', 'tests/grader.py', 'tests/config.json', 'solution/solution.patch'];
export const VERIFIER_FILES = ['test.sh', 'test.patch', 'grader.py', 'config.json'];
/** Gymflow's, for tasks whose repository is not in an image: its files at the base commit, under environment/. */
export const REPOSITORY_DIR = 'environment/repository';

export interface DeepSweTask {
  dir: string;
  taskId: string;
  image: string;
  baseCommit: string;
  instruction: string;
  collect: CollectHook;
  verifierTimeoutSec: number;
  /** The held-out verifier files, by name under /tests. */
  verifierFiles: Record<string, Buffer>;
  solutionPatch: Buffer;
  /** environment/repository's files, when the task ships its repository (Gymflow's); none when its image holds it. */
  repository?: Record<string, string>;
}

/** NeMo Gym's strip_canary: leading canary comment lines, then blank lines, dropped. */
export function stripCanary(text: string): string {
  const lines = text.split('\n');
  const canary = /^(<!--.*canary.*-->|#.*canary.*)$/i;
  let i = 0;
  while (i < lines.length && canary.test(lines[i]!.trim())) i++;
  while (i < lines.length && !lines[i]!.trim()) i++;
  return lines.slice(i).join('\n');
}

/** The collect hook DeepSWE v1.1 requires: the committed work since the base commit, as a binary diff. */
export const collectCommand = (baseCommit: string) =>
  `cd /app && mkdir -p /logs/artifacts && git config --global --add safe.directory /app && git diff --binary ${baseCommit} HEAD > /logs/artifacts/model.patch`;

/** Pier's effective verifier environment: its own, or the task's when separate without one. */
function verifierEnvironment(config: TaskConfig): EnvironmentConfig | undefined {
  const verifier = config.verifier;
  const mode = verifier.environment_mode ?? (verifier.environment ? 'separate' : 'shared');
  if (mode !== 'separate') return undefined;
  return verifier.environment ?? config.environment;
}

/** NeMo Gym's _validate_deepswe_task over a parsed task folder: the fixed DeepSWE v1.1 contract. */
function validate(dir: string, config: TaskConfig): Omit<DeepSweTask, 'instruction' | 'verifierFiles' | 'solutionPatch' | 'repository' | 'dir'> {
  const name = path.basename(dir);
  const bad = (what: string) => new GymError('BAD_TASK', `DeepSWE task ${dir}: ${what}`);
  const taskId = config.metadata.task_id;
  if (typeof taskId !== 'string' || !taskId) throw bad('task.toml is missing metadata.task_id');
  if (taskId !== name) throw bad(`the folder's name ${name} disagrees with metadata.task_id ${taskId}`);
  const missing = REQUIRED_TASK_FILES.filter((f) => !statSync(path.join(dir, f), { throwIfNoEntry: false })?.isFile());
  if (missing.length) throw bad(`required files are missing: ${missing.join(', ')}`);
  const links = REQUIRED_TASK_FILES.filter((f) => lstatSync(path.join(dir, f)).isSymbolicLink());
  if (links.length) throw bad(`unsupported symlink assets: ${links.join(', ')}`);
  if (config.schema_version !== '1.3') throw bad('task.toml must use schema_version 1.3');
  if (config.steps?.length) throw bad('must be a single-step task');
  if (config.verifier.environment_mode !== 'separate') throw bad('must use a separate verifier environment ([verifier] environment_mode = "separate")');
  if (config.verifier.network_mode !== 'no-network' || config.agent.network_mode !== 'no-network') throw bad('must disable agent and verifier internet access (network_mode = "no-network")');
  const baseCommit = config.metadata.base_commit_hash;
  if (typeof baseCommit !== 'string' || baseCommit.length < 7 || baseCommit.length > 40 || !/^[0-9a-f]+$/.test(baseCommit))
    throw bad(`has an invalid metadata.base_commit_hash: ${JSON.stringify(baseCommit)}`);
  const { repository_url: url, language } = config.metadata;
  if (typeof url !== 'string' || !url || typeof language !== 'string' || !language) throw bad('is missing metadata.repository_url or metadata.language');
  if (config.verifier.collect.length !== 1) throw bad('must define exactly one [[verifier.collect]] hook');
  const collect = config.verifier.collect[0]!;
  if (collect.service !== 'main' || collect.command !== collectCommand(baseCommit)) throw bad(`has an unexpected verifier collect hook (DeepSWE's is: ${collectCommand(baseCommit)})`);
  if (collect.timeout_sec <= 0) throw bad('has an invalid verifier collect timeout');
  if (config.verifier.timeout_sec <= 0) throw bad('has an invalid verifier timeout');
  if (config.agent.timeout_sec == null || config.agent.timeout_sec <= 0) throw bad('has an invalid agent timeout');
  const image = config.environment.docker_image;
  if (typeof image !== 'string' || !image) throw bad('is missing environment.docker_image');
  for (const [phase, environment] of [
    ['agent', config.environment],
    ['verifier', verifierEnvironment(config)],
  ] as const) {
    if (!environment) throw bad('must use a separate verifier environment');
    if (!environment.cpus || environment.cpus <= 0 || !environment.memory_mb || environment.memory_mb <= 0 || environment.storage_mb <= 0) throw bad(`has invalid ${phase} sandbox resource limits`);
  }
  return { taskId, image, baseCommit, collect, verifierTimeoutSec: config.verifier.timeout_sec };
}

/** One task folder, parsed and checked. */
export function readTask(dir: string): DeepSweTask {
  const bad = (what: string) => new GymError('BAD_TASK', `DeepSWE task ${dir}: ${what}`);
  let value: unknown;
  try {
    value = parseToml(readFileSync(path.join(dir, 'task.toml'), 'utf8'));
  } catch (e) {
    throw bad(`task.toml cannot be read as TOML: ${(e as Error).message.split('\n')[0]}`);
  }
  const parsed = TaskConfig.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw bad(`task.toml: ${issue.path.join('.')}: ${issue.message}`);
  }
  const checked = validate(dir, parsed.data);
  const repositoryDir = path.join(dir, REPOSITORY_DIR);
  return {
    dir,
    ...checked,
    instruction: stripCanary(readFileSync(path.join(dir, 'instruction.md'), 'utf8')),
    verifierFiles: Object.fromEntries(VERIFIER_FILES.map((f) => [f, readFileSync(path.join(dir, 'tests', f))])),
    solutionPatch: readFileSync(path.join(dir, 'solution/solution.patch')),
    ...(existsSync(repositoryDir) ? { repository: readTextFolder(repositoryDir, `DeepSWE task ${checked.taskId}'s ${REPOSITORY_DIR}`) } : {}),
  };
}

export interface TaskStore {
  dir: string;
  tasks: ReadonlyMap<string, DeepSweTask>;
}

const stores = new Map<string, TaskStore>();

/**
 * NeMo Gym's DeepSWETaskStore over `tasksDir` (absolute, or relative to the project's root): every
 * `*\/task.toml` folder, each checked; read once per process. `expectedCount`, when given, must match.
 */
export function taskStore(tasksDir: string, expectedCount?: number): TaskStore {
  const dir = path.resolve(PROJECT_ROOT, tasksDir);
  const key = `${dir}|${expectedCount ?? ''}`;
  const cached = stores.get(key);
  if (cached) return cached;
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
    throw new GymError(
      'BAD_TASK',
      `DeepSWE tasks_dir ${tasksDir} (${dir}) is not a folder on this machine: NeMo Gym's rows name tasks of its prepared task store (resources_servers/deepswe/prepare.py clones DeepSWE), which is not here; set the environment's tasks_dir to a store that is`,
    );
  }
  const folders = readdirSync(dir)
    .sort()
    .map((name) => path.join(dir, name))
    .filter((d) => statSync(path.join(d, 'task.toml'), { throwIfNoEntry: false })?.isFile());
  if (expectedCount !== undefined && folders.length !== expectedCount)
    throw new GymError('BAD_TASK', `DeepSWE tasks_dir ${dir}: expected ${expectedCount} tasks (expected_task_count), found ${folders.length}`);
  const tasks = new Map(folders.map((d) => readTask(d)).map((t) => [t.taskId, t]));
  const store = { dir, tasks };
  stores.set(key, store);
  return store;
}

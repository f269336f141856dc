// `gym eval run`: validate everything, then start a durable run and follow it to its metrics.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { parseHistoryPolicy, type HistoryPolicy } from '../../agents/history-policy';
import { GymError } from '../../errors';
import { environmentNames, isEnvironmentName, resolveEnvironment } from '../../environments/registry';
import { envKey, envLabel, HarnessRef, type EnvRef } from '../../environments/ref';
import { getHarness } from '../../harnesses/registry';
import { harnessRefusal } from '../../harnesses/task';
import { endpointsOf, unreachableEndpoints } from '../../gateway/probe';
import { MATERIALIZED_INPUTS, resolveConfigRun, type ConfigRun } from '../../routing/from-config';
import { writeFileAtomic } from '../../store/jsonl';
import { isObjectStoreUrl, runStoreUrl } from '../../store/object/s3-url';
import { configRunFlags, isNemoGymConfigFile, lendModelKey } from './eval-run-config';
import { AnthropicModelSpec, ModelSpec } from '../../gateway/spec';
import { readModelSpecFile } from '../model-spec-file';
import { checkRouting } from '../routing-check';
import { conditionsFlag, runConditions } from './eval-conditions';
import { RunConfig, defaultRunId, runTaskQueue } from '../../runs/manifest';
import { prepareRun, startRun, validateRunInput } from '../../runs/client';
import { checkOutputDir } from '../../runs/output-dir';
import { EXPORTER_FLAGS, EXPORTERS_USAGE, exportersFromFlags } from '../../exporters/config';
import { DEFAULT_RETRY, MAX_CONCURRENCY, MAX_SHARDS, defaultShards } from '../../../workflows/definitions';
import { OUTPUT_FORMATS, type OutputFormat } from '../../store/nemo-gym-files';
import { intFlag, keyValueFlag, numberFlag, parseFlags, requireFlag } from '../args';
import { readConfigFile } from '../config-file';
import { BACKOFF_USAGE, backoffFlag, failureClassesFlag } from '../failure-flags';
import { TIMEOUT_FLAGS, modelTimeouts } from '../model-timeouts';
import { MIN_COVERAGE_USAGE, minCoverageFlag } from '../coverage';
import { GATE_FLAGS, GATE_USAGE, checkGate, gateFlags, hasGate } from '../gate';
import { RECONNECT_USAGE, reconnectTimeoutMs } from '../reconnect';
import { openSession } from '../session';
import { followRun, showIfComplete } from './follow';

export const EVAL_RUN_USAGE = `usage: gym eval run --env <name> --model <mock|openai|vllm|anthropic|switchyard> --input <tasks.jsonl> --output <dir> [options]
       gym eval run ... --model-spec <spec.yaml>      any model spec: a Switchyard proxy, Gymflow's routed model, …
       gym eval run ... --condition NAME=<spec.yaml> --condition NAME2=<spec.yaml> [--price MODEL=IN,OUT]
                    the same benchmark once per condition (each into <dir>/NAME), then a comparison per
                    condition: reward with its 95% interval, tokens, latency, the targets that served, cost
       gym eval run --config configs/evals/<name>.yaml [options that override it]
       gym eval run --config <NeMo Gym config.yaml> | config_paths=[a.yaml,b.yaml] [key=value +key=value ++key=value ...]
                    (--input FILE | --split train|validation|benchmark) --output <dir> [options]
                    every row to its agent (agent_map, fan_out, +agent_name / --agent-name) and environment (docs/configuration.md)

  --dry-run            resolve the configuration, datasets and routing, check every row and that the model
                       endpoints answer, print the plan, and start nothing
  --split S            run the declared datasets of type S (train, validation or benchmark) of a NeMo Gym configuration
  --environment NAME   load the environment bundle environments/NAME/config.yaml (Gymflow ships
                       configs/environments/, e.g. pi_reasoning_gym, claude_code_math; pre-v0.6.0 names still work)
  --agent-name NAME    send every row to this agent instance (NeMo Gym's +agent_name)
  --agent-type T[/F]   play the configuration's tasks with this agent type instead (its standalone config,
                       configs/agents/T/F.yaml or responses_api_agents/T/configs/F.yaml, is composed onto
                       every agent: e.g. opencode_agent, pi_agent, simple_agent); environment, model and data stay
  --allow-unsupported-pairing   run agents on resources servers whose allowed_agents do not list them
                       (also NEMO_GYM_ALLOW_UNSUPPORTED_PAIRING=1)
  --env-yaml FILE      env.yaml merged after the configuration files (default ./env.yaml)
  --search-dir DIR     where relative configuration and dataset paths are looked for first (repeatable)
  --model-endpoint-timeout S   seconds to wait for model endpoints to answer (default 30; 0 skips the check;
                       also model_endpoint_readiness_timeout_seconds)

  --limit N            use the first N task rows
  --num-repeats K      rollouts per task (default 1)
  --concurrency C      rollouts in flight (default 8)
  --max-steps S        model turns per rollout (default: until the model stops calling tools)
  --history-policy P   what of its history the model is shown on each call, comma-separated:
                       last-turns=N, last-tokens=N (estimated), drop-old-images[=N] (keep the last N
                       observations' images, default 1), drop-old-reasoning[=N] (keep the last N turns'
                       reasoning, default 1); default: the whole history (docs/agents.md)
  --max-attempts A     attempts per activity before a rollout goes to failures.jsonl (default 3)
${BACKOFF_USAGE}
  --count-as-zero C,D  score sidecar rollouts of these failure classes as reward 0 in the metrics
                       (the records stay in failures.jsonl; default: none, they are left out of the score)
  --output-format F    gymflow (default: the run folder's own files) or nemo-gym (also NeMo Gym's
                       rollouts_materialized_inputs.jsonl, rollouts_aggregate_metrics.json and
                       rollouts_failures.jsonl beside rollouts.jsonl, written when the run finishes; docs/metrics.md)
  --durability G       turn (default: each agent turn a local activity, journaled call by call) or
                       rollout (batches of rollouts in heartbeating activities; resumes per finished rollout)
  --shards N           shard workflows the rollouts are spread over (default: one per 128 in flight)
  --task-queue Q       run on a shared worker pool (gym worker start --task-queue Q) instead of the run's own queue
  --rollout-queue Q    the rollout grain's batches (whole rollouts: harnesses, sandboxes) on queue Q, played by
                       workers of their own: gym worker start --task-queue Q --role rollouts [--max-rollouts N]
                       (this process and --task-queue's workers then only orchestrate; docs/operations.md)
  --run-id ID          name of the run (default: the output folder's name and a hash of its path)
  --store s3://BUCKET[/PREFIX]   keep the run's files in an S3-compatible object store (under PREFIX/<run id>)
                       instead of only --output, for workers on machines that share no folder; endpoint,
                       region and credentials from AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID and
                       AWS_SECRET_ACCESS_KEY of each process; the finalizer also writes the results into
                       --output (docs/operations.md)
  --env-option KEY=VALUE   an environment setting (NeMo Gym's config key; VALUE as JSON), repeatable
  --env remote --remote-url URL [--remote-tools a,b]   drive an existing NeMo Gym resources server
                       --remote-connect-timeout-ms MS (default 10000) --remote-first-byte-timeout-ms MS
                       (default 300000) --remote-total-timeout-ms MS (default 900000) bound each call to it;
                       a call past one fails as "timeout"
  --agent HARNESS      play the tasks with an external harness (a sandboxed environment's, e.g. swe_repair, or a tool-free
                       text environment's, e.g. reasoning_gym, math_with_judge, mcqa; docs/harnesses.md): pi,
                       opencode, codex, claude-code, kilo, cline, openclaw (gym setup --harnesses installs them);
                       implies --durability rollout
  --sandbox P          the harness's sandbox provider (default local)
  --sandbox-image I    what its sandbox is made from: for --sandbox docker an image in the engine (required;
                       bash scripts/setup-docker.sh image builds the task image and prints its name), for
                       local a root file system folder (default: the worker's own system folders)
  --harness-timeout-ms MS   a harness run's deadline (default 600000)
  --harness-max-calls N     model calls one harness attempt may make (default 100)
  --detach             start the run and return; workers elsewhere (gym worker start) run it
  --no-worker          follow the run without running a worker in this process
${MIN_COVERAGE_USAGE}
${GATE_USAGE}
                       (checked once the run has finished; not with --detach: run gym eval gate then)
${RECONNECT_USAGE}
mock model:    --mock-accuracy P (default 1) --mock-seed N --mock-latency-ms MS --mock-replay <rollouts.jsonl>
openai model:  --model-name NAME --model-url URL --api-key-env VAR (default OPENAI_API_KEY)
vllm model:    --model-name NAME --model-url URL [--api-key-env VAR]   token ids and log-probs from vLLM itself
               --model-endpoint-file F instead of --model-url: the replicas a serving job publishes in F, one URL
               per line, followed without a restart (docs/gateway.md; gym eval submit writes one, docs/slurm.md)
anthropic:     --model-name NAME [--model-url URL] --api-key-env VAR (default ANTHROPIC_API_KEY)
switchyard:    --model-name ROUTE (--switchyard-deployment routes.toml | --model-url URL of a running proxy)
               [--api-key-env VAR] [--switchyard-session-header H ...]   the NVIDIA Switchyard routing proxy,
               hosted by the gateway from its TOML deployment (bash scripts/setup-switchyard.sh) or attached;
               the deployment is loaded by Switchyard itself before the run starts (docs/gateway.md)
               --model-connect-timeout-ms MS (default 10000) --model-first-byte-timeout-ms MS (default 120000)
               --model-idle-timeout-ms MS (default 60000) --model-total-timeout-ms MS (default 540000)
               bound each call to the model and the judge; a call past one fails as "timeout"
judge model:   --judge-model <mock|openai|vllm|anthropic> (with --judge-model-name, --judge-model-url)
${EXPORTERS_USAGE}`;

export const EVAL_RUN_FLAGS = {
  config: { type: 'string', short: 'c' },
  'dry-run': { type: 'boolean' },
  split: { type: 'string' },
  'agent-name': { type: 'string' },
  'agent-type': { type: 'string' },
  environment: { type: 'string' },
  'allow-unsupported-pairing': { type: 'boolean' },
  'env-yaml': { type: 'string' },
  'search-dir': { type: 'string', multiple: true },
  'model-endpoint-timeout': { type: 'string' },
  env: { type: 'string' },
  'remote-url': { type: 'string' },
  'remote-tools': { type: 'string' },
  'remote-connect-timeout-ms': { type: 'string' },
  'remote-first-byte-timeout-ms': { type: 'string' },
  'remote-total-timeout-ms': { type: 'string' },
  'env-option': { type: 'string', multiple: true },
  agent: { type: 'string' },
  sandbox: { type: 'string' },
  'sandbox-image': { type: 'string' },
  'harness-timeout-ms': { type: 'string' },
  'harness-max-calls': { type: 'string' },
  model: { type: 'string' },
  input: { type: 'string', short: 'i' },
  output: { type: 'string', short: 'o' },
  limit: { type: 'string' },
  'num-repeats': { type: 'string' },
  concurrency: { type: 'string' },
  'max-steps': { type: 'string' },
  'history-policy': { type: 'string' },
  'max-attempts': { type: 'string' },
  backoff: { type: 'string', multiple: true },
  'count-as-zero': { type: 'string', multiple: true },
  'output-format': { type: 'string' },
  durability: { type: 'string' },
  shards: { type: 'string' },
  'task-queue': { type: 'string' },
  'rollout-queue': { type: 'string' },
  'run-id': { type: 'string' },
  store: { type: 'string' },
  detach: { type: 'boolean' },
  'no-worker': { type: 'boolean' },
  'min-coverage': { type: 'string' },
  ...GATE_FLAGS,
  'reconnect-timeout': { type: 'string' },
  'mock-accuracy': { type: 'string' },
  'mock-seed': { type: 'string' },
  'mock-latency-ms': { type: 'string' },
  'mock-replay': { type: 'string', multiple: true },
  'model-name': { type: 'string' },
  'model-url': { type: 'string' },
  'model-endpoint-file': { type: 'string' },
  'api-key-env': { type: 'string' },
  'model-spec': { type: 'string' },
  'switchyard-deployment': { type: 'string' },
  'switchyard-session-header': { type: 'string', multiple: true },
  condition: { type: 'string', multiple: true },
  price: { type: 'string', multiple: true },
  ...Object.fromEntries(Object.values(TIMEOUT_FLAGS).map((flag) => [flag, { type: 'string' }])),
  'judge-model': { type: 'string' },
  'judge-model-name': { type: 'string' },
  'judge-model-url': { type: 'string' },
  ...EXPORTER_FLAGS,
} as const;

/** Flags only the command line takes: they steer reading a NeMo Gym configuration, or stop before the run. */
const COMMAND_LINE_ONLY = new Set(['dry-run', 'split', 'agent-name', 'agent-type', 'environment', 'allow-unsupported-pairing', 'env-yaml', 'search-dir', 'condition', 'price']);

/** Every flag of `gym eval run`: the settings a config file (or the trigger API's request body) may hold. */
export const EVAL_RUN_FLAG_NAMES: ReadonlySet<string> = new Set(Object.keys(EVAL_RUN_FLAGS).filter((f) => !COMMAND_LINE_ONLY.has(f)));

type Values = Record<string, string | boolean | string[] | undefined>;
type EvalRunFlags = ReturnType<typeof parseFlags<typeof EVAL_RUN_FLAGS>>['values'];

function modelSpec(values: Values, prefix: '' | 'judge-', envName: string, runDir: string): ModelSpec | undefined {
  if (prefix === '' && values['model-spec'] !== undefined) return readModelSpecFile(String(values['model-spec']), '--model-spec', { envName, runDir });
  const backend = values[prefix === '' ? 'model' : 'judge-model'] as string | undefined;
  if (backend === undefined) return undefined;
  if (backend === 'switchyard' && prefix === '') return switchyardSpec(values);
  if (backend === 'mock') {
    const replay = ((values['mock-replay'] as string[] | undefined) ?? []).map((f) => {
      if (!existsSync(f)) throw new GymError('NOT_FOUND', `--mock-replay file ${f} does not exist`);
      return path.resolve(f);
    });
    return {
      backend: 'mock',
      env: envName,
      seed: intFlag(values, 'mock-seed', { fallback: 0 })!,
      accuracy: numberFlag(values, 'mock-accuracy', { min: 0, max: 1, fallback: 1 })!,
      latency_ms: intFlag(values, 'mock-latency-ms', { min: 0, fallback: 0 })!,
      tasks_file: path.join(runDir, 'tasks.jsonl'),
      replay_files: replay,
    };
  }
  if (backend === 'openai' || backend === 'vllm' || backend === 'anthropic') {
    const name = values[`${prefix}model-name`] as string | undefined;
    if (!name) throw new GymError('BAD_FLAG', `--${prefix}model ${backend} needs --${prefix}model-name`);
    const url = values[`${prefix}model-url`] as string | undefined;
    const endpointFile = prefix === '' ? (values['model-endpoint-file'] as string | undefined) : undefined;
    if (url && endpointFile) throw new GymError('BAD_FLAG', '--model-url and --model-endpoint-file do not go together: give the URL, or the file a serving job publishes its replicas in');
    if (backend !== 'openai' && !url && !endpointFile)
      throw new GymError(
        'BAD_FLAG',
        `--${prefix}model ${backend} needs --${prefix}model-url (the server's base URL, e.g. http://127.0.0.1:8000/v1)${prefix === '' ? ' or --model-endpoint-file' : ''}`,
      );
    const timeouts = modelTimeouts(values);
    const keyEnv = values['api-key-env'] as string | undefined;
    const common = { model: name, base_url: url, ...(endpointFile ? { endpoint_file: path.resolve(endpointFile) } : {}), ...(timeouts ? { timeouts } : {}) };
    if (backend === 'vllm') return { backend, ...common, ...(keyEnv ? { api_key_env: keyEnv } : {}) };
    if (backend === 'anthropic') return AnthropicModelSpec.parse({ backend, ...common, api_key_env: keyEnv ?? 'ANTHROPIC_API_KEY' });
    return { backend, ...common, api_key_env: keyEnv ?? 'OPENAI_API_KEY' };
  }
  throw new GymError('BAD_FLAG', `--${prefix}model must be mock, openai, vllm${prefix === '' ? ', anthropic or switchyard' : ' or anthropic'}, got "${backend}"`);
}

function switchyardSpec(values: Values): ModelSpec {
  const route = values['model-name'] as string | undefined;
  if (!route) throw new GymError('BAD_FLAG', '--model switchyard needs --model-name (the route id of the deployment, [routes.<key>] id = …)');
  const deployment = values['switchyard-deployment'] as string | undefined;
  const url = values['model-url'] as string | undefined;
  if ((deployment === undefined) === (url === undefined))
    throw new GymError('BAD_FLAG', '--model switchyard needs --switchyard-deployment FILE (the gateway hosts the proxy) or --model-url URL (a running proxy), one of the two');
  const headers = values['switchyard-session-header'] as string[] | undefined;
  const timeouts = modelTimeouts(values);
  const parsed = ModelSpec.safeParse({
    backend: 'switchyard',
    model: route,
    ...(deployment ? { deployment: path.resolve(deployment) } : { base_url: url }),
    ...(values['api-key-env'] ? { api_key_env: values['api-key-env'] } : {}),
    ...(headers ? { session_id_headers: headers } : {}),
    ...(timeouts ? { timeouts } : {}),
  });
  if (!parsed.success) throw new GymError('BAD_FLAG', `--model switchyard: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

const REMOTE_TIMEOUT_FLAGS = [
  ['connect_ms', 'remote-connect-timeout-ms'],
  ['first_byte_ms', 'remote-first-byte-timeout-ms'],
  ['total_ms', 'remote-total-timeout-ms'],
] as const;

/** The bounds on calls to a remote environment server that the user set; undefined when none is. */
function remoteTimeoutFlags(values: Values): Partial<Record<(typeof REMOTE_TIMEOUT_FLAGS)[number][0], number>> | undefined {
  const set = REMOTE_TIMEOUT_FLAGS.filter(([, flag]) => values[flag] !== undefined);
  return set.length ? Object.fromEntries(set.map(([key, flag]) => [key, intFlag(values, flag, { min: 1, max: 1_500_000 })])) : undefined;
}

function environmentFlag(values: Values): EnvRef {
  const name = requireFlag(values, 'env', EVAL_RUN_USAGE);
  if (name === 'remote') {
    const url = values['remote-url'] as string | undefined;
    if (!url) throw new GymError('BAD_FLAG', '--env remote needs --remote-url <base URL of the NeMo Gym resources server>');
    try {
      new URL(url);
    } catch {
      throw new GymError('BAD_FLAG', `--remote-url: "${url}" is not a URL`);
    }
    const tools = ((values['remote-tools'] as string | undefined) ?? '')
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
    const timeouts = remoteTimeoutFlags(values);
    return { name, options: {}, remote: { url, tools, ...(timeouts ? { timeouts } : {}) } };
  }
  for (const flag of ['remote-url', ...REMOTE_TIMEOUT_FLAGS.map(([, f]) => f)]) {
    if (values[flag] !== undefined) throw new GymError('BAD_FLAG', `--${flag} only goes with --env remote`);
  }
  if (!isEnvironmentName(name)) throw new GymError('BAD_FLAG', `--env: unknown environment "${name}"; known: ${environmentNames().join(', ')}, remote`);
  const ref: EnvRef = { name, options: keyValueFlag(values, 'env-option'), ...harnessFlags(values) };
  // Resolving validates the settings now, before anything starts.
  const env = resolveEnvironment(ref);
  const refusal = ref.harness ? harnessRefusal(env, getHarness(ref.harness.name)) : undefined;
  if (refusal) throw new GymError('BAD_FLAG', `--agent ${ref.harness!.name}: ${refusal}`);
  if (!ref.harness && env.sandboxed)
    throw new GymError('BAD_FLAG', `environment "${name}" is played by an external harness in a sandbox: pass --agent <harness> (pi, opencode, codex, claude-code, kilo, cline or openclaw)`);
  return ref;
}

function harnessFlags(values: Values): { harness?: HarnessRef } {
  const name = values.agent as string | undefined;
  if (name === undefined) {
    for (const flag of ['sandbox', 'sandbox-image', 'harness-timeout-ms', 'harness-max-calls']) {
      if (values[flag] !== undefined) throw new GymError('BAD_FLAG', `--${flag} only goes with --agent <harness>`);
    }
    return {};
  }
  if (getHarness(name).playsEnvironmentTools) {
    for (const flag of ['sandbox', 'sandbox-image']) {
      if (values[flag] !== undefined) throw new GymError('BAD_FLAG', `--${flag} does not go with --agent ${name}: it runs on the worker's host with only the environment's tools, in no sandbox`);
    }
  }
  const parsed = HarnessRef.safeParse({
    name,
    sandbox: values.sandbox,
    sandbox_image: values['sandbox-image'],
    timeout_ms: intFlag(values, 'harness-timeout-ms', { min: 1000 }),
    max_model_calls: intFlag(values, 'harness-max-calls', { min: 1 }),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new GymError('BAD_FLAG', `--${issue.path[0] === 'sandbox_image' ? 'sandbox-image' : 'sandbox'}: ${issue.message}`);
  }
  return { harness: parsed.data };
}

/**
 * Gymflow's agent loop's history policy; an external harness keeps its own history, so the two go together
 * only in a run where some rows are played by the loop (the policy applies to those).
 */
function historyPolicyFlag(values: Values, environments: readonly EnvRef[]): HistoryPolicy | undefined {
  const text = values['history-policy'];
  if (text === undefined) return undefined;
  const harness = environments.find((e) => e.harness)?.harness;
  if (harness && environments.every((e) => e.harness)) throw new GymError('BAD_FLAG', `--history-policy does not go with --agent ${harness.name}: an external harness decides what its model is shown`);
  return parseHistoryPolicy(String(text), '--history-policy');
}

/**
 * A harness plays whole rollouts, so a run with one (even one that plays its other rows with Gymflow's
 * loop) takes the rollout grain; asking for the turn grain is refused.
 */
function durabilityOf(values: Values, environments: readonly EnvRef[], routed: boolean): unknown {
  const harness = environments.find((e) => e.harness)?.harness;
  if (!harness) return values.durability ?? 'turn';
  if (values.durability !== undefined && values.durability !== 'rollout') {
    const what = routed ? `the rows harness ${harness.name} plays` : `--agent ${harness.name}`;
    throw new GymError(
      'BAD_FLAG',
      `--durability ${values.durability} cannot play ${what}: an external harness runs whole rollouts, in the rollout grain (drop --durability or pass --durability rollout)`,
    );
  }
  return 'rollout';
}

/** Only the rollout grain has batches to send elsewhere; the turn grain's steps run beside their shard. */
function checkRolloutQueue(config: RunConfig): void {
  if (config.rolloutQueue === undefined) return;
  if (config.durability !== 'rollout') {
    throw new GymError('BAD_FLAG', `--rollout-queue ${config.rolloutQueue} needs the rollout grain: the turn grain's steps run as local activities beside their shard (add --durability rollout)`);
  }
  if (config.rolloutQueue === config.taskQueue) throw new GymError('BAD_FLAG', `--rollout-queue ${config.rolloutQueue} is the run's own task queue: name another queue, or drop the flag`);
}

const warnOnStderr = (message: string) => process.stderr.write(`gym: warning: ${message}\n`);

/** A run from a NeMo Gym configuration: its rows name their environments; `env` is the first row's. */
export interface RoutedRun {
  env: EnvRef;
  environments: EnvRef[];
}

export function buildRunConfig(values: Values, warn: (message: string) => void = warnOnStderr, routed?: RoutedRun): RunConfig {
  if (routed && values.env !== undefined) throw new GymError('BAD_FLAG', '--env does not go with a NeMo Gym configuration: each row is played against the environment its agent or task_source names');
  const env = routed ? routed.env : environmentFlag(values);
  const envName = envKey(env);
  if (values['model-spec'] === undefined) requireFlag(values, 'model', EVAL_RUN_USAGE);
  const environments = routed?.environments ?? [env];
  const runDir = path.resolve(requireFlag(values, 'output', EVAL_RUN_USAGE));
  // A routed run plays the rows it wrote into its folder (the limit was applied to the input before routing).
  const inputFile = routed ? path.join(runDir, MATERIALIZED_INPUTS) : path.resolve(requireFlag(values, 'input', EVAL_RUN_USAGE));
  if (!routed && !existsSync(inputFile)) throw new GymError('NOT_FOUND', `--input file ${inputFile} does not exist`);
  const runId = (values['run-id'] as string | undefined) ?? defaultRunId(runDir);
  const concurrency = intFlag(values, 'concurrency', { min: 1, max: MAX_CONCURRENCY, fallback: 8 })!;
  const store = storeFlag(values, runId, environments);
  const parsed = RunConfig.safeParse({
    runId,
    runDir,
    ...store,
    env,
    inputFile,
    model: withStoreTasks(modelSpec(values, '', envName, runDir), runDir, store.store),
    judgeModel: withStoreTasks(modelSpec(values, 'judge-', envName, runDir), runDir, store.store),
    numRepeats: intFlag(values, 'num-repeats', { min: 1, fallback: 1 }),
    limit: routed ? undefined : intFlag(values, 'limit', { min: 1 }),
    concurrency,
    shards: intFlag(values, 'shards', { min: 1, max: MAX_SHARDS, fallback: defaultShards(concurrency) }),
    taskQueue: (values['task-queue'] as string | undefined) ?? runTaskQueue(runId),
    rolloutQueue: values['rollout-queue'],
    maxSteps: intFlag(values, 'max-steps', { min: 1 }),
    historyPolicy: historyPolicyFlag(values, environments),
    durability: durabilityOf(values, environments, !!routed),
    retry: { ...DEFAULT_RETRY, maximumAttempts: intFlag(values, 'max-attempts', { min: 1, fallback: DEFAULT_RETRY.maximumAttempts }), byClass: backoffFlag(values) },
    countAsZero: failureClassesFlag(values, 'count-as-zero'),
    outputFormat: outputFormatFlag(values),
    exporters: exportersFromFlags(values, warn),
  });
  const judged = environments.find((e) => resolveEnvironment(e).requiresJudge);
  if (parsed.success && !parsed.data.judgeModel && judged) {
    throw new GymError('BAD_FLAG', `environment "${judged.name}" grades with an LLM judge: pass --judge-model (mock or openai)`);
  }
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new GymError('BAD_FLAG', `invalid run settings: ${issue.path.join('.')}: ${issue.message}`);
  }
  checkRolloutQueue(parsed.data);
  return parsed.data;
}

/** A mock model reads the run's tasks where the run keeps them: with an object store, from there. */
function withStoreTasks(spec: ModelSpec | undefined, runDir: string, store: string | undefined): ModelSpec | undefined {
  if (!store || spec?.backend !== 'mock' || spec.tasks_file !== path.join(runDir, 'tasks.jsonl')) return spec;
  return { ...spec, tasks_file: `${store}/tasks.jsonl` };
}

/** `--store <root>`: the run's object store URL, `<root>/<run id>`. */
function storeFlag(values: Values, runId: string, environments: EnvRef[]): { store?: string } {
  const root = values.store as string | undefined;
  if (root === undefined) return {};
  if (!isObjectStoreUrl(root)) throw new GymError('BAD_FLAG', `--store ${root}: expected s3://<bucket>[/<prefix>] (a shared folder needs no flag: give it as --output)`);
  const harness = environments.find((e) => e.harness)?.harness;
  if (harness) throw new GymError('BAD_FLAG', `--store does not yet go with the external harness ${harness.name}: its traces are written in a run folder (use a shared folder as --output)`);
  return { store: runStoreUrl(root, runId) };
}

function outputFormatFlag(values: Values): OutputFormat | undefined {
  const format = values['output-format'] as string | undefined;
  if (format === undefined) return undefined;
  if (!(OUTPUT_FORMATS as readonly string[]).includes(format)) throw new GymError('BAD_FLAG', `--output-format must be ${OUTPUT_FORMATS.join(' or ')}, got "${format}"`);
  return format as OutputFormat;
}

/**
 * The settings and configuration of a run from a NeMo Gym configuration, as `gym eval run --config` and the
 * trigger API start one: the configuration's run keys as flags, the given flags over them. The routed rows
 * (`run.lines`) go into the folder once it is prepared.
 */
export function routedRunConfig(run: ConfigRun, flags: Values, warn: (message: string) => void): { settings: Values; config: RunConfig } {
  const settings = { ...configRunFlags(run), ...flags };
  // The configuration's key is lent only to a run that plays its model (flags may name another), and
  // refused (before the run folder is made) when it differs from the one this process holds.
  if (flags.model === undefined && flags['api-key-env'] === undefined) lendModelKey(run);
  return { settings, config: buildRunConfig(settings, warn, { env: run.environments[0]!, environments: run.environments }) };
}

/** Whether the command line runs a NeMo Gym configuration rather than flags or a flat eval file. */
function isNemoGymRun(values: Values, positionals: string[]): boolean {
  if (positionals.length > 0 || values.split !== undefined || values['agent-name'] !== undefined || values['agent-type'] !== undefined || values.environment !== undefined) return true;
  return typeof values.config === 'string' && isNemoGymConfigFile(values.config);
}

export async function evalRun(argv: string[], logger: Logger, say: (line: string) => void): Promise<void> {
  const { values, positionals } = parseFlags(argv, EVAL_RUN_FLAGS, EVAL_RUN_USAGE);
  if (values.help) return say(EVAL_RUN_USAGE);
  if (values.model !== undefined && values['model-spec'] !== undefined) throw new GymError('BAD_FLAG', '--model and --model-spec name the model twice: give one');
  const conditions = conditionsFlag(values);
  if (conditions) return runConditions({ conditions, values, usage: EVAL_RUN_USAGE, runOne: (flags) => runEval(flags as EvalRunFlags, positionals, logger, say), say });
  if (values.price !== undefined) throw new GymError('BAD_FLAG', '--price goes with --condition (it prices the comparison)');
  await runEval(values, positionals, logger, say);
}

/** One run as the flags describe it; resolves once it is finished (or detached, or only checked). */
async function runEval(values: EvalRunFlags, positionals: string[], logger: Logger, say: (line: string) => void): Promise<{ runDir: string; finished: boolean }> {
  const nemoGym = isNemoGymRun(values, positionals);
  if (!nemoGym)
    for (const flag of ['env-yaml', 'search-dir', 'allow-unsupported-pairing'] as const)
      if (values[flag] !== undefined) throw new GymError('BAD_FLAG', `--${flag} goes with a NeMo Gym configuration (--config <file> or config_paths=...)`);
  let config: RunConfig;
  let datasetHash: string;
  let materialized: string[] | undefined;
  let settings: Values;
  let endpointTimeout: unknown;
  if (nemoGym) {
    const run = await resolveConfigRun({
      files: values.config ? [values.config] : [],
      overrides: positionals,
      envYaml: values['env-yaml'],
      searchDirs: values['search-dir'],
      input: values.input,
      split: values.split,
      agent: values['agent-name'],
      agentType: values['agent-type'],
      environment: values.environment,
      allowUnsupportedPairing: !!values['allow-unsupported-pairing'],
      limit: intFlag(values, 'limit', { min: 1 }),
      numRepeats: intFlag(values, 'num-repeats', { min: 1 }),
      cwd: process.cwd(),
      env: process.env,
    });
    for (const w of run.warnings) warnOnStderr(w);
    ({ settings, config } = routedRunConfig(run, values, warnOnStderr));
    checkOutputDir(config.runDir);
    datasetHash = run.datasetHash;
    materialized = run.lines;
    endpointTimeout = run.keys.model_endpoint_readiness_timeout_seconds;
    for (const line of run.summary) logger.info(line);
    if (values['dry-run']) for (const line of run.summary) say(line);
    else if (run.playing) say(run.playing);
  } else {
    if (positionals.length) throw new GymError('BAD_FLAG', `unexpected argument "${positionals[0]}"\n\n${EVAL_RUN_USAGE}`);
    const fromFile = values.config ? readConfigFile(values.config, EVAL_RUN_FLAG_NAMES) : {};
    settings = { ...fromFile, ...values };
    config = buildRunConfig(settings);
    checkOutputDir(config.runDir);
    datasetHash = await validateRunInput(config);
    if (values['dry-run']) say(`input: ${config.inputFile}: checked for environment ${envLabel(config.env)}`);
  }
  const follow = { minCoverage: minCoverageFlag(settings), reconnectTimeoutMs: reconnectTimeoutMs(settings) };
  const gate = gateFlags(settings);
  // A dry run checks the endpoints of any run; a NeMo Gym configuration's run checks them before it starts, as NeMo Gym does.
  if (values['dry-run'] || nemoGym) await checkEndpoints(config, endpointSeconds(values, endpointTimeout), say, !!values['dry-run']);
  // A Switchyard deployment is loaded by Switchyard itself now: a bad one is refused before anything starts.
  await checkRouting(config.model, say, !!values['dry-run']);
  if (values['dry-run']) {
    say(`rollouts: ${materialized ? materialized.length : 'every task'} × ${config.numRepeats} repeat(s) → ${config.runDir}`);
    say('dry run: everything checked; nothing was started');
    return { runDir: config.runDir, finished: false };
  }
  const session = await openSession(say);
  try {
    const { manifest, resumed } = await prepareRun(config, datasetHash);
    if (materialized) await writeMaterialized(config.inputFile, materialized);
    let finished = resumed && (await showIfComplete(session, manifest, say, follow));
    if (!finished) {
      const handle = await startRun(session.client, manifest);
      say(`${resumed ? 'resuming' : 'started'} run ${config.runId} (workflow ${handle.workflowId}) → ${config.runDir}`);
      if (values.detach) return { runDir: config.runDir, finished: false };
      finished = !!(await followRun({ session, handle, runDir: config.runDir, taskQueue: config.taskQueue, withWorker: !values['no-worker'], logger, say, ...follow }));
    }
    if (finished && hasGate(gate)) await checkGate(config.runDir, gate, say);
    return { runDir: config.runDir, finished };
  } finally {
    await session.close();
  }
}

const DEFAULT_ENDPOINT_TIMEOUT_S = 30;

function endpointSeconds(values: Values, fromConfig: unknown): number {
  if (values['model-endpoint-timeout'] !== undefined) return numberFlag(values, 'model-endpoint-timeout', { min: 0, max: 3600 })!;
  if (fromConfig === undefined || fromConfig === null) return DEFAULT_ENDPOINT_TIMEOUT_S;
  if (typeof fromConfig !== 'number' || fromConfig < 0)
    throw new GymError('BAD_INPUT', `model_endpoint_readiness_timeout_seconds must be a number of seconds (0 skips the check), got ${JSON.stringify(fromConfig)}`);
  return fromConfig;
}

async function checkEndpoints(config: RunConfig, seconds: number, say: (line: string) => void, report: boolean): Promise<void> {
  const endpoints = [...endpointsOf('model', config.model), ...endpointsOf('judge model', config.judgeModel)];
  if (seconds === 0 || endpoints.length === 0) {
    if (report) say(endpoints.length ? 'model endpoints: not checked (timeout 0)' : 'model endpoints: none (mock model)');
    return;
  }
  const dead = await unreachableEndpoints(endpoints, seconds * 1000);
  if (dead.length) {
    throw new GymError('UNREACHABLE', `${dead.length} model endpoint(s) never answered within ${seconds}s; nothing was started`, [
      ...dead.map((d) => `${d.endpoint.role}: ${d.endpoint.url || '(none)'} (${d.reason})`),
      'any HTTP answer, even 401 or 404, counts: check the URL (curl -i <url>/models), or wait longer with --model-endpoint-timeout S (0 skips the check)',
    ]);
  }
  if (report) for (const e of endpoints) say(`${e.role}: ${e.url} answers`);
}

/** Writes the routed rows into the run folder, unless it already holds exactly these (a resumed run). */
/** The routed rows into the run's folder, once it is prepared (again: only when they differ). */
export async function writeMaterialized(file: string, lines: string[]): Promise<void> {
  const text = lines.map((l) => l + '\n').join('');
  if (existsSync(file) && readFileSync(file, 'utf8') === text) return;
  await writeFileAtomic(file, text);
}

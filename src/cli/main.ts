// The `gym` command: one table from command words to handlers, and one place that turns errors
// into a message and an exit status.
import { GymError, isGymError } from '../errors';
import { createLogger } from '../util/logger';

type Handler = (argv: string[], logger: ReturnType<typeof createLogger>, say: (line: string) => void) => Promise<void>;

/**
 * Each command's module is loaded only when it runs: loading them all (the Temporal worker, the gateway,
 * the exporters…) cost every `gym` start seconds, even `gym env list` or a misspelt flag.
 */
function lazy<M extends Record<string, unknown>>(load: () => Promise<M>, name: keyof M & string): Handler {
  return async (argv, logger, say) => ((await load())[name] as Handler)(argv, logger, say);
}

const COMMANDS: Record<string, Handler> = {
  'eval run': lazy(() => import('./commands/eval-run'), 'evalRun'),
  'eval submit': lazy(() => import('./commands/eval-submit'), 'evalSubmit'),
  'eval status': lazy(() => import('./commands/eval-manage'), 'evalStatus'),
  'eval list': lazy(() => import('./commands/eval-manage'), 'evalList'),
  'eval resume': lazy(() => import('./commands/eval-manage'), 'evalResume'),
  'eval retry-failures': lazy(() => import('./commands/eval-retry'), 'evalRetryFailures'),
  'eval history': lazy(() => import('./commands/eval-audit'), 'evalHistory'),
  'eval replay': lazy(() => import('./commands/eval-audit'), 'evalReplay'),
  'eval show': lazy(() => import('./commands/eval-audit'), 'evalShow'),
  'eval reverify': lazy(() => import('./commands/eval-reverify'), 'evalReverify'),
  'eval aggregate': lazy(() => import('./commands/eval-aggregate'), 'evalAggregate'),
  'eval health-check': lazy(() => import('./commands/eval-health'), 'evalHealthCheck'),
  'eval gate': lazy(() => import('./commands/eval-health'), 'evalGate'),
  'eval report': lazy(() => import('./commands/eval-report'), 'evalReport'),
  'eval compare': lazy(() => import('./commands/eval-report'), 'evalCompare'),
  'eval export': lazy(() => import('./commands/eval-export'), 'evalExport'),
  'eval export-training': lazy(() => import('./commands/eval-export-training'), 'evalExportTraining'),
  'eval trace': lazy(() => import('./commands/eval-trace'), 'evalTrace'),
  'eval pause': lazy(() => import('./commands/eval-control'), 'evalPause'),
  'eval unpause': lazy(() => import('./commands/eval-control'), 'evalUnpause'),
  'eval concurrency': lazy(() => import('./commands/eval-control'), 'evalConcurrency'),
  'eval cancel': lazy(() => import('./commands/eval-control'), 'evalCancel'),
  'config show': lazy(() => import('./commands/config-show'), 'configShow'),
  'dataset collate': lazy(() => import('./commands/dataset'), 'datasetCollate'),
  'dataset generate': lazy(() => import('./commands/dataset'), 'datasetGenerate'),
  'dataset generate-conversational': lazy(() => import('./commands/dataset-conversational'), 'datasetGenerateConversational'),
  'dataset materialize-conversational': lazy(() => import('./commands/dataset-conversational'), 'datasetMaterializeConversational'),
  'env list': lazy(() => import('./commands/env'), 'envList'),
  'env schema': lazy(() => import('./commands/dataset'), 'envSchema'),
  'env serve': lazy(() => import('./commands/env-serve'), 'envServe'),
  'gateway serve': lazy(() => import('./commands/gateway-serve'), 'gatewayServe'),
  'api serve': lazy(() => import('./commands/api-serve'), 'apiServe'),
  'sandbox list': lazy(() => import('./commands/sandbox'), 'sandboxList'),
  'sandbox gc': lazy(() => import('./commands/sandbox'), 'sandboxGc'),
  server: lazy(() => import('./commands/infra'), 'server'),
  worker: lazy(() => import('./commands/infra'), 'worker'),
  setup: lazy(() => import('./commands/infra'), 'setup'),
};

const USAGE = `gym — durable LLM/agent environments for evaluation and RL rollouts

  gym eval run --env <name> --model <mock|openai|vllm|anthropic> --input <jsonl> --output <dir>   run an eval (see --help)
  gym eval submit --model vllm --model-name NAME [run flags] [--nodes N --replicas-per-node R ...] [--dry-run]
                             a Slurm job serving the model with vLLM replicas and running the eval, resubmitted until done (docs/slurm.md)
  gym eval status <run>      progress or metrics of a run (folder or id)
  gym eval list [--env E] [--agent A] [--model M] [--status S]   runs known to the Temporal server
  gym eval resume <run> [--force]   re-attach to a running or interrupted run (same identity unless --force)
  gym eval retry-failures <run> [--class C]   play a finished run's sidecar rollouts again, as new attempts
  gym eval history <run>     export the run's workflow histories and a per-rollout summary into its folder
  gym eval replay <run>      replay those histories against this workflow code; non-zero on non-determinism
  gym eval show <run> --rollout <id>   one rollout's steps, model calls, retries and reward
  gym eval reverify <rollouts.jsonl> --env <name> [--env-option K=V] [--tasks <jsonl>]   recompute rewards without the policy model
  gym eval aggregate <rollouts.jsonl> [--format nemo-gym|gymflow] [--output F]   metrics again from a rollouts file of either system
  gym eval health-check <run>   rollout verdicts and quality summary from a run's files
  gym eval gate <run> --max-failed-fraction F --max-unhealthy-fraction H   exit non-zero when a run is not fit to use
  gym eval report <run> [--output FILE]   one self-contained HTML page of a run
  gym eval compare <runA> <runB>   each metric's difference and its significance, paired by task
  gym eval export <run-folder> [--to mlflow|wandb]   send a finished run to its exporters again
  gym eval export-training <run-folder> [--output FILE]   one training response per rollout (docs/training.md)
  gym eval trace <run> <rollout-id>   a rollout's timeline from the run's trace files
  gym eval pause|unpause|cancel [--abandon] <run>, gym eval concurrency <run> N   steer a running run
  gym config show [--config F] [k=v|+k=v|++k=v]   the resolved NeMo Gym-style configuration, secrets redacted
  gym dataset collate --config F --output-dir D [--mode M]   validate and merge the declared datasets (docs/configuration.md)
  gym dataset generate --env E --output F [--set K=V ...]   make task rows offline (ruler2's synthetic long-context tasks)
  gym dataset generate-conversational --stage domains|policy-tools|scenarios --input F --output F --model-spec S   NeMo Gym's conversational tool-use generators
  gym dataset materialize-conversational --stage domains|policy-tools|scenarios --input F --output F   the next stage's rows (last: task rows)
  gym env list               available environments
  gym env schema --env <name>   the JSON Schema of an environment's task rows
  gym env serve --env <name> [--host H] [--port P]   serve an environment as a NeMo Gym resources server
  gym env serve --nemo-gym <server> [--nemo-gym-python PATH]   start one of NeMo Gym's resources servers
  gym gateway serve [--host H] [--port P] [--config file]   the model gateway on its own (docs/gateway.md)
  gym api serve --token-file F [--host H] [--port P]   the HTTP trigger API for other services (docs/api.md)
  gym sandbox list [--run <id>] [--json]   sandboxes on this machine, with their run, rollout, attempt and owner
  gym sandbox gc [--run <id>] [--all] [--dry-run]   remove leftover sandboxes (dead owner, expired, a run's)
  gym server start|stop|status   the embedded Temporal dev server
  gym worker start           a worker process for the gymflow task queue
  gym setup [--harnesses L]  install the Temporal CLI (and external agent harnesses) into the project cache`;

export async function main(argv: string[]): Promise<number> {
  const say = (line: string) => process.stdout.write(line + '\n');
  const logger = createLogger('gym');
  const two = argv.slice(0, 2).join(' ');
  const key = COMMANDS[two] ? two : (argv[0] ?? '');
  const handler = COMMANDS[key];
  if (!handler) {
    if (!argv.length || argv[0] === '--help' || argv[0] === '-h') {
      say(USAGE);
      return 0;
    }
    process.stderr.write(`gym: unknown command "${argv.join(' ')}"\n\n${USAGE}\n`);
    return 2;
  }
  try {
    await handler(argv.slice(key.split(' ').length), logger, say);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (e) {
    const err = isGymError(e) ? e : undefined;
    if (err) {
      process.stderr.write(`gym: ${err.message}\n${(err.details ?? []).map((d) => `  ${d}\n`).join('')}`);
      return err.exitStatus;
    }
    logger.error({ err: e }, 'unexpected error');
    process.stderr.write(`gym: unexpected error: ${(e as Error).message ?? String(e)}\n`);
    return new GymError('INTERNAL', '').exitStatus;
  }
}

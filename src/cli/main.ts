// The `gym` command: one table from command words to handlers, and one place that turns errors
// into a message and an exit status.
import { GymError, isGymError } from '../errors';
import { createLogger } from '../util/logger';
import { evalRun } from './commands/eval-run';
import { evalReverify } from './commands/eval-reverify';
import { evalGate, evalHealthCheck } from './commands/eval-health';
import { evalCompare, evalReport } from './commands/eval-report';
import { evalExport } from './commands/eval-export';
import { evalExportTraining } from './commands/eval-export-training';
import { evalTrace } from './commands/eval-trace';
import { evalList, evalResume, evalStatus } from './commands/eval-manage';
import { evalHistory, evalReplay, evalShow } from './commands/eval-audit';
import { evalCancel, evalConcurrency, evalPause, evalUnpause } from './commands/eval-control';
import { configShow } from './commands/config-show';
import { datasetCollate, envSchema } from './commands/dataset';
import { evalRetryFailures } from './commands/eval-retry';
import { envList } from './commands/env';
import { envServe } from './commands/env-serve';
import { gatewayServe } from './commands/gateway-serve';
import { apiServe } from './commands/api-serve';
import { server, setup, worker } from './commands/infra';

type Handler = (argv: string[], logger: ReturnType<typeof createLogger>, say: (line: string) => void) => Promise<void>;

const COMMANDS: Record<string, Handler> = {
  'eval run': evalRun,
  'eval status': evalStatus,
  'eval list': evalList,
  'eval resume': evalResume,
  'eval retry-failures': evalRetryFailures,
  'eval history': evalHistory,
  'eval replay': evalReplay,
  'eval show': evalShow,
  'eval reverify': evalReverify,
  'eval health-check': evalHealthCheck,
  'eval gate': evalGate,
  'eval report': evalReport,
  'eval compare': evalCompare,
  'eval export': evalExport,
  'eval export-training': evalExportTraining,
  'eval trace': evalTrace,
  'eval pause': evalPause,
  'eval unpause': evalUnpause,
  'eval concurrency': evalConcurrency,
  'eval cancel': evalCancel,
  'config show': configShow,
  'dataset collate': datasetCollate,
  'env list': envList,
  'env schema': envSchema,
  'env serve': envServe,
  'gateway serve': gatewayServe,
  'api serve': apiServe,
  'server': server,
  'worker': worker,
  'setup': setup,
};

const USAGE = `gym — durable LLM/agent environments for evaluation and RL rollouts

  gym eval run --env <name> --model <mock|openai> --input <jsonl> --output <dir>   run an eval (see --help)
  gym eval status <run>      progress or metrics of a run (folder or id)
  gym eval list [--env E] [--agent A] [--model M] [--status S]   runs known to the Temporal server
  gym eval resume <run> [--force]   re-attach to a running or interrupted run (same identity unless --force)
  gym eval retry-failures <run> [--class C]   play a finished run's sidecar rollouts again, as new attempts
  gym eval history <run>     export the run's workflow histories and a per-rollout summary into its folder
  gym eval replay <run>      replay those histories against this workflow code; non-zero on non-determinism
  gym eval show <run> --rollout <id>   one rollout's steps, model calls, retries and reward
  gym eval reverify <rollouts.jsonl> --env <name> [--tasks <jsonl>]   recompute rewards without the policy model
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
  gym env list               available environments
  gym env schema --env <name>   the JSON Schema of an environment's task rows
  gym env serve --env <name> [--host H] [--port P]   serve an environment as a NeMo Gym resources server
  gym env serve --nemo-gym <server> [--nemo-gym-python PATH]   start one of NeMo Gym's resources servers
  gym gateway serve [--host H] [--port P] [--config file]   the model gateway on its own (docs/gateway.md)
  gym api serve --token-file F [--host H] [--port P]   the HTTP trigger API for other services (docs/api.md)
  gym server start|stop|status   the embedded Temporal dev server
  gym worker start           a worker process for the gymflow task queue
  gym setup                  install the Temporal CLI into the project cache`;

export async function main(argv: string[]): Promise<number> {
  const say = (line: string) => process.stdout.write(line + '\n');
  const logger = createLogger('gym');
  const two = argv.slice(0, 2).join(' ');
  const key = COMMANDS[two] ? two : argv[0] ?? '';
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

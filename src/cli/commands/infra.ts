// `gym setup`, `gym server start|stop|status` and `gym worker start`: the embedded Temporal server
// and the worker process.
import type { Logger } from 'pino';
import { GymError } from '../../errors';
import { installHarnesses } from '../../harnesses/install';
import { getHarness, harnessNames } from '../../harnesses/registry';
import { ensureTemporalCli } from '../../temporal/cli-binary';
import { isListening, readServerInfo, startDevServer, stopDevServer } from '../../temporal/dev-server';
import { temporalSettingsFromEnv } from '../../temporal/connection';
import { intFlag, parseFlags } from '../args';
import { readManifest } from '../../runs/client';
import { openSession, startWorker } from '../session';
import { WORKER_ROLES, type WorkerRole } from '../../../workers/roles';
import { MAX_CONCURRENCY } from '../../../workflows/definitions';

const SERVER_USAGE = 'usage: gym server start [--port P] [--ui-port U] [--headless] | gym server stop | gym server status';

const SETUP_USAGE = `usage: gym setup [--harnesses all|NAME,NAME…]
  installs the Temporal CLI into the project cache; --harnesses also installs external agent harnesses
  from npm (terminus-2: PyPI, into .gymflow/venvs) at their pinned versions into .gymflow/harnesses (${harnessNames().join(', ')})`;

export async function setup(argv: string[], _logger: Logger, say: (line: string) => void): Promise<void> {
  const { values } = parseFlags(argv, { harnesses: { type: 'string' } }, SETUP_USAGE);
  if (values.help) return say(SETUP_USAGE);
  const wanted = values.harnesses as string | undefined;
  const names =
    wanted === undefined
      ? []
      : wanted === 'all'
        ? harnessNames()
        : wanted
            .split(',')
            .map((n) => n.trim())
            .filter(Boolean);
  const adapters = names.map((name) => getHarness(name, '--harnesses'));
  // The CLI build is CPU, the harness installs are the registry and the disk: both at once.
  const cli = ensureTemporalCli(say).then((found) => say(`Temporal CLI: ${found}`));
  const harnesses = installHarnesses(adapters, say);
  const [built, harnessed] = await Promise.allSettled([cli, harnesses]);
  for (const outcome of [built, harnessed]) if (outcome.status === 'rejected') throw outcome.reason;
}

export async function server(argv: string[], _logger: Logger, say: (line: string) => void): Promise<void> {
  const [sub, ...rest] = argv;
  const { values } = parseFlags(rest, { port: { type: 'string' }, 'ui-port': { type: 'string' }, headless: { type: 'boolean' } }, SERVER_USAGE);
  if (values.help || !sub) return say(SERVER_USAGE);
  if (sub === 'start') {
    const info = await startDevServer({
      port: intFlag(values, 'port', { min: 1, fallback: 7233 }),
      uiPort: values.headless ? null : intFlag(values, 'ui-port', { min: 1 }),
      log: say,
    });
    say(`Temporal dev server: ${info.address} (pid ${info.pid}, database ${info.dbFile})${info.uiUrl ? `, Web UI ${info.uiUrl}` : ''}`);
  } else if (sub === 'stop') {
    say((await stopDevServer()) ? 'stopped the embedded Temporal server' : 'no embedded Temporal server is running');
  } else if (sub === 'status') {
    const info = await readServerInfo();
    const settings = temporalSettingsFromEnv();
    if (info && (await isListening(info.address))) say(`embedded server running: ${info.address} (pid ${info.pid}, ${info.dbFile})${info.uiUrl ? `, Web UI ${info.uiUrl}` : ''}`);
    else if (await isListening(settings.address)) say(`a Temporal server answers at ${settings.address}`);
    else {
      say(`no Temporal server answers at ${settings.address}`);
      process.exitCode = 1;
    }
  } else throw new GymError('BAD_FLAG', `unknown server command "${sub}"\n\n${SERVER_USAGE}`);
}

export async function worker(argv: string[], logger: Logger, say: (line: string) => void): Promise<void> {
  const [sub, ...rest] = argv;
  const usage = `usage: gym worker start --run <run folder>     work on one run (its own task queue)
       gym worker start --task-queue <name>   a shared pool, for runs started with --task-queue <name>
  [--role R]          all (default: workflows, steps, collation, batches) or rollouts (only the rollout grain's
                      batches, from a run's --rollout-queue: with --run, that run's; with --task-queue, the queue named)
  [--max-rollouts N]  rollouts this worker's batches play at once, over all of them (default: as the runs ask)
  [--gateway-host H] [--gateway-port P]   where the worker's model gateway listens (default a free loopback port);
                                          its token is GYMFLOW_GATEWAY_TOKEN when set`;
  const { values } = parseFlags(
    rest,
    { run: { type: 'string' }, 'task-queue': { type: 'string' }, role: { type: 'string' }, 'max-rollouts': { type: 'string' }, 'gateway-host': { type: 'string' }, 'gateway-port': { type: 'string' } },
    usage,
  );
  if (values.help || sub !== 'start') {
    if (sub && sub !== 'start') throw new GymError('BAD_FLAG', `unknown worker command "${sub}"\n\n${usage}`);
    return say(usage);
  }
  const role = (values.role as string | undefined) ?? 'all';
  if (!(WORKER_ROLES as readonly string[]).includes(role)) throw new GymError('BAD_FLAG', `--role ${role}: use ${WORKER_ROLES.join(' or ')}\n\n${usage}`);
  const maxRollouts = intFlag(values, 'max-rollouts', { min: 1, max: MAX_CONCURRENCY });
  const taskQueue = await workerTaskQueue(values.run as string | undefined, values['task-queue'] as string | undefined, role as WorkerRole, usage);
  const session = await openSession(say);
  const gateway = { host: values['gateway-host'] as string | undefined, port: intFlag(values, 'gateway-port', { min: 0, max: 65535 }), token: process.env.GYMFLOW_GATEWAY_TOKEN || undefined };
  const w = await startWorker(session, logger, taskQueue, gateway, { role: role as WorkerRole, maxRollouts });
  const stop = () => w.worker.shutdown();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const what = role === 'rollouts' ? 'rollout batches of task queue' : 'task queue';
  say(`worker polling ${what} ${taskQueue} on ${session.settings.address}${maxRollouts ? `, at most ${maxRollouts} rollouts at once` : ''}; gateway at ${w.gateway.url}`);
  await w.run();
  await session.close();
}

/** A worker serves one run's queue or one named pool, never every run on the server. */
async function workerTaskQueue(run: string | undefined, pool: string | undefined, role: WorkerRole, usage: string): Promise<string> {
  if (run && pool) throw new GymError('BAD_FLAG', `give --run or --task-queue, not both\n\n${usage}`);
  if (pool) return pool;
  if (!run) throw new GymError('BAD_FLAG', `a worker needs --run <run folder> or --task-queue <name>\n\n${usage}`);
  const manifest = await readManifest(run);
  if (!manifest) throw new GymError('NOT_FOUND', `--run: ${run} holds no manifest.json; pass the folder given to --output of gym eval run`);
  if (role !== 'rollouts') return manifest.config.taskQueue;
  if (!manifest.config.rolloutQueue)
    throw new GymError('BAD_FLAG', `--role rollouts: run ${manifest.run_id} has no rollout queue (it was not started with --rollout-queue); its own workers play its batches`);
  return manifest.config.rolloutQueue;
}

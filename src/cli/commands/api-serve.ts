// `gym api serve`: the trigger API (docs/api.md) in front of the Temporal server, with a worker in this
// process for the runs it starts (they all go on one task queue), unless workers elsewhere serve it.
import path from 'node:path';
import type { Logger } from 'pino';
import { GymError } from '../../errors';
import { loadToken } from '../../api/auth';
import { RequestLedger } from '../../api/request-ledger';
import { RunsService } from '../../api/runs-service';
import { startApiServer } from '../../api/server';
import { intFlag, parseFlags } from '../args';
import { openSession, startWorker } from '../session';
import { untilStopped } from '../until-stopped';
import { checkOutputDir } from '../../runs/output-dir';

const USAGE = `usage: gym api serve (--token-file FILE | --token-env VARIABLE) [options]

  --host H               where to listen (default 127.0.0.1: this machine only)
  --port P               (default 8421; 0 picks a free port)
  --token-file FILE      the bearer token clients send, on the file's first line
  --token-env VARIABLE   or the name of the environment variable holding it
  --runs-dir DIR         every run's folder lies inside it (default ./runs)
  --state-dir DIR        where request ids and their runs are recorded (default .gymflow/api)
  --task-queue Q         the task queue of the runs it starts (default gymflow-api)
  --no-worker            run no worker here: gym worker start --task-queue Q elsewhere serves the runs
  --allow-secret-env VAR a variable runs may name for a key (openai.api_key_env, exporter tokens), repeatable
  --status-cache-ms MS   polls of a run are answered from its last reading, refreshed in the background once it
                         is this old (default 500)`;

export async function apiServe(argv: string[], logger: Logger, say: (line: string) => void): Promise<void> {
  const { values, positionals } = parseFlags(
    argv,
    {
      host: { type: 'string' },
      port: { type: 'string' },
      'token-file': { type: 'string' },
      'token-env': { type: 'string' },
      'runs-dir': { type: 'string' },
      'state-dir': { type: 'string' },
      'task-queue': { type: 'string' },
      'no-worker': { type: 'boolean' },
      'allow-secret-env': { type: 'string', multiple: true },
      'status-cache-ms': { type: 'string' },
    },
    USAGE,
  );
  if (values.help) return say(USAGE);
  if (positionals.length) throw new GymError('BAD_FLAG', `unexpected argument "${positionals[0]}"\n\n${USAGE}`);
  const token = loadToken({ tokenFile: values['token-file'], tokenEnv: values['token-env'] });
  const taskQueue = values['task-queue'] ?? 'gymflow-api';
  const port = intFlag(values, 'port', { min: 0, max: 65535, fallback: 8421 })!;
  const statusCacheMs = intFlag(values, 'status-cache-ms', { min: 0, max: 60_000, fallback: 500 })!;
  const runsDir = path.resolve(values['runs-dir'] ?? 'runs');
  // Once here, so a run's folder need only be found free when it is asked for (and made when it starts).
  checkOutputDir(runsDir, '--runs-dir');
  // Before the Temporal session: a state folder another API holds is refused at once. (Should this process
  // fail before it closes the ledger, its lock names a pid that is gone, and the next API takes it over.)
  const ledger = await RequestLedger.open(path.join(path.resolve(values['state-dir'] ?? '.gymflow/api'), 'requests'));
  const session = await openSession(say);
  const worker = values['no-worker'] ? undefined : await startWorker(session, logger, taskQueue);
  const runs = new RunsService({
    client: () => session.client,
    policy: { runsDir, taskQueue, allowedSecretEnv: new Set(values['allow-secret-env'] ?? []) },
    ledger,
    logger: logger.child({ component: 'api' }),
    statusCacheMs,
  });
  const recovered = runs.recover();
  if (recovered) say(`gym api: starting the runs of ${recovered} recorded request(s) whose run had not started`);
  const server = await startApiServer({ host: values.host ?? '127.0.0.1', port, token, runs, logger: logger.child({ component: 'api' }) });
  say(`gym api: serving on ${server.url} (task queue ${taskQueue}, ${worker ? 'worker in this process' : 'no worker here'})`);
  const stopped = untilStopped();
  try {
    if (worker) await worker.run(stopped);
    else await stopped;
  } finally {
    await server.close();
    runs.close();
    await ledger.close();
    await session.close();
  }
}

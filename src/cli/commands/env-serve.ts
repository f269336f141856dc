// `gym env serve`: one of our environments as a NeMo Gym resources server, for NeMo Gym agents and
// external harnesses; or, with --nemo-gym, one of NeMo Gym's own servers for `--env remote`; until SIGINT or SIGTERM.
import type { Logger } from 'pino';
import { GymError } from '../../errors';
import { getEnvironment } from '../../environments/registry';
import { startNemoGymServer } from '../../environments/remote/launch';
import { startEnvironmentServer } from '../../environments/server';
import { installTracing, tracingSettingsFromEnv } from '../../tracing/provider';
import { intFlag, parseFlags } from '../args';
import { untilStopped } from '../until-stopped';

const USAGE = `usage: gym env serve --env <name> [--host 127.0.0.1] [--port 0]   (port 0 picks a free one)
       gym env serve --nemo-gym <server> [--nemo-gym-python PATH] [--host 127.0.0.1] [--port 0]
  --nemo-gym <server>     start NeMo Gym's resources server <server> (e.g. mcqa) from a NeMo Gym install instead
  --nemo-gym-python PATH  that install's python (default: the venv of scripts/setup-nemo-gym.sh)`;

export async function envServe(argv: string[], logger: Logger, say: (line: string) => void): Promise<void> {
  const flags = { env: { type: 'string' }, host: { type: 'string' }, port: { type: 'string' }, 'nemo-gym': { type: 'string' }, 'nemo-gym-python': { type: 'string' } } as const;
  const { values } = parseFlags(argv, flags, USAGE);
  if (values.help) return say(USAGE);
  const port = intFlag(values, 'port', { min: 0, fallback: 0 })!;
  if (port > 65535) throw new GymError('BAD_FLAG', `--port must be at most 65535, got ${port}`);
  const host = values.host ?? '127.0.0.1';
  const nemoGym = values['nemo-gym'] as string | undefined;
  if (nemoGym !== undefined && values.env !== undefined) throw new GymError('BAD_FLAG', "give --env (one of ours) or --nemo-gym (one of NeMo Gym's), not both");
  if (nemoGym === undefined && values['nemo-gym-python'] !== undefined) throw new GymError('BAD_FLAG', '--nemo-gym-python only goes with --nemo-gym');
  if (nemoGym !== undefined) {
    const server = await startNemoGymServer({ server: nemoGym, python: values['nemo-gym-python'] as string | undefined, host, port });
    // One write, so whoever reads the first line (the URL) has the hint too.
    say(
      `NeMo Gym resources server ${nemoGym} served at ${server.url}\n` +
        `  run it: gym eval run --env remote --remote-url ${server.url}${server.tools.length ? ` --remote-tools ${server.tools.join(',')}` : ''} …`,
    );
    await untilStopped();
    await server.close();
    return;
  }
  if (values.env === undefined) throw new GymError('BAD_FLAG', `--env is required (or --nemo-gym <server> for one of NeMo Gym's)\n\n${USAGE}`);
  const env = getEnvironment(values.env as string);
  // No run folder here: its spans go over OTLP only, joining each rollout's trace through `traceparent`.
  installTracing('gymflow-env-server', logger, { ...tracingSettingsFromEnv(), files: false });
  const server = await startEnvironmentServer({ env, host, port, logger });
  say(`environment ${env.name} served at ${server.url}`);
  await untilStopped();
  await server.close();
}

// `gym env serve`: one of our environments as a NeMo Gym resources server, for NeMo Gym agents and
// external harnesses, until SIGINT or SIGTERM.
import type { Logger } from 'pino';
import { GymError } from '../../errors';
import { getEnvironment } from '../../environments/registry';
import { startEnvironmentServer } from '../../environments/server';
import { installTracing, tracingSettingsFromEnv } from '../../tracing/provider';
import { intFlag, parseFlags, requireFlag } from '../args';
import { untilStopped } from '../until-stopped';

const USAGE = 'usage: gym env serve --env <name> [--host 127.0.0.1] [--port 0]   (port 0 picks a free one)';

export async function envServe(argv: string[], logger: Logger, say: (line: string) => void): Promise<void> {
  const { values } = parseFlags(argv, { env: { type: 'string' }, host: { type: 'string' }, port: { type: 'string' } }, USAGE);
  if (values.help) return say(USAGE);
  const env = getEnvironment(requireFlag(values, 'env', USAGE));
  const port = intFlag(values, 'port', { min: 0, fallback: 0 })!;
  if (port > 65535) throw new GymError('BAD_FLAG', `--port must be at most 65535, got ${port}`);
  // No run folder here: its spans go over OTLP only, joining each rollout's trace through `traceparent`.
  installTracing('gymflow-env-server', logger, { ...tracingSettingsFromEnv(), files: false });
  const server = await startEnvironmentServer({ env, host: values.host ?? '127.0.0.1', port, logger });
  say(`environment ${env.name} served at ${server.url}`);
  await untilStopped();
  await server.close();
}

// `gym gateway serve`: the model gateway on its own, for harnesses and orchestrators outside a worker,
// until SIGINT or SIGTERM. Prints its base URL and the models it serves; never prints the token.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { readGatewayConfig } from '../../gateway/config';
import { startGateway } from '../../gateway/server';
import { intFlag, parseFlags } from '../args';
import { untilStopped } from '../until-stopped';

const USAGE = `usage: gym gateway serve [--host H] [--port P] [--config gateway.yaml] [--token-file F]
  The token comes from the variable named by token_env (default GYMFLOW_GATEWAY_TOKEN); when it is unset
  one is generated and written to --token-file (default .gymflow/gateway/token, mode 0600).`;

export async function gatewayServe(argv: string[], logger: Logger, say: (line: string) => void): Promise<void> {
  const { values } = parseFlags(argv, { host: { type: 'string' }, port: { type: 'string' }, config: { type: 'string' }, 'token-file': { type: 'string' } }, USAGE);
  if (values.help) return say(USAGE);
  const config = readGatewayConfig(values.config as string | undefined);
  const port = intFlag(values, 'port', { min: 0, max: 65535, fallback: config.port })!;
  const given = process.env[config.token_env];
  const gateway = await startGateway({ host: (values.host as string | undefined) ?? config.host, port, logger, token: given || undefined });
  try {
    if (!given) {
      const file = path.resolve((values['token-file'] as string | undefined) ?? '.gymflow/gateway/token');
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, gateway.token + '\n', { mode: 0o600 });
      say(`${config.token_env} is not set: generated a token in ${file}`);
    }
    say(`gateway at ${gateway.url} (rollout-scoped: ${gateway.url.replace(/\/v1$/, '')}/r/<id>/v1; register ids with POST /gymflow/rollouts)`);
    for (const spec of config.models) say(`  model ${gateway.register(spec)} (${spec.backend})`);
  } catch (e) {
    await gateway.close();
    throw e;
  }
  await untilStopped();
  await gateway.close();
}

// `gym env list`: the environments this build knows.
import type { Logger } from 'pino';
import { environmentNames, getEnvironment } from '../../environments/registry';
import { parseFlags } from '../args';

export async function envList(argv: string[], _logger: Logger, say: (line: string) => void): Promise<void> {
  const { values } = parseFlags(argv, { json: { type: 'boolean' } }, 'usage: gym env list [--json]');
  const envs = environmentNames().map((n) => getEnvironment(n));
  if (values.json) return say(JSON.stringify(envs.map((e) => ({ name: e.name, description: e.description, reverify_mode: e.reverifyMode, tools: Object.keys(e.tools) })), null, 2));
  for (const e of envs) say(`${e.name.padEnd(48)} ${e.description}`);
}

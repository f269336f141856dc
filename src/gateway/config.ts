// The standalone gateway's settings (`gym gateway serve --config file`): where it listens, where its
// token comes from, and the models it serves. Keys stay in the environment: the file names variables.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';
import { GymError } from '../errors';
import { ModelSpec } from './spec';

export const GatewayConfig = z.strictObject({
  host: z.string().min(1).default('127.0.0.1'),
  port: z.number().int().min(0).max(65535).default(0),
  /** The NAME of the variable holding the gateway token; when it is unset a token is generated. */
  token_env: z.string().min(1).default('GYMFLOW_GATEWAY_TOKEN'),
  models: z.array(ModelSpec).default([]),
});
export type GatewayConfig = z.infer<typeof GatewayConfig>;

/** The file's settings, or a BAD_INPUT naming the file and the field; no file means the defaults. */
export function readGatewayConfig(file: string | undefined): GatewayConfig {
  let doc: unknown = {};
  if (file !== undefined) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      throw new GymError('BAD_INPUT', `--config: cannot read ${file}: ${(e as Error).message}`);
    }
    try {
      doc = parse(text) ?? {};
    } catch (e) {
      throw new GymError('BAD_INPUT', `${file}: not YAML or JSON: ${(e as Error).message}`);
    }
  }
  const parsed = GatewayConfig.safeParse(doc);
  if (!parsed.success) {
    const details = parsed.error.issues.map((i) => `${i.path.join('.') || '(file)'}: ${i.message}`);
    throw new GymError('BAD_INPUT', `${file ?? 'gateway settings'}: ${details.join('; ')}`, details);
  }
  return parsed.data;
}

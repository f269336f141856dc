// How `gym eval run` reads a NeMo Gym configuration's run keys as its own flags: output, repeats (as routed),
// concurrency, the agents' context_history and the policy model server (openai_model, vllm_model, switchyard_model); flags on
// the command line win.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { formatHistoryPolicy } from '../../agents/history-policy';
import { SERVER_TYPES } from '../../config/check';
import { isMap } from '../../config/tree';
import { GymError } from '../../errors';
import type { ConfigRun } from '../../routing/from-config';

type Flags = Record<string, string | string[]>;

/** A NeMo Gym configuration has config_paths or server instances at its top; a flat eval file has flag names. */
export function isNemoGymConfigFile(file: string): boolean {
  let doc: unknown;
  try {
    doc = parse(readFileSync(file, 'utf8'));
  } catch {
    // Not readable or not YAML: the flat reader reports it with its own message.
    return false;
  }
  if (!isMap(doc)) return false;
  return 'config_paths' in doc || Object.values(doc).some((v) => isMap(v) && Object.keys(v).length === 1 && (SERVER_TYPES as readonly string[]).includes(Object.keys(v)[0]!));
}

/** The flags a configuration's keys stand for (NeMo Gym's names: output_jsonl_fpath, num_repeats, num_samples_in_parallel). */
export function configRunFlags(run: ConfigRun): Flags {
  const keys = run.keys;
  const flags: Flags = {};
  if (typeof keys.output_jsonl_fpath === 'string') flags.output = keys.output_jsonl_fpath.replace(/\.jsonl$/, '');
  // num_repeats by agent is resolved with the routing (a row's repeats may be its own lines).
  if (run.numRepeats !== undefined) flags['num-repeats'] = String(run.numRepeats);
  if (typeof keys.num_samples_in_parallel === 'number') flags.concurrency = String(keys.num_samples_in_parallel);
  if (run.historyPolicy) flags['history-policy'] = formatHistoryPolicy(run.historyPolicy);
  return { ...flags, ...modelFlags(run) };
}

/**
 * The policy model from the model server the routed agents use. Its key, when the configuration holds one,
 * is named by a variable (`lendModelKey` puts it there): runs carry names, never keys.
 */
function modelFlags(run: ConfigRun): Flags {
  const server = run.modelServer;
  if (!server) return {};
  const c = server.config;
  let flags: Flags;
  if (server.implementation === 'openai_model') flags = { model: 'openai', ...opt('model-name', text(c.openai_model)), ...opt('model-url', text(c.openai_base_url)) };
  else if (server.implementation === 'vllm_model')
    flags = { model: 'vllm', ...opt('model-name', text(c.model)), ...opt('model-url', Array.isArray(c.base_url) ? text(c.base_url[0]) : text(c.base_url)) };
  else if (server.implementation === 'switchyard_model') flags = switchyardFlags(c);
  else return {};
  const key = modelKey(run);
  return key ? { ...flags, 'api-key-env': key.variable } : flags;
}

const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

/** NeMo Gym's switchyard_model: a proxy's base URL attaches (and wins over a deployment, as there), else the deployment is hosted. */
function switchyardFlags(c: Record<string, unknown>): Flags {
  const url = text(c.switchyard_base_url);
  const headers = Array.isArray(c.session_id_headers) ? c.session_id_headers.filter((h): h is string => typeof h === 'string') : undefined;
  return {
    model: 'switchyard',
    ...opt('model-name', text(c.switchyard_model)),
    ...(url ? { 'model-url': url } : opt('switchyard-deployment', text(c.deployment))),
    ...(headers?.length ? { 'switchyard-session-header': headers } : {}),
  };
}

/** The key the configuration's policy model server holds, and the variable a run names it by. */
function modelKey(run: ConfigRun): { server: string; variable: string; key: string } | undefined {
  const server = run.modelServer;
  if (!server) return undefined;
  const key = text(server.implementation === 'openai_model' ? server.config.openai_api_key : server.implementation === 'vllm_model' ? server.config.api_key : undefined);
  return key ? { server: server.name, variable: `GYMFLOW_API_KEY_${server.name.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}`, key } : undefined;
}

/**
 * Puts the configuration's model key in this process's environment, where its worker's gateway reads it.
 * One process holds one key per variable (per model-server name), for every run it starts (the trigger API
 * starts many): a key that differs from the one held is refused, never silently replaced by it.
 */
export function lendModelKey(run: ConfigRun): void {
  const lent = modelKey(run);
  if (!lent) return;
  const held = process.env[lent.variable];
  if (held === undefined) process.env[lent.variable] = lent.key;
  else if (held !== lent.key) {
    throw new GymError(
      'BAD_INPUT',
      `model server "${lent.server}": its key differs from the one this process already holds for that name in ${lent.variable} (lent to an earlier run, or set in its environment); a process holds one key per model-server name, so give this model server another name, or set the model's key with the run's own settings`,
    );
  }
}

const opt = (flag: string, value: string | undefined): Flags => (value === undefined ? {} : { [flag]: value });

// How `gym eval run` reads a NeMo Gym configuration's run keys as its own flags: output, repeats (as routed),
// concurrency, the agents' context_history and the policy model server (openai_model, vllm_model); flags on
// the command line win.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { formatHistoryPolicy } from '../../agents/history-policy';
import { SERVER_TYPES } from '../../config/check';
import { isMap } from '../../config/tree';
import type { ConfigRun } from '../../routing/from-config';

type Flags = Record<string, string>;

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
 * The policy model from the model server the routed agents use. Its key, when the configuration holds
 * one, is put in this process's environment under a variable the run names: runs carry names, never keys.
 */
function modelFlags(run: ConfigRun): Flags {
  const server = run.modelServer;
  if (!server) return {};
  const c = server.config;
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  let flags: Flags;
  let key: string | undefined;
  if (server.implementation === 'openai_model') {
    flags = { model: 'openai', ...opt('model-name', text(c.openai_model)), ...opt('model-url', text(c.openai_base_url)) };
    key = text(c.openai_api_key);
  } else if (server.implementation === 'vllm_model') {
    flags = { model: 'vllm', ...opt('model-name', text(c.model)), ...opt('model-url', Array.isArray(c.base_url) ? text(c.base_url[0]) : text(c.base_url)) };
    key = text(c.api_key);
  } else return {};
  if (key) {
    const variable = `GYMFLOW_API_KEY_${server.name.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}`;
    process.env[variable] ??= key;
    flags['api-key-env'] = variable;
  }
  return flags;
}

const opt = (flag: string, value: string | undefined): Flags => (value === undefined ? {} : { [flag]: value });

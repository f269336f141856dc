// Eval definitions in YAML (configs/evals/*.yaml): the same settings as the flags, snake_case, with
// `mock:`, `openai:`, `judge:` and `exporters:` groups. Flags given on the command line win over the file.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { GymError } from '../errors';
import { EXPORTER_KEYS } from '../exporters/config';
import { TIMEOUT_FLAGS } from './model-timeouts';

interface Group {
  readonly [key: string]: string | Group;
}

/** Settings grouped under a backend (groups may nest), and the flag each stands for. */
const GROUPS: Group = {
  mock: { accuracy: 'mock-accuracy', seed: 'mock-seed', latency_ms: 'mock-latency-ms', replay: 'mock-replay' },
  openai: { name: 'model-name', url: 'model-url', api_key_env: 'api-key-env', timeouts: TIMEOUT_FLAGS },
  judge: { model: 'judge-model', name: 'judge-model-name', url: 'judge-model-url' },
  exporters: EXPORTER_KEYS,
};

/** The setting of the file (and of the trigger API's request body) a flag stands for: `mock-accuracy` → `mock.accuracy`. */
export function settingOfFlag(flag: string): string {
  const find = (group: Group, where: string): string | undefined => {
    for (const [key, inner] of Object.entries(group)) {
      const at = where ? `${where}.${key}` : key;
      const found = typeof inner === 'object' ? find(inner, at) : inner === flag ? at : undefined;
      if (found) return found;
    }
    return undefined;
  };
  return find(GROUPS, '') ?? (flag === 'env-option' ? 'env_options' : flag.replaceAll('-', '_'));
}

/** Flattens the file into flag names: `num_repeats` → `num-repeats`, `mock: {accuracy}` → `mock-accuracy`. */
export function configToFlags(doc: Record<string, unknown>, known: ReadonlySet<string>, file: string): Record<string, string | boolean | string[]> {
  const out: Record<string, string | boolean | string[]> = {};
  const put = (flag: string, where: string, value: unknown) => {
    if (!known.has(flag)) throw new GymError('BAD_INPUT', `${file}: unknown setting "${where}"`);
    if (Array.isArray(value)) out[flag] = value.map(String);
    else if (typeof value === 'boolean') out[flag] = value;
    else if (value !== null && value !== undefined) out[flag] = String(value);
  };
  const putGroup = (group: Group, where: string, value: unknown) => {
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw new GymError('BAD_INPUT', `${file}: "${where}" must be a mapping`);
    for (const [k, v] of Object.entries(value)) {
      const inner = group[k];
      if (inner === undefined) throw new GymError('BAD_INPUT', `${file}: unknown setting "${where}.${k}"; known: ${Object.keys(group).join(', ')}`);
      if (typeof inner === 'object') putGroup(inner, `${where}.${k}`, v);
      else put(inner, `${where}.${k}`, v);
    }
  };
  for (const [key, value] of Object.entries(doc)) {
    if (key === 'env_options') {
      if (!value || typeof value !== 'object' || Array.isArray(value)) throw new GymError('BAD_INPUT', `${file}: "env_options" must be a mapping`);
      put(
        'env-option',
        key,
        Object.entries(value).map(([k, v]) => `${k}=${JSON.stringify(v)}`),
      );
      continue;
    }
    const group = GROUPS[key];
    if (typeof group === 'object') putGroup(group, key, value);
    else put(key.replaceAll('_', '-'), key, value);
  }
  return out;
}

export function readConfigFile(file: string, known: ReadonlySet<string>): Record<string, string | boolean | string[]> {
  let doc: unknown;
  try {
    doc = parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new GymError((e as NodeJS.ErrnoException).code === 'ENOENT' ? 'NOT_FOUND' : 'BAD_INPUT', `cannot read config ${file}: ${(e as Error).message}`);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new GymError('BAD_INPUT', `${file} must be a YAML mapping of settings`);
  const flags = configToFlags(doc as Record<string, unknown>, known, file);
  // Paths in the file are relative to the file, so a config works from any working directory.
  for (const key of ['input', 'output']) if (typeof flags[key] === 'string') flags[key] = path.resolve(path.dirname(file), flags[key] as string);
  if (Array.isArray(flags['mock-replay'])) flags['mock-replay'] = flags['mock-replay'].map((f) => path.resolve(path.dirname(file), f));
  return flags;
}

// Command-line overrides in NeMo Gym's (Hydra's) three forms: `key.path=value` changes a key the
// configuration already has, `+key=value` adds one, `++key=value` sets it either way.
import { parse } from 'yaml';
import { GymError } from '../errors';
import { getPath, isMap, keyPath, type ConfigMap, type ConfigValue } from './tree';

export interface Override {
  readonly text: string;
  readonly mode: 'change' | 'add' | 'set';
  readonly path: readonly string[];
  readonly value: ConfigValue;
}

const KEY = /^[A-Za-z_][\w-]*$/;

/** Parses one override; the value is read as YAML (`[a,b]`, `{k: v}`, `3`, `true`, `null`), as Hydra reads it. */
export function parseOverride(text: string): Override {
  const m = /^(\+{0,2})([^=]+)=(.*)$/s.exec(text);
  if (!m) throw new GymError('BAD_FLAG', `override "${text}" must be key.path=value, +key.path=value or ++key.path=value`);
  const [, plus, key, raw] = m as unknown as [string, string, string, string];
  const path = key.split('.');
  const bad = path.find((p) => !KEY.test(p));
  if (bad !== undefined) throw new GymError('BAD_FLAG', `override "${text}": "${bad}" is not a key name (letters, digits, _ and -)`);
  let value: ConfigValue;
  try {
    value = raw === '' ? '' : (parse(raw) as ConfigValue);
  } catch (e) {
    throw new GymError('BAD_FLAG', `override "${text}": the value is not valid YAML (${(e as Error).message.split('\n')[0]})`);
  }
  return { text, mode: plus === '++' ? 'set' : plus === '+' ? 'add' : 'change', path, value: value ?? null };
}

/**
 * The overrides as one tree to merge last. `change` needs the key to exist in `base` (the merged files),
 * so a misspelt key is an error rather than a new setting; `add` and `set` may create it. Adding a key
 * the files already set is allowed, as in NeMo Gym, whose command line is applied before files are read.
 */
export function overridesTree(overrides: readonly Override[], base: ConfigMap): ConfigMap {
  const tree: ConfigMap = {};
  for (const o of overrides) {
    if (o.mode === 'change' && getPath(base, o.path) === undefined) {
      throw new GymError('BAD_FLAG', `override "${o.text}": the configuration has no key ${keyPath(o.path)}; use +${o.text} to add it`);
    }
    let node = tree;
    for (const key of o.path.slice(0, -1)) {
      if (!isMap(node[key])) node[key] = {};
      node = node[key] as ConfigMap;
    }
    node[o.path.at(-1)!] = o.value;
  }
  return tree;
}

// `${key.path}`, `${env:VAR}` and OmegaConf's `${oc.env:VAR,default}` resolved over a merged tree, and
// `???` (a value that must be given) checked, reporting every problem at once with the file and key path.
import { parse } from 'yaml';
import { getPath, isMap, keyPath, sourceOf, type ConfigMap, type ConfigValue, type Sources } from './tree';

export interface ConfigProblem {
  readonly path: string;
  readonly source: string | undefined;
  readonly message: string;
}

type Env = Readonly<Record<string, string | undefined>>;

/** Returns the tree with every interpolation replaced; problems are collected, never thrown one by one. */
export function resolveTree(tree: ConfigMap, sources: Sources, env: Env): { config: ConfigMap; problems: ConfigProblem[] } {
  const problems: ConfigProblem[] = [];
  const done = new Map<string, ConfigValue>();
  const active = new Set<string>();
  const report = (path: readonly string[], message: string) => problems.push({ path: keyPath(path), source: sourceOf(sources, path), message });

  const valueAt = (path: readonly string[]): ConfigValue => {
    const key = keyPath(path);
    const cached = done.get(key);
    if (cached !== undefined) return cached;
    const raw = getPath(tree, path)!;
    active.add(key);
    const resolved = walk(raw, [...path]);
    active.delete(key);
    done.set(key, resolved);
    return resolved;
  };

  const reference = (expr: string, at: readonly string[]): ConfigValue | undefined => {
    const envMatch = /^(?:oc\.)?env:([^,]+)(?:,(.*))?$/s.exec(expr);
    if (envMatch) {
      const name = envMatch[1]!.trim();
      const value = env[name];
      if (value !== undefined) return value;
      // A default is read as a YAML scalar (`false`, `10`, `null`), as OmegaConf's resolver arguments are; a set variable stays text.
      if (envMatch[2] !== undefined) return scalar(envMatch[2].trim());
      report(at, `\${${expr}}: the environment variable ${name} is not set (give a default: \${env:${name},<default>})`);
      return undefined;
    }
    if (/^[\w.-]+:/.test(expr)) {
      report(at, `\${${expr}}: unknown resolver "${expr.slice(0, expr.indexOf(':'))}" (known: env, oc.env)`);
      return undefined;
    }
    const target = expr.trim().split('.');
    const targetKey = keyPath(target);
    if (getPath(tree, target) === undefined) {
      report(at, `\${${expr}} refers to ${targetKey}, which no file, env.yaml or override sets; pass ++${targetKey}=<value>`);
      return undefined;
    }
    if (active.has(targetKey)) {
      report(at, `\${${expr}} refers back to itself through ${[...active, targetKey].join(' → ')}`);
      return undefined;
    }
    return valueAt(target);
  };

  const text = (s: string, at: readonly string[]): ConfigValue => {
    const parts = splitInterpolations(s);
    if (parts === undefined) {
      report(at, `"${s}" has a \${ without its closing }`);
      return s;
    }
    if (parts.length === 1 && typeof parts[0] !== 'string') return reference(parts[0]!.expr, at) ?? s;
    let out = '';
    for (const part of parts) {
      if (typeof part === 'string') out += part;
      else {
        const v = reference(part.expr, at);
        if (v === undefined) return s;
        if (typeof v === 'object' && v !== null) {
          report(at, `\${${part.expr}} is a ${Array.isArray(v) ? 'list' : 'mapping'} and cannot be part of the text "${s}"`);
          return s;
        }
        out += String(v);
      }
    }
    return out;
  };

  function walk(value: ConfigValue, path: string[]): ConfigValue {
    if (typeof value === 'string') {
      if (value === '???') {
        report(path, `${keyPath(path)} must be given (it is ??? in the configuration); pass ++${keyPath(path)}=<value>`);
        return value;
      }
      return value.includes('${') ? text(value, path) : value;
    }
    if (Array.isArray(value)) return value.map((v, i) => walkChild(v, [...path, String(i)]));
    if (isMap(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walkChild(v, [...path, k])]));
    return value;
  }

  // A child reached through its parent is resolved once, and shares the memo with references to it.
  const walkChild = (value: ConfigValue, path: string[]): ConfigValue => (typeof value === 'string' || isMap(value) || Array.isArray(value) ? valueAt(path) : value);

  const config = walk(tree, []) as ConfigMap;
  return { config, problems };
}

type Part = string | { expr: string };

/** Splits a text into literal parts and `${…}` expressions (nesting allowed in defaults; `\${` is literal). */
export function splitInterpolations(s: string): Part[] | undefined {
  const parts: Part[] = [];
  let literal = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\' && s.startsWith('${', i + 1)) {
      literal += '${';
      i += 2;
      continue;
    }
    if (!s.startsWith('${', i)) {
      literal += s[i];
      continue;
    }
    let depth = 0;
    let j = i;
    for (; j < s.length; j++) {
      if (s.startsWith('${', j)) {
        depth++;
        j++;
      } else if (s[j] === '}' && --depth === 0) break;
    }
    if (j >= s.length) return undefined;
    if (literal) parts.push(literal);
    literal = '';
    parts.push({ expr: s.slice(i + 2, j) });
    i = j;
  }
  if (literal || parts.length === 0) parts.push(literal);
  return parts;
}

function scalar(text: string): ConfigValue {
  try {
    const v: unknown = parse(text);
    return v === undefined || (typeof v === 'object' && v !== null) ? text : (v as ConfigValue);
  } catch {
    return text;
  }
}

// A configuration tree and where each of its values came from: merging in NeMo Gym's order (an included
// file before its includer, then env.yaml, then the command line), keeping the source of every key path
// so errors can name the file that set the offending value.
export type ConfigValue = null | boolean | number | string | ConfigValue[] | ConfigMap;
export interface ConfigMap {
  [key: string]: ConfigValue;
}

/** Key path → the file (or "command line") that set it last. */
export type Sources = Map<string, string>;

export const isMap = (v: unknown): v is ConfigMap => typeof v === 'object' && v !== null && !Array.isArray(v);

export const keyPath = (path: readonly string[]): string => path.join('.');

/**
 * Merges `over` into `base` in place as OmegaConf does: mappings merge key by key, anything else
 * (lists included) replaces what was there. Every key path `over` sets is recorded as coming from `source`.
 */
export function mergeInto(base: ConfigMap, over: ConfigMap, source: string, sources: Sources, at: string[] = []): void {
  for (const [key, value] of Object.entries(over)) {
    const path = [...at, key];
    const current = base[key];
    if (isMap(value) && isMap(current)) {
      sources.set(keyPath(path), source);
      mergeInto(current, value, source, sources, path);
      continue;
    }
    forget(sources, path);
    base[key] = clone(value);
    markAll(base[key], path, source, sources);
  }
}

export function clone<T extends ConfigValue>(value: T): T {
  return structuredClone(value);
}

function markAll(value: ConfigValue, path: string[], source: string, sources: Sources): void {
  sources.set(keyPath(path), source);
  if (isMap(value)) for (const [k, v] of Object.entries(value)) markAll(v, [...path, k], source, sources);
}

function forget(sources: Sources, path: string[]): void {
  const prefix = `${keyPath(path)}.`;
  for (const k of [...sources.keys()]) if (k.startsWith(prefix)) sources.delete(k);
}

/** The value at a key path, or undefined when some step of it is missing. */
export function getPath(tree: ConfigValue, path: readonly string[]): ConfigValue | undefined {
  let node: ConfigValue | undefined = tree;
  for (const key of path) {
    if (isMap(node)) node = Object.hasOwn(node, key) ? node[key] : undefined;
    else if (Array.isArray(node) && /^\d+$/.test(key)) node = node[Number(key)];
    else return undefined;
    if (node === undefined) return undefined;
  }
  return node;
}

/** The file that set a key path, or the nearest enclosing path that has one. */
export function sourceOf(sources: Sources, path: readonly string[]): string | undefined {
  for (let n = path.length; n > 0; n--) {
    const s = sources.get(keyPath(path.slice(0, n)));
    if (s) return s;
  }
  return undefined;
}

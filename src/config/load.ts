// Loads a configuration as NeMo Gym does: the files named by `--config`, env.yaml's and the command line's
// `config_paths`, each file's own `config_paths` before it (post-order, a later sibling and its includes
// over an earlier one), then env.yaml, then the command-line overrides; interpolations resolved last.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { GymError } from '../errors';
import { agentTypeFile } from './agent-type';
import { configPathAlias, configPathWarning, environmentWarning, LEGACY_ENVIRONMENTS } from './aliases';
import { searchRoots, underRoot, type SearchOptions } from './roots';
import { composeUnboundAgent, type Composition } from './compose';
import { resolveTree, type ConfigProblem } from './interpolate';
import { overridesTree, parseOverride } from './overrides';
import { isMap, mergeInto, type ConfigMap, type Sources } from './tree';

export const COMMAND_LINE = 'command line';

export interface LoadOptions extends SearchOptions {
  /** Files given with --config, in order. */
  readonly files?: readonly string[];
  /** `key=value`, `+key=value`, `++key=value`. */
  readonly overrides?: readonly string[];
  /** env.yaml's path; by default `<cwd>/env.yaml` when it exists. */
  readonly envYaml?: string;
  /** `--agent-type NAME[/FLAVOR]`: a standalone agent config merged last and composed onto the configuration's agents. */
  readonly agentType?: string;
  /** `--environment NAME`: the environment bundle `environments/<NAME>/config.yaml`, loaded after --config. */
  readonly environment?: string;
}

export interface LoadedConfig {
  readonly config: ConfigMap;
  readonly sources: Sources;
  /** Every file merged, in merge order (env.yaml last when there is one). */
  readonly files: readonly string[];
  readonly warnings: readonly string[];
  /** The agent composed onto the configuration's agents (an unbound agent config, e.g. from --agent-type). */
  readonly composition?: Composition;
}

export function loadConfig(opts: LoadOptions): LoadedConfig {
  const overrides = (opts.overrides ?? []).map(parseOverride);
  const warnings: string[] = [];
  const envYaml = opts.envYaml ?? (existsSync(path.join(opts.cwd, 'env.yaml')) ? path.join(opts.cwd, 'env.yaml') : undefined);
  const envDoc = envYaml ? readYaml(envYaml) : {};

  const cliPaths = overrides.filter((o) => o.path.length === 1 && o.path[0] === 'config_paths').flatMap((o) => pathList(o.value, COMMAND_LINE));
  const roots = [...pathList(envDoc.config_paths ?? [], envYaml ?? 'env.yaml'), ...cliPaths].map((p) => findConfig(p, opts, undefined, envYaml ?? COMMAND_LINE, warnings));
  roots.push(...(opts.files ?? []).map((f) => findConfig(f, opts, undefined, '--config', warnings)));
  if (opts.environment !== undefined) roots.push(environmentFile(opts.environment, opts, warnings));
  if (opts.agentType !== undefined) {
    const agent = agentTypeFile(opts.agentType, opts);
    roots.push(agent.file);
    if (agent.warning) warnings.push(agent.warning);
  }

  const ordered: { file: string; doc: ConfigMap }[] = [];
  const seen = new Set<string>();
  const visit = (file: string, includedBy: string | undefined) => {
    if (seen.has(file)) {
      warnings.push(`${file} is listed more than once${includedBy ? ` (again by ${includedBy})` : ''}; it is merged once, where it first appears`);
      return;
    }
    seen.add(file);
    const doc = readYaml(file);
    for (const inner of pathList(doc.config_paths ?? [], file)) visit(findConfig(inner, opts, file, file, warnings), file);
    ordered.push({ file, doc });
  };
  for (const root of roots) visit(root, undefined);

  const tree: ConfigMap = {};
  const sources: Sources = new Map();
  for (const { file, doc } of ordered) mergeInto(tree, withoutPaths(doc), file, sources);
  if (envYaml) mergeInto(tree, withoutPaths(envDoc), envYaml, sources);
  mergeInto(tree, withoutPaths(overridesTree(overrides, tree)), COMMAND_LINE, sources);
  const allFiles = [...ordered.map((o) => o.file), ...(envYaml ? [envYaml] : [])];
  tree.config_paths = allFiles.filter((f) => f !== envYaml);
  // Before `???` values are reported: the unbound agent's resources_server is one.
  const composition = composeUnboundAgent(tree, sources);

  const { config, problems } = resolveTree(tree, sources, opts.env);
  if (problems.length > 0) throw configError(problems);
  return { config, sources, files: allFiles, warnings: [...new Set(warnings)], ...(composition ? { composition } : {}) };
}

export function configError(problems: readonly ConfigProblem[]): GymError {
  const lines = problems.map((p) => `  ${p.source ?? '(unknown source)'}: ${p.path}: ${p.message}`);
  return new GymError('BAD_INPUT', `the configuration has ${problems.length} problem(s):\n${lines.join('\n')}`);
}

function withoutPaths(doc: ConfigMap): ConfigMap {
  const { config_paths: _paths, ...rest } = doc;
  return rest;
}

function pathList(value: unknown, where: string): string[] {
  if (typeof value === 'string') return [value];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    throw new GymError('BAD_INPUT', `${where}: config_paths must be a list of file paths`);
  }
  return value;
}

function candidatesOf(p: string, opts: SearchOptions, includer: string | undefined): string[] {
  return path.isAbsolute(p) ? [p] : searchRoots(opts, includer).flatMap((root) => underRoot(path.resolve(opts.cwd, root), p));
}

const existingFile = (candidates: readonly string[]) => candidates.find((c) => existsSync(c) && statSync(c).isFile());

/** A path as NeMo Gym resolves config and dataset paths: absolute, or under the search roots, cwd, the including file's folder, the install root. */
export function findFile(p: string, opts: LoadOptions, includer: string | undefined, where: string): string {
  const candidates = candidatesOf(p, opts, includer);
  const found = existingFile(candidates);
  if (found) return found;
  throw new GymError('NOT_FOUND', `${where}: ${/\.ya?ml$/i.test(p) ? 'config file' : 'file'} ${p} not found; looked at:\n${[...new Set(candidates)].map((c) => `  - ${c}`).join('\n')}`);
}

/** A config file's path, where a renamed one (aliases.ts) that is not found resolves to its new name, with a warning. */
function findConfig(p: string, opts: LoadOptions, includer: string | undefined, where: string, warnings: string[]): string {
  const canonical = existingFile(candidatesOf(p, opts, includer)) ? undefined : configPathAlias(p);
  const renamed = canonical === undefined ? undefined : existingFile(candidatesOf(canonical, opts, includer));
  if (canonical === undefined || renamed === undefined) return findFile(p, opts, includer, where);
  warnings.push(configPathWarning(p, canonical));
  return renamed;
}

const ENVIRONMENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)?$/;

/** `--environment NAME[/FLAVOR]`: NeMo Gym's `environments/<NAME>/config.yaml` (or `<NAME>/<FLAVOR>/config.yaml`); a pre-v0.6.0 name, with a warning. */
function environmentFile(value: string, opts: LoadOptions, warnings: string[]): string {
  if (!ENVIRONMENT_NAME.test(value)) throw new GymError('BAD_FLAG', `--environment must be NAME or NAME/FLAVOR (letters, digits, . _ -), got ${JSON.stringify(value)}`);
  const file = (name: string) => `environments/${name}/config.yaml`;
  const canonical = LEGACY_ENVIRONMENTS[value];
  if (canonical === undefined || existingFile(candidatesOf(file(value), opts, undefined))) return findFile(file(value), opts, undefined, `--environment ${value}`);
  const found = findFile(file(canonical), opts, undefined, `--environment ${value} (renamed ${canonical})`);
  warnings.push(environmentWarning(value, canonical));
  return found;
}

function readYaml(file: string): ConfigMap {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new GymError('NOT_FOUND', `cannot read config ${file}: ${(e as Error).message}`);
  }
  const doc = parseDocument(text, { uniqueKeys: true });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    const at = e.linePos?.[0] ? `${file}:${e.linePos[0].line}:${e.linePos[0].col}` : file;
    throw new GymError('BAD_INPUT', `${at}: not valid YAML: ${e.message.split('\n')[0]}`);
  }
  const value: unknown = doc.toJS();
  if (value === null || value === undefined) return {};
  if (!isMap(value)) throw new GymError('BAD_INPUT', `${file} must be a YAML mapping of settings`);
  return value;
}

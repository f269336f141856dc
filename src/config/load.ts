// Loads a configuration as NeMo Gym does: the files named by `--config`, env.yaml's and the command line's
// `config_paths`, each file's own `config_paths` before it (post-order, a later sibling and its includes
// over an earlier one), then env.yaml, then the command-line overrides; interpolations resolved last.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { GymError } from '../errors';
import { agentTypeFile } from './agent-type';
import { searchRoots, type SearchOptions } from './roots';
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
  const roots = [...pathList(envDoc.config_paths ?? [], envYaml ?? 'env.yaml'), ...cliPaths].map((p) => findFile(p, opts, undefined, envYaml ?? COMMAND_LINE));
  roots.push(...(opts.files ?? []).map((f) => findFile(f, opts, undefined, '--config')));
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
    for (const inner of pathList(doc.config_paths ?? [], file)) visit(findFile(inner, opts, file, file), file);
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
  return { config, sources, files: allFiles, warnings, ...(composition ? { composition } : {}) };
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


/** A path as NeMo Gym resolves config and dataset paths: absolute, or under the search roots, cwd, the including file's folder, the install root. */
export function findFile(p: string, opts: LoadOptions, includer: string | undefined, where: string): string {
  const candidates = path.isAbsolute(p) ? [p] : searchRoots(opts, includer).map((root) => path.resolve(opts.cwd, root, p));
  const found = candidates.find((c) => existsSync(c) && statSync(c).isFile());
  if (found) return found;
  throw new GymError('NOT_FOUND', `${where}: ${/\.ya?ml$/i.test(p) ? 'config file' : 'file'} ${p} not found; looked at:\n${[...new Set(candidates)].map((c) => `  - ${c}`).join('\n')}`);
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

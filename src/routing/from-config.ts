// `gym eval run` from a NeMo Gym configuration: the input (a file, or the declared datasets of a --split),
// each row routed to its agent and environment and validated, the policy model taken from the agents'
// model server, every problem reported at once before anything starts. Gives the rows the run will play.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { HistoryPolicy } from '../agents/history-policy';
import { configError, findFile, loadConfig, type LoadOptions, type LoadedConfig } from '../config/load';
import { isMap } from '../config/tree';
import { collate } from '../datasets/collate';
import { declaredDatasets, type DeclaredDataset } from '../datasets/declared';
import { envLabel, type EnvRef } from '../environments/ref';
import { resolveEnvironment } from '../environments/registry';
import { GymError } from '../errors';
import { taskProblems } from '../tasks/load';
import { PACKAGE_ROOT } from '../util/paths';
import { runHistoryPolicy } from './context-history';
import { routingGraph, type RoutingGraph } from './graph';
import { agentRefName, RoutingSettings, routeRows, settingsProblems, type RoutedRow } from './route';
import { routedRepeats } from './repeats';
import { pairingAllowedByEnv, pairingProblems } from './pairing';
import { aliasLegacyAgents } from './legacy-agents';
import { ROW_ENVIRONMENT } from './row';

/** The routed rows a run plays, written into its folder (NeMo Gym's materialized inputs). */
export const MATERIALIZED_INPUTS = 'materialized_inputs.jsonl';

export const SPLITS = ['train', 'validation', 'benchmark'] as const;

export interface ConfigRunRequest {
  readonly files: readonly string[];
  readonly overrides: readonly string[];
  readonly envYaml?: string;
  readonly searchDirs?: readonly string[];
  /** Flags that win over the configuration's keys. */
  readonly input?: string;
  readonly split?: string;
  readonly agent?: string;
  /** `--agent-type NAME[/FLAVOR]`: the agent type composed onto the configuration's agents. */
  readonly agentType?: string;
  /** `--environment NAME`: the environment bundle loaded after the --config files. */
  readonly environment?: string;
  readonly allowUnsupportedPairing?: boolean;
  readonly limit?: number;
  /** `--num-repeats`: one number for every row, over the configuration's num_repeats (as NeMo Gym's flag). */
  readonly numRepeats?: number;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
}

export interface ConfigRun {
  readonly loaded: LoadedConfig;
  /** The configuration's run keys (NeMo Gym's names), for the settings flags did not give. */
  readonly keys: Record<string, unknown>;
  /** Every row to play, stamped with its agent and environment, as JSON lines. */
  readonly lines: string[];
  readonly datasetHash: string;
  /** The environments the rows are played against, the first row's first. */
  readonly environments: EnvRef[];
  /**
   * The run's repeats from the configuration's num_repeats (absent: it has none). A mapping that gives the
   * rows different repeats is 1 here: each task's repeats are then its own lines (`_ng_rollout_index`).
   */
  readonly numRepeats?: number;
  /** The history policy of the routed agents' context_history (absent: the whole history). */
  readonly historyPolicy?: HistoryPolicy;
  /** The policy model server the routed agents use, when they agree on one. */
  readonly modelServer: { name: string; implementation: string; config: Record<string, unknown> } | undefined;
  /** What the run will do, for the dry run's report and the log. */
  readonly summary: string[];
  /** When a harness plays some rows: who plays which way, and the grain that takes (printed by every run). */
  readonly playing?: string;
  readonly warnings: string[];
}

type Problems = string[];

export async function resolveConfigRun(req: ConfigRunRequest): Promise<ConfigRun> {
  const opts: LoadOptions = {
    files: req.files,
    overrides: req.overrides,
    cwd: req.cwd,
    env: req.env,
    envYaml: req.envYaml,
    searchDirs: req.searchDirs,
    installRoot: PACKAGE_ROOT,
    agentType: req.agentType,
    environment: req.environment,
  };
  const loaded = loadConfig(opts);
  const { datasets, problems: declarationProblems } = declaredDatasets(loaded);
  if (declarationProblems.length) throw configError(declarationProblems);
  const graph = routingGraph(loaded);
  const keys = loaded.config;
  const warnings = [...loaded.warnings];
  const problems: Problems = [];
  let inputKnown = true;

  const settings = RoutingSettings.safeParse({ agent_name: req.agent ?? keys.agent_name ?? undefined, agent_map: keys.agent_map ?? undefined, fan_out: keys.fan_out ?? undefined });
  const agentNames = new Set(graph.agents.keys());
  const routing = settings.success ? aliasLegacyAgents(settings.data, [], agentNames).settings : undefined;
  if (!settings.success) for (const i of settings.error.issues) problems.push(`${i.path.join('.')}: ${i.message}`);
  else problems.push(...settingsProblems(routing!, graph));

  const split = req.split ?? (typeof keys.split === 'string' ? keys.split : undefined);
  const inputFile = req.input ?? (typeof keys.input_jsonl_fpath === 'string' ? keys.input_jsonl_fpath : undefined);
  const refuse = (problem: string) => {
    problems.push(problem);
    inputKnown = false;
  };
  if (split !== undefined && inputFile !== undefined) refuse(`--split ${split} and --input (input_jsonl_fpath) do not go together: a split runs the datasets the configuration declares; drop one`);
  else if (split === undefined && inputFile === undefined) refuse('nothing to run: give --input FILE (input_jsonl_fpath), or --split train|validation|benchmark to run the declared datasets');
  if (split !== undefined) splitProblems(split, datasets).forEach(refuse);

  // The rows can be routed only once the input is known; the problems found so far are reported with theirs.
  let input: InputRows | undefined;
  if (inputKnown) {
    input = split !== undefined ? await splitRows(split, datasets, opts) : readRows(path.resolve(req.cwd, inputFile!), problems);
  }
  const limit = req.limit ?? (typeof keys.limit === 'number' ? keys.limit : undefined);
  const aliased = aliasLegacyAgents(settings.success ? settings.data : {}, input ? (limit === undefined ? input.rows : input.rows.slice(0, limit)) : [], agentNames);
  warnings.push(...aliased.warnings);
  const routed = input && routing ? routeRows(aliased.rows, routing, graph) : undefined;
  if (routed) {
    problems.push(...routed.problems);
    warnings.push(...routed.warnings);
    problems.push(...rowProblems(routed.rows));
    const allow = !!req.allowUnsupportedPairing || keys.allow_unsupported_pairing === true || pairingAllowedByEnv(req.env);
    const pairing = pairingProblems(routed.rows, graph, allow);
    problems.push(...pairing.problems);
    warnings.push(...pairing.warnings);
  }
  const basisOf = (row: Record<string, unknown>) => agentRefName(row) ?? (typeof row.task_source === 'string' ? row.task_source : undefined);
  const repeats =
    routed && req.numRepeats === undefined
      ? routedRepeats(
          keys.num_repeats,
          routed.rows.map((r) => ({ agent: r.agent, basis: basisOf(aliased.rows[r.source]!) })),
        )
      : undefined;
  problems.push(...(repeats?.problems ?? []));
  warnings.push(...(repeats?.warnings ?? []));
  const agentsUsed = routed ? [...new Set(routed.rows.map((r) => r.agent))] : [];
  // A harness keeps its own history: the policy is the loop-played agents' (harness agents have none to agree on).
  const loopAgents = routed ? [...new Set(routed.rows.filter((r) => !r.env.harness).map((r) => r.agent))] : [];
  const history = runHistoryPolicy(loopAgents.flatMap((a) => graph.agents.get(a) ?? []));
  problems.push(...history.problems);
  if (problems.length) throw new GymError('BAD_INPUT', `the run cannot start: ${problems.length} problem(s) in its configuration, routing or data (nothing was started)`, problems);
  if (routed!.rows.length === 0) throw new GymError('BAD_INPUT', `${input!.from} has no task rows`);

  const { lines, perLine, tasks } = materialize(routed!.rows, input!.texts, repeats?.uniform ?? 1, repeats?.perRow);
  const playing = waysOfPlaying(routed!.rows);
  const hash = createHash('sha256');
  for (const line of lines) hash.update(line + '\n');
  return {
    loaded,
    keys,
    lines,
    datasetHash: hash.digest('hex'),
    environments: uniqueEnvs(routed!.rows.map((r) => r.env)),
    ...(perLine ? { numRepeats: 1 } : repeats?.uniform !== undefined ? { numRepeats: repeats.uniform } : {}),
    ...(history.policy ? { historyPolicy: history.policy } : {}),
    modelServer: modelServerOf(agentsUsed, graph),
    summary: [...compositionSummary(loaded), ...summarize(routed!.rows, input!.from, split, repeats?.perRow, tasks), ...(playing ? [playing] : [])],
    ...(playing ? { playing } : {}),
    warnings: [...new Set(warnings)],
  };
}

/**
 * How the rows are played when a harness plays some: each row its own agent's way (Gymflow's loop, or a
 * harness in its sandbox), the whole run in the rollout grain, since a harness plays whole rollouts.
 */
function waysOfPlaying(rows: readonly RoutedRow[]): string | undefined {
  if (!rows.some((r) => r.env.harness)) return undefined;
  const ways = new Map<string, string[]>();
  for (const r of rows) {
    const way = r.env.harness ? `harness ${r.env.harness.name} in ${r.env.harness.sandbox}` : "Gymflow's agent loop";
    const agents = ways.get(way) ?? [];
    if (!agents.includes(r.agent)) agents.push(r.agent);
    ways.set(way, agents);
  }
  const described = [...ways.entries()].map(([way, agents]) => `${way} (${agents.join(', ')})`);
  return `played by ${described.join('; ')}: the run takes the rollout grain, since a harness plays whole rollouts`;
}

function splitProblems(split: string, datasets: readonly DeclaredDataset[]): Problems {
  if (split === 'example') {
    return ['--split example: example datasets are smoke-test samples, not a runnable split; run one with --input <its jsonl_fpath>'];
  }
  if (!(SPLITS as readonly string[]).includes(split)) return [`--split must be one of ${SPLITS.join(', ')}, got "${split}"`];
  if (datasets.some((d) => d.type === split)) return [];
  const declared = datasets.map((d) => `${d.instance}: ${d.name} (type: ${d.type})`);
  return [`No dataset of type \`${split}\` is declared in this configuration, so \`--split ${split}\` has nothing to run. Declared datasets: ${declared.length ? declared.join('; ') : 'none'}`];
}

/** The input's rows, each with its line's text (identical lines are repeats of one task). */
interface InputRows {
  readonly rows: Record<string, unknown>[];
  readonly texts: string[];
  readonly from: string;
}

/** A split's rows: its declared datasets collated (validated, stamped, repeated) into a scratch folder. */
async function splitRows(split: string, datasets: readonly DeclaredDataset[], opts: LoadOptions): Promise<InputRows> {
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'gym-split-'));
  try {
    await collate({
      datasets: datasets.filter((d) => d.type === split),
      mode: split === 'benchmark' ? 'benchmark' : 'train_preparation',
      outputDir: scratch,
      locate: (d) => findFile(d.jsonl_fpath, opts, d.declaredIn, `${d.declaredIn ?? 'configuration'}: dataset ${d.instance}/${d.name}`),
    });
    const texts = readFileSync(path.join(scratch, `${split}.jsonl`), 'utf8')
      .split('\n')
      .filter(Boolean);
    return { rows: texts.map((l) => JSON.parse(l) as Record<string, unknown>), texts, from: `the ${split} datasets` };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

function readRows(file: string, problems: Problems): InputRows | undefined {
  if (!existsSync(file)) {
    problems.push(`--input file ${file} does not exist`);
    return undefined;
  }
  const rows: Record<string, unknown>[] = [];
  const texts: string[] = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((text, i) => {
      if (!text.trim()) return;
      try {
        const value: unknown = JSON.parse(text);
        if (isMap(value)) {
          rows.push(value as Record<string, unknown>);
          texts.push(text);
        } else problems.push(`${file}:${i + 1}: a task row must be a JSON object`);
      } catch (e) {
        problems.push(`${file}:${i + 1}: not valid JSON (${(e as Error).message})`);
      }
    });
  return { rows, texts, from: file };
}

/** Each routed row checked against the environment it will be played against, naming its input line and agent. */
function rowProblems(rows: readonly RoutedRow[]): Problems {
  const out: Problems = [];
  for (const r of rows) {
    const env = resolveEnvironment(r.env);
    for (const p of taskProblems(r.row, env)) out.push(`line ${r.source + 1} (agent ${r.agent}, environment ${env.name}): ${p}`);
  }
  return out;
}

/**
 * The rows as the run's task file: each stamped with its environment. A task played by several agents
 * becomes one task per agent, so indices are then given by position (every record keeps its own pair).
 * As NeMo Gym's rollout collection counts them, identical input lines without an `_ng_task_index` (a declared
 * dataset's num_repeats writes each line that many times) are one task, played once per line, per agent.
 * When a task's repeats are then not the run's one number (those lines, or num_repeats by agent), each
 * repeat is a line of its own with its `_ng_rollout_index`, and a task's index is the line of its first
 * repeat (where reverify finds it by `_ng_task_index`).
 */
function materialize(rows: readonly RoutedRow[], texts: readonly string[], uniform: number, perRow?: readonly number[]): { lines: string[]; perLine: boolean; tasks: number } {
  const groups = new Map<string, { row: RoutedRow; repeats: number }>();
  rows.forEach((r, i) => {
    const key = r.row._ng_task_index === undefined ? `${r.agent}\n${texts[r.source]}` : `#${i}`;
    const group = groups.get(key);
    if (group) group.repeats += perRow?.[i] ?? uniform;
    else groups.set(key, { row: r, repeats: perRow?.[i] ?? uniform });
  });
  if (!perRow && groups.size === rows.length) {
    const fannedOut = new Set(rows.map((r) => r.source)).size !== rows.length;
    const lines = rows.map((r) => {
      const { _ng_task_index: index, ...rest } = r.row;
      return JSON.stringify({ ...rest, ...(fannedOut || index === undefined ? {} : { _ng_task_index: index }), [ROW_ENVIRONMENT]: r.env });
    });
    return { lines, perLine: false, tasks: rows.length };
  }
  const lines: string[] = [];
  for (const { row: r, repeats } of groups.values()) {
    const { _ng_task_index: _index, _ng_rollout_index: _repeat, ...rest } = r.row;
    const task = lines.length;
    for (let repeat = 0; repeat < repeats; repeat++) lines.push(JSON.stringify({ ...rest, _ng_task_index: task, _ng_rollout_index: repeat, [ROW_ENVIRONMENT]: r.env }));
  }
  return { lines, perLine: true, tasks: groups.size };
}

function uniqueEnvs(envs: readonly EnvRef[]): EnvRef[] {
  const seen = new Map<string, EnvRef>();
  for (const e of envs) if (!seen.has(envLabel(e))) seen.set(envLabel(e), e);
  return [...seen.values()];
}

function modelServerOf(agents: readonly string[], graph: RoutingGraph): ConfigRun['modelServer'] {
  const names = [...new Set(agents.map((a) => graph.agents.get(a)?.modelServer).filter((m): m is string => !!m))];
  if (names.length !== 1) return undefined;
  const server = graph.models.get(names[0]!);
  return server ? { name: server.name, implementation: server.implementation, config: server.config } : undefined;
}

function compositionSummary(loaded: LoadedConfig): string[] {
  const c = loaded.composition;
  return c ? [`agent type ${c.agentType}${c.from ? ` (${c.from})` : ''} plays for ${c.targets.join(', ')}`] : [];
}

function summarize(rows: readonly RoutedRow[], from: string, split: string | undefined, repeats: readonly number[] | undefined, tasks: number): string[] {
  const counts = new Map<string, number>();
  const perAgent = new Map<string, Set<number>>();
  rows.forEach((r, i) => {
    const key = `${r.agent} → ${envLabel(r.env)}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    if (repeats) perAgent.set(r.agent, (perAgent.get(r.agent) ?? new Set()).add(repeats[i]!));
  });
  return [
    `input: ${from}${split ? ` (split ${split})` : ''}: ${new Set(rows.map((r) => r.source)).size} rows, ${rows.length} tasks after routing`,
    ...[...counts.entries()].map(([k, n]) => `  ${k}: ${n} tasks`),
    ...(tasks < rows.length ? [`identical rows are repeats of one task (a dataset's num_repeats): ${rows.length} tasks → ${tasks}`] : []),
    ...(repeats ? [`num_repeats per agent: ${[...perAgent.entries()].map(([a, k]) => `${a} ${[...k].sort((x, y) => x - y).join('/')}`).join(', ')}`] : []),
  ];
}

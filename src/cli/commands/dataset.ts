// `gym dataset collate`, `gym dataset generate` and `gym env schema`: the datasets a NeMo Gym configuration
// declares, validated and merged before any run; generated task files; the JSON Schema of task rows.
import { writeFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import { z } from 'zod';
import { configError, findFile, loadConfig, type LoadOptions } from '../../config/load';
import { collate } from '../../datasets/collate';
import { MODES, declaredDatasets, type CollateMode } from '../../datasets/declared';
import { GENERATORS } from '../../datasets/generators';
import { GymError } from '../../errors';
import { environmentNames, getEnvironment } from '../../environments/registry';
import { PACKAGE_ROOT } from '../../util/paths';
import { parseFlags, requireFlag } from '../args';

const COLLATE_USAGE = `usage: gym dataset collate --config FILE [--config FILE ...] --output-dir DIR [--mode M] [--search-dir DIR ...] [--env-yaml FILE] [overrides ...]
  --mode M         example_validation (default: the example datasets), train_preparation (train and validation) or benchmark
  writes DIR/<type>.jsonl: every row validated against its environment and stamped task_source (and agent_ref)`;

export async function datasetCollate(argv: string[], _logger: Logger, say: (line: string) => void): Promise<void> {
  const { values, positionals } = parseFlags(
    argv,
    {
      config: { type: 'string', multiple: true },
      'output-dir': { type: 'string' },
      mode: { type: 'string' },
      'search-dir': { type: 'string', multiple: true },
      'env-yaml': { type: 'string' },
      download: { type: 'boolean' },
    },
    COLLATE_USAGE,
  );
  if (values.help) return say(COLLATE_USAGE);
  if (values.download) throw new GymError('BAD_FLAG', '--download: Gymflow never downloads datasets; put each file at its jsonl_fpath (or point --search-dir at it)');
  const outputDir = requireFlag(values, 'output-dir', COLLATE_USAGE);
  const mode = (values.mode ?? 'example_validation') as CollateMode;
  if (!Object.hasOwn(MODES, mode)) throw new GymError('BAD_FLAG', `--mode must be one of ${Object.keys(MODES).join(', ')}, got "${values.mode}"`);
  if (!values.config?.length && !positionals.some((p) => p.includes('config_paths'))) throw new GymError('BAD_FLAG', `--config is required\n\n${COLLATE_USAGE}`);
  const opts: LoadOptions = {
    files: values.config,
    overrides: positionals,
    cwd: process.cwd(),
    env: process.env,
    envYaml: values['env-yaml'],
    searchDirs: values['search-dir'],
    installRoot: PACKAGE_ROOT,
  };
  const loaded = loadConfig(opts);
  const { datasets, problems } = declaredDatasets(loaded);
  if (problems.length > 0) throw configError(problems);
  const result = await collate({
    datasets,
    mode,
    outputDir,
    locate: (d) => findFile(d.jsonl_fpath, opts, d.declaredIn, `${d.declaredIn ?? 'configuration'}: dataset ${d.instance}/${d.name}`),
    onProgress: (rows) => process.stderr.write(`collating: ${rows.toLocaleString('en-US')} rows checked\n`),
  });
  for (const d of result.datasets) say(`${d.instance}/${d.name} (${d.type}): ${d.rows} rows from ${d.file}${d.repeats > 1 ? `, each written ${d.repeats} times (num_repeats)` : ''}`);
  for (const o of result.outputs) say(`${o.type}: ${o.rows} rows → ${o.file}`);
}

const SCHEMA_USAGE = "usage: gym env schema --env <name>   the JSON Schema of the environment's task rows";

export async function envSchema(argv: string[], _logger: Logger, say: (line: string) => void): Promise<void> {
  const { values } = parseFlags(argv, { env: { type: 'string' } }, SCHEMA_USAGE);
  if (values.help) return say(SCHEMA_USAGE);
  const name = requireFlag(values, 'env', SCHEMA_USAGE);
  if (!environmentNames().includes(name)) throw new GymError('BAD_FLAG', `--env: unknown environment "${name}"; known: ${environmentNames().join(', ')}`);
  // Input side: what a row may hold before defaults are filled; checks zod cannot express become `{}`.
  say(JSON.stringify(z.toJSONSchema(getEnvironment(name).taskSchema, { io: 'input', unrepresentable: 'any' }), null, 2));
}

const GENERATE_USAGE = `usage: gym dataset generate --env <name> --output FILE [--set KEY=VALUE ...]
  --set KEY=VALUE  a generator setting (VALUE as JSON, else a string), repeatable
${Object.entries(GENERATORS)
  .map(([env, g]) => `  ${env}: ${g.settings}`)
  .join('\n')}
  writes FILE as JSONL task rows; the same settings always give the same file`;

export async function datasetGenerate(argv: string[], _logger: Logger, say: (line: string) => void): Promise<void> {
  const { values } = parseFlags(argv, { env: { type: 'string' }, output: { type: 'string' }, set: { type: 'string', multiple: true } }, GENERATE_USAGE);
  if (values.help) return say(GENERATE_USAGE);
  const env = requireFlag(values, 'env', GENERATE_USAGE);
  const output = requireFlag(values, 'output', GENERATE_USAGE);
  const generator = Object.hasOwn(GENERATORS, env) ? GENERATORS[env] : undefined;
  if (!generator) throw new GymError('BAD_FLAG', `--env: environment "${env}" has no task generator; these do: ${Object.keys(GENERATORS).join(', ')}`);
  const settings: Record<string, unknown> = {};
  for (const pair of (values.set as string[] | undefined) ?? []) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new GymError('BAD_FLAG', `--set ${pair}: expected KEY=VALUE`);
    const raw = pair.slice(at + 1);
    try {
      settings[pair.slice(0, at)] = JSON.parse(raw);
    } catch {
      settings[pair.slice(0, at)] = raw;
    }
  }
  const parsed = generator.schema.safeParse(settings);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new GymError('BAD_FLAG', `--set ${issue.path.join('.') || '(settings)'}: ${issue.message}`);
  }
  const rows = generator.generate(parsed.data as never);
  await writeFile(output, rows.map((row) => JSON.stringify(row) + '\n').join(''));
  say(`${env}: ${rows.length} rows → ${output}`);
}

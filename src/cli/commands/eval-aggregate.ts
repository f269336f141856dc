// `gym eval aggregate <rollouts.jsonl>`: a rollouts file written by Gymflow or by NeMo Gym aggregated again,
// into NeMo Gym's `*_aggregate_metrics.json` (per agent) or Gymflow's metrics.json; every bad line named.
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import path from 'node:path';
import type { Logger } from 'pino';
import { GymError } from '../../errors';
import { RunAccumulator } from '../../metrics/aggregate';
import { RolloutAggregator, rolloutRowProblem, type AgentAggregate } from '../../metrics/nemo-gym-aggregate';
import { badInput } from '../../reverify/read';
import { RolloutDiagnostics } from '../../schemas/records';
import { writeFileAtomic } from '../../store/jsonl';
import { parseFlags } from '../args';

const USAGE = `usage: gym eval aggregate <rollouts.jsonl> [--format nemo-gym|gymflow] [--output FILE|-]

  Aggregates the rollouts of a file, from a Gymflow run folder or from NeMo Gym's rollout collection.
  --format nemo-gym   NeMo Gym's aggregate metrics, one entry per agent: agent, key, per-task and per-repeat
                      metrics, pass@k and majority@k (the default; docs/metrics.md)
  --format gymflow    Gymflow's metrics.json over the file's rollouts
  --output FILE       where to write them (default: <rollouts>_aggregate_metrics.json, or <rollouts>_metrics.json
                      for gymflow, beside the file); - prints them`;

const FORMATS = ['nemo-gym', 'gymflow'] as const;
type Format = (typeof FORMATS)[number];

type Row = Record<string, unknown>;

/** Streams the file, handing each good row on; every bad line is reported at once, after the whole file was read. */
async function eachRow(file: string, use: (row: Row) => void): Promise<number> {
  const problems: string[] = [];
  let rows = 0;
  let line = 0;
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  for await (const text of lines) {
    line++;
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      problems.push(`line ${line}: not valid JSON (${(e as Error).message})`);
      continue;
    }
    const problem = rolloutRowProblem(value);
    if (problem) problems.push(`line ${line}: ${problem}`);
    else if (!problems.length) {
      rows++;
      use(value as Row);
    }
  }
  if (problems.length) throw badInput(`rollouts file ${file} has ${problems.length} line(s) that cannot be aggregated`, problems);
  if (!rows) throw new GymError('BAD_INPUT', `rollouts file ${file} has no rollouts`);
  return rows;
}

async function nemoGymMetrics(file: string): Promise<AgentAggregate[]> {
  const acc = new RolloutAggregator();
  await eachRow(file, (row) => acc.add(row));
  return acc.result();
}

async function gymflowMetrics(file: string) {
  const acc = new RunAccumulator();
  const rows = await eachRow(file, (row) => {
    const diagnostics = RolloutDiagnostics.safeParse(row._gf_diagnostics);
    acc.addRollout({
      taskIndex: typeof row._ng_task_index === 'number' ? row._ng_task_index : 0,
      rolloutIndex: typeof row._ng_rollout_index === 'number' ? row._ng_rollout_index : 0,
      reward: Number(row.reward),
      rewardComponents: typeof row.reward_components === 'object' && row.reward_components !== null ? (row.reward_components as Record<string, number>) : undefined,
      answer: typeof row.extracted_answer === 'string' ? row.extracted_answer : null,
      diagnostics: diagnostics.success ? diagnostics.data : undefined,
    });
  });
  return acc.result(rows);
}

function defaultOutput(file: string, format: Format): string {
  const { dir, name } = path.parse(file);
  return path.join(dir, `${name}_${format === 'nemo-gym' ? 'aggregate_metrics' : 'metrics'}.json`);
}

const fmt = (v: unknown) => (typeof v === 'number' ? String(Math.round(v * 1e4) / 1e4) : JSON.stringify(v));

export async function evalAggregate(argv: string[], _logger: Logger, say: (line: string) => void): Promise<void> {
  const { values, positionals } = parseFlags(argv, { format: { type: 'string' }, output: { type: 'string', short: 'o' } }, USAGE);
  if (values.help) return say(USAGE);
  if (positionals.length !== 1) throw new GymError('BAD_FLAG', `give exactly one rollouts file\n\n${USAGE}`);
  const format = (values.format ?? 'nemo-gym') as Format;
  if (!FORMATS.includes(format)) throw new GymError('BAD_FLAG', `--format must be nemo-gym or gymflow, got "${values.format}"`);
  const file = path.resolve(positionals[0]!);
  if (!existsSync(file) || !statSync(file).isFile()) throw new GymError('NOT_FOUND', `rollouts file ${file} does not exist`);
  const output = values.output === '-' ? undefined : path.resolve(values.output ?? defaultOutput(file, format));
  if (output === file) throw new GymError('BAD_FLAG', `--output ${output} would overwrite the rollouts file`);

  const metrics = format === 'nemo-gym' ? await nemoGymMetrics(file) : await gymflowMetrics(file);
  const text = JSON.stringify(metrics, null, 2) + '\n';
  if (!output) return void process.stdout.write(text);
  await writeFileAtomic(output, text);
  if (format === 'nemo-gym') {
    for (const entry of metrics as AgentAggregate[]) {
      say(
        `${entry.agent_ref.name}: ${Object.entries(entry.key_metrics)
          .map(([k, v]) => `${k}=${fmt(v)}`)
          .join('  ')}`,
      );
    }
  }
  say(`wrote ${output}`);
}

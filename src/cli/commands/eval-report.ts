// `gym eval report` writes a finished (or interrupted) run's HTML report; `gym eval compare` prints two
// runs' metrics and the significance of each difference, paired by task.
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { GymError } from '../../errors';
import { compareScores, formatComparison, readTaskScores } from '../../report/compare';
import { renderReport } from '../../report/html';
import { readRun } from '../../report/read-run';
import { writeFileAtomic } from '../../store/jsonl';
import { parseFlags } from '../args';

const REPORT_USAGE = `usage: gym eval report <run folder> [--output FILE]

  --output FILE   where to write the page (default: <run folder>/report.html)`;

const COMPARE_USAGE = `usage: gym eval compare <run folder A> <run folder B> [--json]

  Differences are B − A over the tasks both runs played, each task one pair (per-task mean reward,
  per-task pass@k); p is a two-sided paired t-test.`;

function runFolder(dir: string, usage: string): string {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new GymError('NOT_FOUND', `run folder ${dir} does not exist\n\n${usage}`);
  return path.resolve(dir);
}

export async function evalReport(argv: string[], _logger: Logger, say: (line: string) => void): Promise<void> {
  const { values, positionals } = parseFlags(argv, { output: { type: 'string', short: 'o' } }, REPORT_USAGE);
  if (values.help) return say(REPORT_USAGE);
  if (positionals.length !== 1) throw new GymError('BAD_FLAG', `expected one run folder\n\n${REPORT_USAGE}`);
  const dir = runFolder(positionals[0]!, REPORT_USAGE);
  const output = path.resolve(values.output ?? path.join(dir, 'report.html'));
  const run = await readRun(dir);
  await writeFileAtomic(output, renderReport(run));
  say(`report: ${output} (${run.rollouts.length} rollouts, ${run.failures.length} failures)`);
}

export async function evalCompare(argv: string[], _logger: Logger, say: (line: string) => void): Promise<void> {
  const { values, positionals } = parseFlags(argv, { json: { type: 'boolean' } }, COMPARE_USAGE);
  if (values.help) return say(COMPARE_USAGE);
  if (positionals.length !== 2) throw new GymError('BAD_FLAG', `expected two run folders\n\n${COMPARE_USAGE}`);
  const [a, b] = positionals.map((p) => runFolder(p, COMPARE_USAGE)) as [string, string];
  const comparison = compareScores(await readTaskScores(a), await readTaskScores(b));
  if (!comparison.pairedTasks) throw new GymError('BAD_INPUT', `the runs share no task: ${a} and ${b} cannot be paired (compare runs of the same dataset)`);
  say(values.json ? JSON.stringify(comparison, null, 2) : formatComparison(comparison, { a, b }));
}

// `gym eval health-check` and `gym eval gate`: a run's health recomputed from its files, and whether
// the run is fit to publish or train on.
import { statSync } from 'node:fs';
import type { Logger } from 'pino';
import { GymError } from '../../errors';
import { formatHealth, runHealthChecks } from '../../health/run-health';
import { CheckId } from '../../health/types';
import { parseFlags } from '../args';
import { GATE_FLAGS, GATE_USAGE, checkGate, gateFlags, hasGate } from '../gate';

const HEALTH_USAGE = `usage: gym eval health-check <run folder> [--ignore-checks a,b] [--json]

  writes rollout_verdicts.jsonl and quality_summary.json in the folder (see docs/health.md)
  --ignore-checks a,b  skip these checks (ids as in quality_summary.json)
  --json               print the summary as JSON`;

const GATE_COMMAND_USAGE = `usage: gym eval gate <run folder> [--max-failed-fraction F] [--max-unhealthy-fraction H]
${GATE_USAGE}`;

function runFolder(positionals: string[], usage: string): string {
  if (positionals.length !== 1) throw new GymError('BAD_FLAG', `expected one run folder\n\n${usage}`);
  const dir = positionals[0]!;
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    throw new GymError('NOT_FOUND', `no run folder ${dir}; pass the folder given to --output of gym eval run`);
  }
  if (!isDir) throw new GymError('BAD_FLAG', `${dir} is a file, not a run folder; pass the folder given to --output of gym eval run`);
  return dir;
}

function ignoredChecks(raw: unknown): CheckId[] {
  if (raw === undefined) return [];
  return String(raw)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((id) => {
      const parsed = CheckId.safeParse(id);
      if (!parsed.success) throw new GymError('BAD_FLAG', `--ignore-checks: unknown check "${id}"; known: ${CheckId.options.join(', ')}`);
      return parsed.data;
    });
}

export async function evalHealthCheck(argv: string[], _logger: Logger, say: (line: string) => void): Promise<void> {
  const { values, positionals } = parseFlags(argv, { 'ignore-checks': { type: 'string' }, json: { type: 'boolean' } }, HEALTH_USAGE);
  if (values.help) return say(HEALTH_USAGE);
  const dir = runFolder(positionals, HEALTH_USAGE);
  const result = await runHealthChecks(dir, { ignored: ignoredChecks(values['ignore-checks']) });
  say(values.json ? JSON.stringify(result.summary) : formatHealth(result));
}

export async function evalGate(argv: string[], _logger: Logger, say: (line: string) => void): Promise<void> {
  const { values, positionals } = parseFlags(argv, GATE_FLAGS, GATE_COMMAND_USAGE);
  if (values.help) return say(GATE_COMMAND_USAGE);
  const thresholds = gateFlags(values);
  const dir = runFolder(positionals, GATE_COMMAND_USAGE);
  if (!hasGate(thresholds)) throw new GymError('BAD_FLAG', `give --max-failed-fraction, --max-unhealthy-fraction or both\n\n${GATE_COMMAND_USAGE}`);
  await checkGate(dir, thresholds, say);
}

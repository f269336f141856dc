// `gym eval status|list|resume`: look at runs, and re-attach to one that is running or interrupted.
import { existsSync, statSync } from 'node:fs';
import type { Logger } from 'pino';
import { GymError } from '../../errors';
import { RunStore } from '../../store/run-store';
import { checkResumeIdentity, PROGRESS_QUERY_MS, readManifest, resolveRun, startRun } from '../../runs/client';
import { describeRun, INTERRUPTED_STATUSES } from '../../runs/status';
import { listRuns, parseRunStatus, RUN_STATUSES } from '../../runs/list';
import { intFlag, parseFlags } from '../args';
import { formatProgress } from '../progress';
import { coverageShortfall, MIN_COVERAGE_USAGE, minCoverageFlag } from '../coverage';
import { RECONNECT_USAGE, reconnectTimeoutMs } from '../reconnect';
import { formatMetrics } from '../report';
import { openSession } from '../session';
import { followRun, showIfComplete } from './follow';
import { MAX_CONCURRENCY, setConcurrencyUpdate } from '../../../workflows/definitions';

const STATUS_USAGE = 'usage: gym eval status <run folder or run id> [--json]';
const LIST_USAGE = `usage: gym eval list [--env NAME] [--agent NAME] [--model NAME] [--status S] [--limit N] [--json]

  --env     an environment's name (any settings) or its full label
  --model   a model label (mock:<env>, openai:<model>) or the name after the backend
  --status  ${RUN_STATUSES.join(', ')}`;
const RESUME_USAGE = `usage: gym eval resume <run folder> [--concurrency C] [--force] [--no-worker] [--min-coverage P] [--reconnect-timeout S]
  --force  resume even when the configuration or the dataset is no longer the run's (see docs/audit.md)
${MIN_COVERAGE_USAGE}
${RECONNECT_USAGE}`;

function onePositional(positionals: string[], usage: string): string {
  if (positionals.length !== 1) throw new GymError('BAD_FLAG', `expected one run (its folder or id)\n\n${usage}`);
  return positionals[0]!;
}

export async function evalStatus(argv: string[], _logger: Logger, say: (line: string) => void): Promise<void> {
  const { values, positionals } = parseFlags(argv, { json: { type: 'boolean' } }, STATUS_USAGE);
  if (values.help) return say(STATUS_USAGE);
  const { workflowId, manifest } = await resolveRun(onePositional(positionals, STATUS_USAGE));
  const session = await openSession(say);
  try {
    const { status, runStatus, startTime, runDir, progress, metrics } = await describeRun(session.client, workflowId, manifest);
    if (values.json) {
      say(JSON.stringify({ workflowId, status, run_status: runStatus, runDir, progress, metrics }, null, 2));
      return;
    }
    say(`run ${workflowId}: ${runStatus} (started ${startTime.toISOString()})`);
    if (runDir) say(`folder: ${runDir}`);
    if (progress) say(formatProgress(progress, 0));
    else if (status === 'RUNNING')
      say(`progress: no worker answered within ${PROGRESS_QUERY_MS / 1000} s (is one running for this run? \`gym worker start\`, or \`gym eval resume ${runDir ?? '<run folder>'}\`)`);
    if (metrics && status === 'COMPLETED' && runStatus !== 'cancelled') {
      say(formatMetrics(metrics, runDir!));
      // Status reports a shortfall; only the commands that run the eval turn it into an exit status.
      const shortfall = coverageShortfall(metrics, 1);
      if (shortfall) say(shortfall);
    }
    if (INTERRUPTED_STATUSES.includes(runStatus)) {
      if (metrics?.rollouts_missing) say(`${metrics.rollouts_missing} rollouts missing from the files`);
      say(`the run was interrupted; continue it with \`gym eval resume ${runDir ?? '<run folder>'}\``);
    }
  } finally {
    await session.close();
  }
}

export async function evalList(argv: string[], _logger: Logger, say: (line: string) => void): Promise<void> {
  const { values } = parseFlags(
    argv,
    { json: { type: 'boolean' }, limit: { type: 'string' }, env: { type: 'string' }, agent: { type: 'string' }, model: { type: 'string' }, status: { type: 'string' } },
    LIST_USAGE,
  );
  if (values.help) return say(LIST_USAGE);
  const limit = intFlag(values, 'limit', { min: 1, fallback: 50 })!;
  const filter = { env: values.env, agent: values.agent, model: values.model, status: values.status === undefined ? undefined : parseRunStatus(values.status) };
  const session = await openSession(say);
  try {
    const rows = await listRuns(session.client, filter, limit);
    if (values.json) return say(JSON.stringify(rows, null, 2));
    if (!rows.length) return say(Object.values(filter).some((v) => v !== undefined) ? 'no runs match' : 'no runs yet');
    for (const r of rows) say(`${r.run.padEnd(28)} ${r.status.padEnd(11)} ${r.env.padEnd(26)} ${r.agent.padEnd(16)} ${r.model.padEnd(24)} ${r.started}  ${r.folder}`);
  } finally {
    await session.close();
  }
}

/** The folder `gym eval resume` was given, refused clearly when it is missing or a file. */
export function runFolder(ref: string): string {
  let stats;
  try {
    stats = statSync(ref);
  } catch (e) {
    throw new GymError('NOT_FOUND', `no run folder ${ref} (${(e as NodeJS.ErrnoException).code}); pass the folder given to --output of gym eval run`);
  }
  if (!stats.isDirectory()) throw new GymError('BAD_FLAG', `${ref} is a file, not a run folder; pass the folder given to --output of gym eval run`);
  return ref;
}

export async function evalResume(argv: string[], logger: Logger, say: (line: string) => void): Promise<void> {
  const { values, positionals } = parseFlags(
    argv,
    { concurrency: { type: 'string' }, force: { type: 'boolean' }, 'no-worker': { type: 'boolean' }, 'min-coverage': { type: 'string' }, 'reconnect-timeout': { type: 'string' } },
    RESUME_USAGE,
  );
  if (values.help) return say(RESUME_USAGE);
  const runDir = runFolder(onePositional(positionals, RESUME_USAGE));
  const manifest = await readManifest(runDir);
  if (!manifest) throw new GymError('NOT_FOUND', `${runDir} holds no manifest.json; pass the folder given to --output of gym eval run`);
  const concurrency = intFlag(values, 'concurrency', { min: 1, max: MAX_CONCURRENCY });
  const follow = { minCoverage: minCoverageFlag(values), reconnectTimeoutMs: reconnectTimeoutMs(values) };
  const session = await openSession(say);
  try {
    if (await showIfComplete(session, manifest, say, follow)) return;
    const checked = await checkResumeIdentity(session.client, manifest, { force: values.force });
    for (const d of checked.differences) say(`--force: resuming although ${d}`);
    if (checked.differences.length) {
      const collated = existsSync(new RunStore(runDir).tasksPath);
      say(
        `${collated ? 'the run continues on the tasks it collated (tasks.jsonl)' : 'the run collates the dataset as it is now'}; the replaced identity is kept in manifest.json (replaced_identities)`,
      );
    }
    const resumed = concurrency ? { ...checked.manifest, config: { ...checked.manifest.config, concurrency } } : checked.manifest;
    const handle = await startRun(session.client, resumed);
    say(`resuming run ${manifest.run_id} (workflow ${handle.workflowId})`);
    // An already-running workflow keeps its input, so a new concurrency travels as an update; it is
    // answered once a worker (possibly the one followRun starts) takes it, so it is not awaited first.
    const resized = concurrency
      ? handle.executeUpdate(setConcurrencyUpdate, { args: [concurrency] }).then(
          (n) => say(`concurrency is now ${n}`),
          (e: Error) => say(`could not change the concurrency: ${e.message}`),
        )
      : undefined;
    await followRun({ session, handle, runDir: manifest.config.runDir, taskQueue: resumed.config.taskQueue, withWorker: !values['no-worker'], logger, say, ...follow });
    await resized;
  } finally {
    await session.close();
  }
}

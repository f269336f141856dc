// `gym eval retry-failures`: play the sidecar rollouts of a finished run again, as new attempts, in a
// durable execution of the run's own workflow (Ctrl-C leaves it running; resume or this command again
// follows it), then recompute the run's metrics and health from its files.
import type { Logger } from 'pino';
import { WorkflowNotFoundError } from '@temporalio/client';
import { GymError } from '../../errors';
import type { RunMetrics } from '../../metrics/aggregate';
import { checkResumeIdentity, readManifest, startRun, type RunMemo } from '../../runs/client';
import { chooseRetries, describeCounts } from '../../runs/retry';
import { RunStore } from '../../store/run-store';
import { MAX_CONCURRENCY } from '../../../workflows/definitions';
import { intFlag, parseFlags } from '../args';
import { MIN_COVERAGE_USAGE, minCoverageFlag } from '../coverage';
import { FAILURE_CLASS_NAMES, failureClassesFlag } from '../failure-flags';
import { RECONNECT_USAGE, reconnectTimeoutMs } from '../reconnect';
import { openSession } from '../session';
import { followRun } from './follow';
import { runFolder } from './eval-manage';

const USAGE = `usage: gym eval retry-failures <run folder> [--class C ...] [--include-terminal] [--concurrency N] [--no-worker]

  plays the rollouts in failures.jsonl again, each as its next attempt (_ng_attempt_index); one that
  succeeds moves to rollouts.jsonl, one that fails again stays in failures.jsonl with its new attempt.
  --class C            only sidecar rollouts of these failure classes (repeatable or comma-separated):
                       ${FAILURE_CLASS_NAMES}
  --include-terminal   also those marked _ng_failure_terminal (a bad task, a refused request)
  --concurrency N      rollouts in flight (default: the run's)
  --no-worker          follow the retry without running a worker in this process
${MIN_COVERAGE_USAGE}
${RECONNECT_USAGE}`;

const FLAGS = {
  class: { type: 'string', multiple: true },
  'include-terminal': { type: 'boolean' },
  concurrency: { type: 'string' },
  'no-worker': { type: 'boolean' },
  'min-coverage': { type: 'string' },
  'reconnect-timeout': { type: 'string' },
} as const;

export async function evalRetryFailures(argv: string[], logger: Logger, say: (line: string) => void): Promise<void> {
  const { values, positionals } = parseFlags(argv, FLAGS, USAGE);
  if (values.help) return say(USAGE);
  if (positionals.length !== 1) throw new GymError('BAD_FLAG', `expected one run folder\n\n${USAGE}`);
  const classes = failureClassesFlag(values, 'class');
  const concurrency = intFlag(values, 'concurrency', { min: 1, max: MAX_CONCURRENCY });
  const follow = { minCoverage: minCoverageFlag(values), reconnectTimeoutMs: reconnectTimeoutMs(values) };
  const runDir = runFolder(positionals[0]!);
  const manifest = await readManifest(runDir);
  if (!manifest) throw new GymError('NOT_FOUND', `${runDir} holds no manifest.json; pass the folder given to --output of gym eval run`);
  const store = new RunStore(runDir);
  const session = await openSession(say);
  try {
    let execution: { status: string; memo?: RunMemo } | undefined;
    try {
      const d = await session.client.workflow.getHandle(manifest.workflow_id).describe();
      execution = { status: d.status.name, memo: d.memo as RunMemo | undefined };
    } catch (e) {
      if (!(e instanceof WorkflowNotFoundError)) throw e;
    }
    const withWorker = !values['no-worker'];
    const taskQueue = manifest.config.taskQueue;
    if (execution?.status === 'RUNNING') {
      if (!execution.memo?.retry)
        throw new GymError('CONFLICT', `run ${manifest.run_id} is still running; retry-failures plays the sidecar of a finished run (wait for it, or follow it with \`gym eval resume ${runDir}\`)`);
      // An interrupted retry continues with the selection it started with.
      say(`a retry of ${execution.memo.retry.rollouts} sidecar rollouts of run ${manifest.run_id} is running; following it`);
      const handle = await startRun(session.client, manifest);
      await followRun({ session, handle, runDir, taskQueue, withWorker, logger, say, ...follow });
      return;
    }
    const metrics = await store.readJson<RunMetrics>(store.metricsPath);
    const finished = execution === undefined ? !!metrics : execution.status === 'COMPLETED' || !!execution.memo?.retry;
    if (!finished || !metrics) {
      throw new GymError('CONFLICT', `run ${manifest.run_id} did not finish (${execution?.status.toLowerCase() ?? 'no metrics.json'}); continue it with \`gym eval resume ${runDir}\` first`);
    }
    if (metrics.status === 'cancelled') {
      throw new GymError('CONFLICT', `run ${manifest.run_id} was cancelled with ${metrics.rollouts_missing} rollouts missing; continue it with \`gym eval resume ${runDir}\` first`);
    }
    const choice = chooseRetries(await store.readFailures(), manifest.config.numRepeats, { classes, includeTerminal: values['include-terminal'] });
    const terminal = describeCounts(choice.terminal);
    if (terminal) say(`left alone: ${terminal} rollout(s) marked terminal (a retry cannot fix them; --include-terminal retries them anyway)`);
    if (!choice.selection.ordinals.length) {
      say(`nothing to retry: failures.jsonl holds no ${classes ? `rollouts of class ${classes.join(', ')}` : 'rollouts'} that a retry could fix`);
      return;
    }
    const checked = await checkResumeIdentity(session.client, manifest);
    const started = concurrency ? { ...checked.manifest, config: { ...checked.manifest.config, concurrency } } : checked.manifest;
    const handle = await startRun(session.client, started, { only: choice.selection, classes: classes ?? [] });
    say(`retrying ${choice.selection.ordinals.length} sidecar rollouts (${describeCounts(choice.byClass)}) of run ${manifest.run_id} as new attempts (workflow ${handle.workflowId})`);
    const out = await followRun({ session, handle, runDir, taskQueue, withWorker, logger, say, ...follow });
    if (out) say(`after the retry: ${out.metrics.rollouts_recorded} recorded, ${out.metrics.rollouts_failed} in failures.jsonl`);
  } finally {
    await session.close();
  }
}

// Drives a started run to its end from the command line: an in-process worker (unless told not
// to), the live progress line, Ctrl-C that leaves the run resumable, and the metrics at the end.
import { setTimeout as sleep } from 'node:timers/promises';
import type { WorkflowHandle } from '@temporalio/client';
import type { Logger } from 'pino';
import { queryProgress, readManifest, runStatus } from '../../runs/client';
import type { Manifest } from '../../runs/manifest';
import type { RunMetrics } from '../../metrics/aggregate';
import { RunStore } from '../../store/run-store';
import { formatExports, readExports } from '../../exporters/run-exports';
import type { RunResult } from '../../../workflows/definitions';
import { checkCoverage } from '../coverage';
import { createProgressReporter } from '../progress';
import { isConnectionLoss, ServerLink } from '../reconnect';
import { formatMetrics } from '../report';
import { runFailureError } from '../run-failure';
import { rolloutQueuePolled, unpolledRolloutQueueHint } from '../rollout-queue';
import { startWorker, type Session } from '../session';
import type { GymWorker } from '../../../workers/worker';

const ROLLOUT_QUEUE_GRACE_MS = 5000;

/** How a followed run ends: the coverage it must reach, and how long a lost server is waited for. */
export interface FollowSettings {
  minCoverage: number;
  reconnectTimeoutMs: number;
}

/** A finished run is not run again: its metrics are shown instead. Returns whether it was finished. */
export async function showIfComplete(session: Session, manifest: Manifest, say: (line: string) => void, follow: Pick<FollowSettings, 'minCoverage'>): Promise<boolean> {
  const store = new RunStore(manifest.config.runDir);
  const metrics = await store.readJson<RunMetrics>(store.metricsPath);
  // A run cancelled gracefully completed as a workflow, with rollouts missing: resuming plays them.
  if (!metrics || metrics.status === 'cancelled' || (await runStatus(session.client, manifest.workflow_id)) !== 'COMPLETED') return false;
  say(`run ${manifest.run_id} is already complete`);
  say(formatMetrics(metrics, manifest.config.runDir));
  checkCoverage(metrics, follow.minCoverage);
  return true;
}

export async function followRun(
  opts: FollowSettings & {
    session: Session;
    handle: WorkflowHandle;
    runDir: string;
    taskQueue: string;
    withWorker: boolean;
    logger: Logger;
    say: (line: string) => void;
  },
): Promise<RunResult | undefined> {
  const { session, say } = opts;
  // Read before Ctrl-C is listened for, so that no await lies between the check for an early signal
  // and the wait for the result.
  const { rolloutQueue, store } = (await readManifest(opts.runDir))?.config ?? {};
  const reporter = createProgressReporter();
  const abort = new AbortController();
  const link = new ServerLink({
    address: session.settings.address,
    timeoutMs: opts.reconnectTimeoutMs,
    runDir: opts.runDir,
    say,
    signal: abort.signal,
    beforeSay: () => reporter.finish(),
  });
  // Without a worker in this process nothing else ends the wait for the result when Ctrl-C comes.
  // Made before the first await: a listener added after the abort would never hear it.
  const byUser = new Promise<undefined>((resolve) => abort.signal.addEventListener('abort', () => resolve(undefined), { once: true }));
  let worker: GymWorker | undefined;
  let interrupted = false;
  const onSignal = () => {
    interrupted = true;
    abort.abort();
    reporter.finish();
    say(`interrupted: the run is kept in Temporal; continue it with \`gym eval resume ${opts.runDir}\``);
    worker?.worker.shutdown();
    process.exitCode = 130;
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  if (opts.withWorker) worker = await startWorker(session, opts.logger, opts.taskQueue);
  // A worker that never ran cannot be shut down (Temporal refuses); the command's exit ends it.
  if (interrupted) {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    return undefined;
  }
  let handle = opts.handle;
  const followedSince = new Date().toISOString();
  // The long poll for the result is what notices a lost server; a fresh connection takes it up again.
  const result = (async (): Promise<RunResult> => {
    for (;;) {
      try {
        // Ctrl-C cancels the long poll (as it does the progress queries): left running, its retries
        // would outlive the connection they use.
        return (await session.client.withAbortSignal(abort.signal, () => handle.result())) as RunResult;
      } catch (e) {
        if (!isConnectionLoss(e)) throw e;
      }
      await link.recover(() => session.reconnect());
      handle = session.client.workflow.getHandle(handle.workflowId);
    }
  })();
  let stopped = false;
  const poll = (async () => {
    // A worker that has just started may not have polled yet: the rollout queue is looked at after a few seconds, once.
    const lookAt = Date.now() + ROLLOUT_QUEUE_GRACE_MS;
    let looked = !rolloutQueue;
    while (!stopped) {
      if (!looked && Date.now() >= lookAt && !link.lost) {
        looked = true;
        const polled = await rolloutQueuePolled(session.client, session.settings.namespace, rolloutQueue!).catch(() => true);
        if (!polled && !stopped) {
          reporter.finish();
          say(unpolledRolloutQueueHint(rolloutQueue!));
        }
      }
      const p = link.lost ? undefined : await queryProgress(handle, undefined, abort.signal);
      if (p && !stopped && !link.lost) reporter.update(p);
      await sleep(1000, undefined, { signal: abort.signal }).catch(() => undefined);
    }
  })();
  try {
    const out = worker ? ((await worker.run(result)) as RunResult) : await Promise.race([result, byUser]);
    if (!out) {
      result.catch(() => {});
      return undefined;
    }
    reporter.finish();
    // The finalizer may have run on another machine: the run's finished files come from its object store.
    if (store) await (await import('../../store/object/publish')).fetchRunFiles(store, opts.runDir);
    say(formatMetrics(out.metrics, opts.runDir));
    // The finalize that just ran exported the run; older entries of exports.json are not this run's news.
    const exports = await readExports(opts.runDir);
    if (exports)
      for (const line of formatExports(
        exports,
        Object.keys(exports.exporters).filter((n) => exports.exporters[n]!.finished_at >= followedSince),
      ))
        say(line);
    checkCoverage(out.metrics, opts.minCoverage);
    return out;
  } catch (e) {
    // After Ctrl-C the worker stops before the run ends; that is the point, not an error.
    if (interrupted) {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      return undefined;
    }
    throw runFailureError(e, opts.runDir) ?? e;
  } finally {
    stopped = true;
    await poll;
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

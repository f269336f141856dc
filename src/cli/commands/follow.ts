// Drives a started run to its end from the command line: an in-process worker (unless told not
// to), the live progress line, Ctrl-C that leaves the run resumable, and the metrics at the end.
import type { WorkflowHandle } from '@temporalio/client';
import type { Logger } from 'pino';
import { queryProgress } from '../../runs/client';
import type { RunResult } from '../../../workflows/definitions';
import { createProgressReporter } from '../progress';
import { formatMetrics } from '../report';
import { startWorker, type Session } from '../session';

export async function followRun(opts: {
  session: Session;
  handle: WorkflowHandle;
  runDir: string;
  withWorker: boolean;
  logger: Logger;
  say: (line: string) => void;
}): Promise<RunResult> {
  const { session, handle, say } = opts;
  const worker = opts.withWorker ? await startWorker(session, opts.logger) : undefined;
  const reporter = createProgressReporter();
  const result = handle.result() as Promise<RunResult>;
  let stopped = false;
  const poll = (async () => {
    while (!stopped) {
      const p = await queryProgress(handle);
      if (p && !stopped) reporter.update(p);
      await new Promise((r) => setTimeout(r, 1000));
    }
  })();
  const onSignal = () => {
    reporter.finish();
    say(`interrupted: the run is kept in Temporal; continue it with \`gym eval resume ${opts.runDir}\``);
    worker?.worker.shutdown();
    process.exitCode = 130;
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const out = worker ? ((await worker.run(result)) as RunResult) : await result;
    reporter.finish();
    say(formatMetrics(out.metrics, opts.runDir));
    return out;
  } finally {
    stopped = true;
    await poll;
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

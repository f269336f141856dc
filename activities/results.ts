// The end of a run: make the results files canonical and aggregate the run's metrics from them.
import { Context } from '@temporalio/activity';
import { exportAfterRun } from '../src/exporters/run-exports';
import { computeRunMetrics, type RunMetrics } from '../src/metrics/aggregate';
import { RunStore } from '../src/store/run-store';
import { runActivity } from './envelope';

export function finalizeRun(input: { runDir: string; expected: number }): Promise<RunMetrics> {
  return runActivity(async () => {
    const store = new RunStore(input.runDir);
    const { rollouts, failures } = await store.compactResults();
    const metrics = computeRunMetrics({
      expected: input.expected,
      rollouts: rollouts.map((r) => ({ taskIndex: r._ng_task_index, rolloutIndex: r._ng_rollout_index, reward: r.reward, rewardComponents: r.reward_components })),
      failureClasses: failures.map((f) => f._ng_failure_class),
    });
    await store.writeJson(store.metricsPath, metrics);
    await exportAfterRun(input.runDir, Context.current().info.workflowExecution?.runId, Context.current().log);
    return metrics;
  });
}

// The end of a run: make the results files canonical, aggregate the run's metrics from them, and
// write its health reports (rollout_verdicts.jsonl, quality_summary.json).
import { runHealthChecks } from '../src/health/run-health';
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
    await runHealthChecks(input.runDir);
    return metrics;
  });
}

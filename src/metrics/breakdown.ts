// A routed run's metrics per agent and per environment: the run's own metrics computed again over each
// group's tasks alone (a task belongs to one agent and one environment). Pure, fed like RunAccumulator.
import { RunAccumulator, type RunMetrics, type ScoredRollout } from './aggregate';

/** Who plays a task of a routed run: the agent instance and the environment's label. */
export interface TaskGroups {
  agent: string;
  environment: string;
  /** The task's lines in the run's task file, when each repeat has its own (num_repeats by agent). */
  lines?: number;
}

/** One group's metrics: the run's, without diagnostics (those are per group already) or the run's status. */
export type GroupMetrics = Omit<RunMetrics, 'status' | 'diagnostics' | 'per_agent' | 'per_environment'>;

export interface Breakdown {
  per_agent: Record<string, GroupMetrics>;
  per_environment: Record<string, GroupMetrics>;
}

type Dimension = 'agent' | 'environment';
const DIMENSIONS: readonly Dimension[] = ['agent', 'environment'];

export class BreakdownAccumulator {
  private readonly groups: Record<Dimension, Map<string, { acc: RunAccumulator; tasks: number }>> = { agent: new Map(), environment: new Map() };

  constructor(
    private readonly taskGroups: ReadonlyMap<number, TaskGroups>,
    countAsZero: Iterable<string> = [],
  ) {
    const zero = [...countAsZero];
    for (const dim of DIMENSIONS) {
      const members = new Map<string, number[]>();
      for (const [task, g] of taskGroups) members.set(g[dim], [...(members.get(g[dim]) ?? []), task]);
      // A group expects a run's repeats of each of its task lines.
      for (const [name, tasks] of members) this.groups[dim].set(name, { acc: new RunAccumulator(tasks, zero), tasks: tasks.reduce((n, t) => n + (taskGroups.get(t)!.lines ?? 1), 0) });
    }
  }

  private each(taskIndex: number, apply: (acc: RunAccumulator) => void): void {
    const g = this.taskGroups.get(taskIndex);
    if (!g) return;
    for (const dim of DIMENSIONS) apply(this.groups[dim].get(g[dim])!.acc);
  }

  addRollout(r: ScoredRollout): void {
    this.each(r.taskIndex, (acc) => acc.addRollout(r));
  }

  addFailure(failureClass: string, key: { taskIndex: number; rolloutIndex: number }): void {
    this.each(key.taskIndex, (acc) => acc.addFailure(failureClass, key));
  }

  /** `expectedPerTask`: rollouts the run expects of each task line (its repeats). */
  result(expectedPerTask: number): Breakdown {
    const of = (dim: Dimension) =>
      Object.fromEntries(
        [...this.groups[dim].entries()]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([name, g]) => {
            const { diagnostics: _d, ...metrics } = g.acc.result(g.tasks * expectedPerTask);
            return [name, metrics];
          }),
      );
    return { per_agent: of('agent'), per_environment: of('environment') };
  }
}

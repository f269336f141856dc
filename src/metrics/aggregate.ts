// Run metrics from the recorded rollouts: mean reward with its spread and intervals, pass@k and
// majority@k over the run's task set, per-task variance, counts, coverage and diagnostics
// distributions. Pure; fed one rollout at a time, so a caller can stream a run of any size.
import type { RolloutDiagnostics } from '../schemas/records';
import type { GroupMetrics } from './breakdown';
import { DiagnosticsAccumulator, type DiagnosticsGroup, type GroupKey } from './diagnostics';
import { acrossRepeatsInterval, clusteredInterval } from './intervals';
import { curveOverTasks, majorityAtKCurve, pass1AvgOfKCurve, passAtKCurve, type TaskSamples } from './pass-at-k';
import { mean, sampleStd, sampleVariance } from './stats';

export interface ScoredRollout {
  taskIndex: number;
  rolloutIndex: number;
  reward: number;
  rewardComponents?: Record<string, number>;
  /** The answer the environment extracted (NeMo Gym's `extracted_answer`), null when none: what majority@k votes on. */
  answer?: string | null;
  diagnostics?: RolloutDiagnostics;
  /** Who produced it; diagnostics are summarized per group. */
  group?: GroupKey;
}

/** Task ids listed per k in `pass_at_k_short_tasks`; task_metrics.jsonl has every task's sample count. */
export const SHORT_TASK_IDS_SHOWN = 100;

export interface ShortTasks {
  count: number;
  /** The first SHORT_TASK_IDS_SHOWN of them, ascending. */
  task_indices: number[];
}

export interface TaskVariance {
  /** Tasks with at least two samples: the ones a within-task variance exists for. */
  tasks_with_repeats: number;
  /** Mean over those tasks of the sample variance of their rewards. */
  mean_within_task_variance: number | null;
  /** Those tasks whose samples all got the same reward. */
  zero_variance_tasks: number;
  /** Sample variance of the task mean rewards, over tasks with a sample. */
  between_task_variance: number | null;
}

/** How a run ended, as its metrics record it: cancelled runs leave rollouts missing. */
export type RunEnd = 'completed' | 'cancelled';

export interface RunMetrics {
  /** Absent in metrics written before it was kept, and in metrics computed outside a run. */
  status?: RunEnd;
  rollouts_expected: number;
  rollouts_recorded: number;
  rollouts_failed: number;
  /** Expected rollouts in neither file: never played, or abandoned by a cancel (resume plays them). */
  rollouts_missing: number;
  /** Sidecar rollouts of the classes the user asked to count as reward 0 (`--count-as-zero`): in the reward metrics, still in failures.jsonl. */
  rollouts_counted_as_zero: number;
  count_as_zero: string[];
  /** Share of expected rollouts in the reward metrics (recorded, or counted as zero): what every reward metric covers. */
  coverage: number;
  /** Tasks with at least one recorded rollout. */
  tasks: number;
  /** Tasks of the run (recorded or not): the fixed set pass@k and majority@k are over. */
  task_set: number;
  mean_reward: number | null;
  std_reward: number | null;
  /** The naive interval, as if every rollout were independent: mean ± 1.96 · std / √N. */
  ci95_reward: [number, number] | null;
  /** The interval with a task's repeats as one cluster (docs/metrics.md). */
  ci95_reward_clustered: [number, number] | null;
  se_reward_clustered: number | null;
  /** NeMo Gym's t interval over the per-repeat mean rewards. */
  nemo_gym_ci95_reward: { mean: number; ci95: [number, number]; repeats: number } | null;
  pass_at_k: Record<string, number>;
  /** For each k at which some tasks of the set have fewer than k samples: how many, and which. */
  pass_at_k_short_tasks: Record<string, ShortTasks>;
  pass_at_1_avg_of_k: Record<string, number>;
  /** Empty when the environment extracts no answers. */
  majority_at_k: Record<string, number>;
  task_variance: TaskVariance;
  reward_components: Record<string, number>;
  failure_classes: Record<string, number>;
  /** Distributions of the per-rollout diagnostics, per environment, agent and model. */
  diagnostics: DiagnosticsGroup[];
  /** A routed run's metrics over each agent's tasks, and over each environment's (src/metrics/breakdown.ts). */
  per_agent?: Record<string, GroupMetrics>;
  per_environment?: Record<string, GroupMetrics>;
}

/** One line of task_metrics.jsonl. */
export interface TaskMetrics {
  _ng_task_index: number;
  samples: number;
  mean_reward: number | null;
  reward_variance: number | null;
}

interface TaskColumns {
  rolloutIndex: number[];
  rewards: number[];
  answers: (string | null)[];
}

/** Takes rollouts and failures one at a time, keeping only the numbers the metrics need. */
export class RunAccumulator {
  private readonly tasks = new Map<number, TaskColumns>();
  private readonly components: Record<string, { sum: number; n: number }> = {};
  private readonly failures: Record<string, number> = {};
  private readonly diagnostics = new DiagnosticsAccumulator();
  private recorded = 0;
  private failed = 0;
  private zeroed = 0;
  private answered = false;
  private readonly countAsZero: ReadonlySet<string>;

  /**
   * `taskSet`: every task of the run, so that one with no recorded rollout still counts as short.
   * `countAsZero`: failure classes whose sidecar rollouts enter the reward metrics as reward 0.
   */
  constructor(taskSet: Iterable<number> = [], countAsZero: Iterable<string> = []) {
    for (const t of taskSet) this.task(t);
    this.countAsZero = new Set(countAsZero);
  }

  private task(index: number): TaskColumns {
    let t = this.tasks.get(index);
    if (!t) this.tasks.set(index, (t = { rolloutIndex: [], rewards: [], answers: [] }));
    return t;
  }

  addRollout(r: ScoredRollout): void {
    this.recorded++;
    this.score(r);
  }

  private score(r: ScoredRollout): void {
    const t = this.task(r.taskIndex);
    t.rolloutIndex.push(r.rolloutIndex);
    t.rewards.push(r.reward);
    const answer = typeof r.answer === 'string' ? r.answer : null;
    if (answer !== null) this.answered = true;
    t.answers.push(answer);
    for (const [name, v] of Object.entries(r.rewardComponents ?? {})) {
      const c = (this.components[name] ??= { sum: 0, n: 0 });
      c.sum += v;
      c.n++;
    }
    if (r.diagnostics) this.diagnostics.add(r.group ?? { environment: 'unknown', agent: 'unknown', model: 'unknown' }, r.diagnostics);
  }

  /** A sidecar rollout; with its key, one of a class counted as zero is scored as reward 0. */
  addFailure(failureClass: string, key?: { taskIndex: number; rolloutIndex: number }): void {
    this.failed++;
    this.failures[failureClass] = (this.failures[failureClass] ?? 0) + 1;
    if (key && this.countAsZero.has(failureClass)) {
      this.zeroed++;
      this.score({ ...key, reward: 0, answer: null });
    }
  }

  /** Each task's samples in rollout-index order, ascending by task. */
  private samples(): TaskSamples[] {
    return [...this.tasks.entries()]
      .sort(([a], [b]) => a - b)
      .map(([task, c]) => {
        const order = c.rolloutIndex.map((_, i) => i).sort((a, b) => c.rolloutIndex[a]! - c.rolloutIndex[b]!);
        return { task, rewards: order.map((i) => c.rewards[i]!), answers: this.answered ? order.map((i) => c.answers[i]!) : undefined };
      });
  }

  taskMetrics(): TaskMetrics[] {
    return this.samples().map((t) => ({ _ng_task_index: t.task, samples: t.rewards.length, mean_reward: mean(t.rewards), reward_variance: sampleVariance(t.rewards) }));
  }

  result(expected: number): RunMetrics {
    const tasks = this.samples();
    const sampled = tasks.filter((t) => t.rewards.length > 0);
    const rewards = sampled.flatMap((t) => t.rewards);
    const pass: Record<string, number> = {};
    const short: Record<string, ShortTasks> = {};
    const avg: Record<string, number> = {};
    const majority: Record<string, number> = {};
    curveOverTasks(tasks, (t) => passAtKCurve(t.rewards)).forEach((p, i) => {
      if (p.value !== null) pass[`pass@${i + 1}`] = p.value;
      if (p.short.length) short[`pass@${i + 1}`] = { count: p.short.length, task_indices: p.short.slice(0, SHORT_TASK_IDS_SHOWN) };
    });
    curveOverTasks(tasks, (t) => pass1AvgOfKCurve(t.rewards)).forEach((a, i) => {
      if (a.value !== null) avg[`pass@1[avg-of-${i + 1}]`] = a.value;
    });
    if (this.answered)
      curveOverTasks(tasks, (t) => majorityAtKCurve(t.rewards, t.answers ?? [])).forEach((m, i) => {
        if (m.value !== null) majority[`majority@${i + 1}`] = m.value;
      });

    const byRepeat = new Map<number, { sum: number; n: number }>();
    for (const c of this.tasks.values()) {
      c.rolloutIndex.forEach((ri, i) => {
        const r = byRepeat.get(ri) ?? { sum: 0, n: 0 };
        r.sum += c.rewards[i]!;
        r.n++;
        byRepeat.set(ri, r);
      });
    }
    const nemo = acrossRepeatsInterval([...byRepeat.entries()].sort(([a], [b]) => a - b).map(([, r]) => r.sum / r.n));
    const clustered = clusteredInterval(sampled.map((t) => t.rewards));

    const repeated = sampled.filter((t) => t.rewards.length > 1);
    const within = repeated.map((t) => sampleVariance(t.rewards)!);

    const m = mean(rewards);
    const sd = sampleStd(rewards);
    const half = m !== null && sd !== null && rewards.length > 1 ? (1.96 * sd) / Math.sqrt(rewards.length) : null;
    return {
      rollouts_expected: expected,
      rollouts_recorded: this.recorded,
      rollouts_failed: this.failed,
      rollouts_missing: Math.max(0, expected - this.recorded - this.failed),
      rollouts_counted_as_zero: this.zeroed,
      count_as_zero: [...this.countAsZero].sort(),
      coverage: expected ? (this.recorded + this.zeroed) / expected : 0,
      tasks: sampled.length,
      task_set: tasks.length,
      mean_reward: m,
      std_reward: sd,
      ci95_reward: half === null ? null : [m! - half, m! + half],
      ci95_reward_clustered: clustered?.ci95 ?? null,
      se_reward_clustered: clustered?.se ?? null,
      nemo_gym_ci95_reward: nemo ? { mean: nemo.mean, ci95: nemo.ci95, repeats: nemo.n } : null,
      pass_at_k: pass,
      pass_at_k_short_tasks: short,
      pass_at_1_avg_of_k: avg,
      majority_at_k: majority,
      task_variance: {
        tasks_with_repeats: repeated.length,
        mean_within_task_variance: mean(within),
        zero_variance_tasks: within.filter((v) => v === 0).length,
        between_task_variance: sampled.length > 1 ? sampleVariance(sampled.map((t) => mean(t.rewards)!)) : null,
      },
      reward_components: Object.fromEntries(Object.entries(this.components).map(([k, c]) => [k, c.sum / c.n])),
      failure_classes: { ...this.failures },
      diagnostics: this.diagnostics.result(),
    };
  }
}

export function computeRunMetrics(input: { rollouts: readonly ScoredRollout[]; failureClasses: readonly string[]; expected: number; taskSet?: Iterable<number> }): RunMetrics {
  const acc = new RunAccumulator(input.taskSet);
  for (const r of input.rollouts) acc.addRollout(r);
  for (const c of input.failureClasses) acc.addFailure(c);
  return acc.result(input.expected);
}

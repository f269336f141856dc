// `gym eval compare`: two runs' metrics side by side and each difference's significance, paired by task
// (a paired t-test over per-task values of the tasks both runs played). Pure except `readTaskScores`.
import { z } from 'zod';
import { passAtK } from '../metrics/pass-at-k';
import { mean } from '../metrics/stats';
import { RolloutRecord } from '../schemas/records';
import { RunStore } from '../store/run-store';
import { eachLine, recordIssue } from './read-run';
import { pairedTTest, type PairedTest } from './paired';

/** Per task: its repeats' rewards in repeat order, and each reward component's values. */
export type TaskScores = Map<number, { rewards: number[]; components: Record<string, number[]> }>;

export interface MetricDiff {
  metric: string;
  /** Each run's value over the paired tasks (mean of per-task values). */
  a: number;
  b: number;
  test: PairedTest;
}

export interface Comparison {
  pairedTasks: number;
  onlyInA: number[];
  onlyInB: number[];
  diffs: MetricDiff[];
}

const ScoreFields = RolloutRecord.pick({ _ng_task_index: true, _ng_rollout_index: true, reward: true, reward_components: true });

export async function readTaskScores(runDir: string): Promise<TaskScores> {
  const store = new RunStore(runDir);
  const rows: z.infer<typeof ScoreFields>[] = [];
  await eachLine(store.rolloutsPath, (value, line) => {
    const parsed = ScoreFields.safeParse(value);
    if (!parsed.success) throw recordIssue(store.rolloutsPath, line, parsed.error);
    rows.push(parsed.data);
  });
  return taskScores(rows);
}

export function taskScores(rows: readonly { _ng_task_index: number; _ng_rollout_index: number; reward: number; reward_components?: Record<string, number> }[]): TaskScores {
  const sorted = [...rows].sort((x, y) => x._ng_task_index - y._ng_task_index || x._ng_rollout_index - y._ng_rollout_index);
  const out: TaskScores = new Map();
  for (const r of sorted) {
    let t = out.get(r._ng_task_index);
    if (!t) out.set(r._ng_task_index, (t = { rewards: [], components: {} }));
    t.rewards.push(r.reward);
    for (const [k, v] of Object.entries(r.reward_components ?? {})) (t.components[k] ??= []).push(v);
  }
  return out;
}

function diff(metric: string, pairs: [number, number][]): MetricDiff {
  const a = pairs.map((p) => p[0]);
  const b = pairs.map((p) => p[1]);
  return { metric, a: mean(a) ?? 0, b: mean(b) ?? 0, test: pairedTTest(a, b) };
}

/**
 * Mean reward (per-task means), pass@k for every k both runs reach on some task (tasks with fewer than k
 * repeats in either run are left out of that k, and its n says so), and each reward component both runs have.
 */
export function compareScores(a: TaskScores, b: TaskScores): Comparison {
  const common = [...a.keys()].filter((t) => b.has(t)).sort((x, y) => x - y);
  const pairsOf = (value: (s: { rewards: number[]; components: Record<string, number[]> }) => number | null) =>
    common.flatMap((t) => {
      const [x, y] = [value(a.get(t)!), value(b.get(t)!)];
      return x === null || y === null ? [] : [[x, y] as [number, number]];
    });
  const diffs = [
    diff(
      'mean_reward',
      pairsOf((s) => mean(s.rewards)),
    ),
  ];
  const maxK = Math.max(0, ...common.map((t) => Math.min(a.get(t)!.rewards.length, b.get(t)!.rewards.length)));
  for (let k = 1; k <= maxK; k++)
    diffs.push(
      diff(
        `pass@${k}`,
        pairsOf((s) => (s.rewards.length >= k ? passAtK(s.rewards, k) : null)),
      ),
    );
  const components = new Set(common.flatMap((t) => Object.keys(a.get(t)!.components).filter((c) => c in b.get(t)!.components)));
  for (const c of [...components].sort())
    diffs.push(
      diff(
        c,
        pairsOf((s) => (s.components[c] ? mean(s.components[c]) : null)),
      ),
    );
  return {
    pairedTasks: common.length,
    onlyInA: [...a.keys()].filter((t) => !b.has(t)).sort((x, y) => x - y),
    onlyInB: [...b.keys()].filter((t) => !a.has(t)).sort((x, y) => x - y),
    diffs,
  };
}

const num = (x: number | null | undefined, digits = 4) => (x === null || x === undefined ? 'n/a' : x.toFixed(digits));
const signed = (x: number) => (x >= 0 ? '+' : '') + x.toFixed(4);

function taskList(ts: number[]): string {
  return ts.length ? `${ts.length} (${ts.slice(0, 10).join(', ')}${ts.length > 10 ? ', …' : ''})` : '0';
}

export function formatComparison(c: Comparison, labels: { a: string; b: string }): string {
  const head = ['metric', 'A', 'B', 'B−A', '95% CI of B−A', 'p', 'tasks'];
  const rows = c.diffs.map((d) => [
    d.metric,
    num(d.a),
    num(d.b),
    signed(d.test.meanDiff),
    d.test.ci95 ? `[${num(d.test.ci95[0])}, ${num(d.test.ci95[1])}]` : 'n/a',
    d.test.p === null ? 'n/a' : d.test.p < 0.0001 ? '<0.0001' : num(d.test.p),
    String(d.test.n),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((x, i) => x.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [
    `A: ${labels.a}`,
    `B: ${labels.b}`,
    `paired by task: ${c.pairedTasks} tasks in both runs; only in A: ${taskList(c.onlyInA)}; only in B: ${taskList(c.onlyInB)}`,
    line(head),
    ...rows.map(line),
    'p: two-sided paired t-test over per-task values (each task one pair); A and B are means over the paired tasks.',
  ].join('\n');
}

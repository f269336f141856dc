// pass@k, pass@1 averaged and majority@k over a fixed task set. A task with fewer than k samples has
// no estimate at k: it is left out of that k's mean and named in `short`, never dropped silently.

/** One task's samples, in rollout-index order (the order is used by majority@k and pass@1[avg-of-k] only). */
export interface TaskSamples {
  task: number;
  rewards: number[];
  /** The extracted answer of each sample, or null when it gave none; absent when the environment extracts none. */
  answers?: (string | null)[];
}

/**
 * pass@k for one task: the expected best reward of k samples drawn without replacement from its n,
 * computed exactly from the sorted rewards — sum over i of r_(i) · C(i−1, k−1) / C(n, k), r_(i) the
 * i-th smallest. For 0/1 rewards this is the unbiased estimator 1 − C(n−c, k)/C(n, k); for graded
 * rewards it does not depend on the order the samples arrived in.
 */
export function passAtK(rewards: readonly number[], k: number): number {
  const n = rewards.length;
  if (!Number.isInteger(k) || k < 1 || k > n) throw new RangeError(`pass@${k} needs 1 ≤ k ≤ n (n = ${n})`);
  const sorted = [...rewards].sort((a, b) => a - b);
  // w_i = C(i−1, k−1)/C(n, k) from i = n down: w_n = k/n, w_{i−1} = w_i · (i − k)/(i − 1). No factorials, no overflow.
  let w = k / n;
  let sum = 0;
  for (let i = n; i >= k; i--) {
    sum += sorted[i - 1]! * w;
    if (i > 1) w *= (i - k) / (i - 1);
  }
  return sum;
}

/**
 * pass@k of one task for every k from 1 to n (index k − 1), in O(n · distinct rewards) instead of a sort and a
 * pass per k: the best of k samples is at most v with probability C(c_v, k)/C(n, k), c_v the samples ≤ v, so
 * pass@k = Σ over distinct v of v · (that probability at v − at the next smaller value). Each ratio follows
 * from the one at k − 1. A run of 20,000 repeats took minutes to aggregate per k; this is a few passes.
 */
export function passAtKCurve(rewards: readonly number[]): number[] {
  const n = rewards.length;
  const counts = new Map<number, number>();
  for (const r of rewards) counts.set(r, (counts.get(r) ?? 0) + 1);
  const values = [...counts.keys()].sort((a, b) => a - b);
  const atMost: number[] = [];
  let c = 0;
  for (const v of values) atMost.push((c += counts.get(v)!));
  const ratio = values.map(() => 1);
  const curve: number[] = [];
  for (let k = 1; k <= n; k++) {
    let sum = 0;
    let below = 0;
    for (let j = 0; j < values.length; j++) {
      ratio[j]! *= Math.max(0, atMost[j]! - k + 1) / (n - k + 1);
      sum += values[j]! * (ratio[j]! - below);
      below = ratio[j]!;
    }
    curve.push(sum);
  }
  return curve;
}

/** majority@k of one task for every k from 1 to n (index k − 1), the votes counted once as k grows. */
export function majorityAtKCurve(rewards: readonly number[], answers: readonly (string | null)[]): number[] {
  const counts = new Map<string, number>();
  let top = 0;
  let tiedSum = 0;
  let tied = 0;
  const curve: number[] = [];
  for (let i = 0; i < rewards.length; i++) {
    const answer = answers[i];
    if (answer !== null && answer !== undefined) {
      const id = JSON.stringify([answer, rewards[i]]);
      const count = (counts.get(id) ?? 0) + 1;
      counts.set(id, count);
      // Counts grow by one, so a pair passing the top count leads alone and one reaching it joins the tie.
      if (count > top) [top, tiedSum, tied] = [count, rewards[i]!, 1];
      else if (count === top) [tiedSum, tied] = [tiedSum + rewards[i]!, tied + 1];
    }
    curve.push(tied ? tiedSum / tied : 0);
  }
  return curve;
}

/** pass@1[avg-of-k] of one task for every k from 1 to n (index k − 1): the mean of its first k rewards. */
export function pass1AvgOfKCurve(rewards: readonly number[]): number[] {
  let sum = 0;
  return rewards.map((r, i) => (sum += r) / (i + 1));
}

/** A metric at one k over the task set: its mean over the tasks with at least k samples, and the others. */
export interface AtK {
  value: number | null;
  /** Tasks the value is the mean over. */
  tasks: number;
  /** Tasks with fewer than k samples, by task index. */
  short: number[];
}

/** A metric's curve per task (index k − 1), averaged over the tasks at each k from 1 to the most samples any task has. */
export function curveOverTasks(tasks: readonly TaskSamples[], curveOf: (t: TaskSamples) => number[]): AtK[] {
  const curves = tasks.map(curveOf);
  const maxK = tasks.reduce((most, t) => Math.max(most, t.rewards.length), 0);
  const out: AtK[] = [];
  for (let k = 1; k <= maxK; k++) {
    let sum = 0;
    let counted = 0;
    const short: number[] = [];
    tasks.forEach((t, i) => {
      if (t.rewards.length < k) short.push(t.task);
      else {
        sum += curves[i]![k - 1]!;
        counted++;
      }
    });
    out.push({ value: counted ? sum / counted : null, tasks: counted, short });
  }
  return out;
}

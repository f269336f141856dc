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
 * NeMo Gym's majority@k for one task: among its first k samples that gave an answer, the most common
 * (answer, reward) pair wins; a tie scores the mean reward of the tied pairs; no answer at all scores 0.
 */
export function majorityAtK(rewards: readonly number[], answers: readonly (string | null)[], k: number): number {
  const votes = new Map<string, { reward: number; count: number }>();
  for (let i = 0; i < Math.min(k, rewards.length); i++) {
    const answer = answers[i];
    if (answer === null || answer === undefined) continue;
    const id = JSON.stringify([answer, rewards[i]]);
    const vote = votes.get(id) ?? { reward: rewards[i]!, count: 0 };
    vote.count++;
    votes.set(id, vote);
  }
  if (votes.size === 0) return 0;
  const top = Math.max(...[...votes.values()].map((v) => v.count));
  const tied = [...votes.values()].filter((v) => v.count === top);
  return tied.reduce((a, v) => a + v.reward, 0) / tied.length;
}

/** A metric at one k over the task set: its mean over the tasks with at least k samples, and the others. */
export interface AtK {
  value: number | null;
  /** Tasks the value is the mean over. */
  tasks: number;
  /** Tasks with fewer than k samples, by task index. */
  short: number[];
}

function overTasks(tasks: readonly TaskSamples[], k: number, perTask: (t: TaskSamples) => number): AtK {
  const values: number[] = [];
  const short: number[] = [];
  for (const t of tasks) {
    if (t.rewards.length < k) short.push(t.task);
    else values.push(perTask(t));
  }
  return { value: values.length ? values.reduce((a, b) => a + b, 0) / values.length : null, tasks: values.length, short };
}

export const passAtKOverTasks = (tasks: readonly TaskSamples[], k: number): AtK => overTasks(tasks, k, (t) => passAtK(t.rewards, k));

/** NeMo Gym's pass@1[avg-of-k]: each task's mean reward over its first k samples, averaged over tasks. */
export const pass1AvgOfKOverTasks = (tasks: readonly TaskSamples[], k: number): AtK => overTasks(tasks, k, (t) => t.rewards.slice(0, k).reduce((a, b) => a + b, 0) / k);

export const majorityAtKOverTasks = (tasks: readonly TaskSamples[], k: number): AtK => overTasks(tasks, k, (t) => majorityAtK(t.rewards, t.answers ?? [], k));

// Which sidecar rollouts `gym eval retry-failures` plays again: those of the chosen classes (all by
// default) that a retry can fix, each as its next attempt. Pure, so the choice is tested directly.
import type { FailureClass, FailureRecord } from '../schemas/records';
import type { RolloutSelection } from '../../workflows/definitions';

export interface RetryChoice {
  selection: RolloutSelection;
  /** Rollouts chosen, per class. */
  byClass: Partial<Record<FailureClass, number>>;
  /** Terminal rollouts of the chosen classes left alone (a retry cannot fix them), per class. */
  terminal: Partial<Record<FailureClass, number>>;
}

export function chooseRetries(failures: Iterable<FailureRecord>, numRepeats: number, opts: { classes?: readonly FailureClass[]; includeTerminal?: boolean } = {}): RetryChoice {
  const wanted = opts.classes ? new Set(opts.classes) : undefined;
  const chosen: [ordinal: number, attempt: number][] = [];
  const byClass: RetryChoice['byClass'] = {};
  const terminal: RetryChoice['terminal'] = {};
  for (const f of failures) {
    const cls = f._ng_failure_class;
    if (wanted && !wanted.has(cls)) continue;
    if (f._ng_failure_terminal && !opts.includeTerminal) {
      terminal[cls] = (terminal[cls] ?? 0) + 1;
      continue;
    }
    // The sidecar's task index is the rollout's position in the run (ordinal ÷ repeats), as keyOf makes it.
    chosen.push([f._ng_task_index * numRepeats + f._ng_rollout_index, (f._ng_attempt_index ?? 0) + 1]);
    byClass[cls] = (byClass[cls] ?? 0) + 1;
  }
  chosen.sort((a, b) => a[0] - b[0]);
  return { selection: { ordinals: chosen.map((c) => c[0]), attempts: chosen.map((c) => c[1]) }, byClass, terminal };
}

export const describeCounts = (counts: Partial<Record<string, number>>) =>
  Object.entries(counts)
    .map(([cls, n]) => `${n} ${cls}`)
    .join(', ');

// Which sidecar rollouts `gym eval retry-failures` plays again: the chosen classes only, terminal ones
// left alone unless asked, each at its position in the run (task × repeats + repeat) as its next attempt.
import { describe, expect, it } from 'vitest';
import { chooseRetries } from '../../src/runs/retry';
import type { FailureRecord } from '../../src/schemas/records';

const f = (task: number, repeat: number, cls: FailureRecord['_ng_failure_class'], extra: Partial<FailureRecord> = {}): FailureRecord => ({
  _ng_task_index: task,
  _ng_rollout_index: repeat,
  _ng_rollout_id: `${task}-${repeat}`,
  _ng_failure_class: cls,
  message: 'x',
  stage: 'model',
  attempt: 3,
  failed_at: 'now',
  ...extra,
});

describe('chooseRetries', () => {
  const sidecar = [f(2, 1, 'model_error', { _ng_attempt_index: 1 }), f(0, 0, 'timeout'), f(1, 1, 'bad_task', { _ng_failure_terminal: true }), f(1, 0, 'model_error', { _ng_attempt_index: 0 })];

  it('takes every class but the terminal rollouts, in run order, each as its next attempt', () => {
    const c = chooseRetries(sidecar, 3);
    expect(c.selection).toEqual({ ordinals: [0, 3, 7], attempts: [1, 1, 2] });
    expect(c.byClass).toEqual({ model_error: 2, timeout: 1 });
    expect(c.terminal).toEqual({ bad_task: 1 });
  });

  it('filters by class, and retries terminal rollouts only when asked', () => {
    expect(chooseRetries(sidecar, 3, { classes: ['timeout'] }).selection).toEqual({ ordinals: [0], attempts: [1] });
    expect(chooseRetries(sidecar, 3, { classes: ['bad_task'] }).selection.ordinals).toEqual([]);
    expect(chooseRetries(sidecar, 3, { classes: ['bad_task'], includeTerminal: true }).selection).toEqual({ ordinals: [4], attempts: [1] });
  });
});

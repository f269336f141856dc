// gym eval compare: the paired t-test and the per-task pairing, against values worked out by hand
// (t and its p from the closed forms of Student's t for 1 and 2 degrees of freedom, the 97.5% quantiles
// 12.7062 = tan(0.475π), 4.3027 and 3.1824 from the t table), then the command on two run folders.
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { evalCompare } from '../../src/cli/commands/eval-report';
import { compareScores, taskScores } from '../../src/report/compare';
import { pairedTTest, tCritical, tTwoSidedP } from '../../src/report/paired';
import { writeSyntheticRun } from '../helpers/synthetic-run';

const rows = (byTask: Record<number, number[]>) => Object.entries(byTask).flatMap(([t, rs]) => rs.map((reward, r) => ({ _ng_task_index: Number(t), _ng_rollout_index: r, reward })));

describe('Student t', () => {
  it('matches the closed forms for 1 and 2 degrees of freedom and the table for 3', () => {
    expect(tTwoSidedP(1, 1)).toBeCloseTo(0.5, 10); // 1 − (2/π)·atan(1)
    expect(tTwoSidedP(2, 2)).toBeCloseTo(0.1835034, 6); // 1 − 2/√6
    expect(tTwoSidedP(0, 5)).toBeCloseTo(1, 10);
    expect(tCritical(0.05, 1)).toBeCloseTo(12.7062047, 5);
    expect(tCritical(0.05, 2)).toBeCloseTo(4.3026527, 5);
    expect(tCritical(0.05, 3)).toBeCloseTo(3.1824463, 5);
  });
});

describe('pairedTTest', () => {
  it('differences [1, 0, 1]: mean 2/3, sd √(1/3), t = 2 on 2 df', () => {
    const r = pairedTTest([0, 1, 0], [1, 1, 1]);
    expect(r.n).toBe(3);
    expect(r.meanDiff).toBeCloseTo(0.6666667, 6);
    expect(r.sdDiff).toBeCloseTo(0.5773503, 6);
    expect(r.t).toBeCloseTo(2, 10);
    expect(r.p).toBeCloseTo(0.1835034, 6);
    expect(r.ci95![0]).toBeCloseTo(-0.7675509, 5); // 2/3 ∓ 4.3026527 / 3
    expect(r.ci95![1]).toBeCloseTo(2.1008843, 5);
  });

  it('differences [1, 0]: t = 1 on 1 df', () => {
    const r = pairedTTest([0, 0], [1, 0]);
    expect(r.p).toBeCloseTo(0.5, 8);
    expect(r.ci95![0]).toBeCloseTo(-5.8531024, 4); // 0.5 ∓ 12.7062047 / 2
    expect(r.ci95![1]).toBeCloseTo(6.8531024, 4);
  });

  it('zero variance: the same difference on every task is certain, no difference is p = 1', () => {
    expect(pairedTTest([0, 1, 1], [1, 2, 2])).toMatchObject({ meanDiff: 1, sdDiff: 0, ci95: [1, 1], p: 0 });
    expect(pairedTTest([0.5, 1], [0.5, 1])).toMatchObject({ meanDiff: 0, sdDiff: 0, p: 1 });
  });

  it('a single pair has a difference but no interval or p-value', () => {
    expect(pairedTTest([0.25], [1])).toEqual({ n: 1, meanDiff: 0.75, sdDiff: null, ci95: null, t: null, p: null });
  });
});

describe('compareScores', () => {
  // Tasks 0–2 have two repeats in both runs, task 5 one; task 3 is only in A, task 4 only in B.
  const a = taskScores(rows({ 0: [0, 1], 1: [0, 0], 2: [1, 1], 3: [1], 5: [1] }));
  const b = taskScores(rows({ 0: [1, 1], 1: [0, 1], 2: [1, 1], 4: [0, 0], 5: [0] }));
  const c = compareScores(a, b);
  const metric = (name: string) => c.diffs.find((d) => d.metric === name)!;

  it('pairs the tasks both runs played and names the others', () => {
    expect(c.pairedTasks).toBe(4);
    expect(c.onlyInA).toEqual([3]);
    expect(c.onlyInB).toEqual([4]);
    expect(c.diffs.map((d) => d.metric)).toEqual(['mean_reward', 'pass@1', 'pass@2']);
  });

  it('mean reward: per-task means [.5, 0, 1, 1] vs [1, .5, 1, 0], differences sum to 0', () => {
    const m = metric('mean_reward');
    expect(m.a).toBeCloseTo(0.625, 10);
    expect(m.b).toBeCloseTo(0.625, 10);
    expect(m.test.n).toBe(4);
    expect(m.test.meanDiff).toBeCloseTo(0, 10);
    expect(m.test.sdDiff).toBeCloseTo(0.7071068, 6); // √((.25 + .25 + 0 + 1) / 3)
    expect(m.test.p).toBeCloseTo(1, 8);
    expect(m.test.ci95![1]).toBeCloseTo(1.1251647, 5); // 3.1824463 × 0.7071068 / 2
  });

  it('pass@2 leaves out task 5 (one repeat): [1, 0, 1] vs [1, 1, 1]', () => {
    const m = metric('pass@2');
    expect(m.test.n).toBe(3);
    expect(m.a).toBeCloseTo(2 / 3, 10);
    expect(m.b).toBeCloseTo(1, 10);
    expect(m.test.t).toBeCloseTo(1, 10);
    expect(m.test.p).toBeCloseTo(0.4226497, 6); // 1 − 1/√3
  });
});

describe('gym eval compare', () => {
  it('prints each metric for two run folders and the tasks that could not be paired', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'gymflow-compare-'));
    await writeSyntheticRun(path.join(root, 'a'), { tasks: 30, repeats: 4, seed: 1 });
    await writeSyntheticRun(path.join(root, 'b'), { tasks: 32, repeats: 4, seed: 2, accuracy: () => 0.9 });
    const said: string[] = [];
    await evalCompare([path.join(root, 'a'), path.join(root, 'b')], pino({ level: 'silent' }), (l) => said.push(l));
    const out = said.join('\n');
    expect(out).toContain('paired by task: 30 tasks in both runs; only in A: 0; only in B: 2 (30, 31)');
    for (const m of ['mean_reward', 'pass@1', 'pass@2', 'pass@3', 'pass@4']) expect(out).toMatch(new RegExp(`^${m} +\\d\\.\\d{4} +\\d\\.\\d{4} +[+-]\\d\\.\\d{4} +\\[`, 'm'));
  });

  it('refuses runs that share no task', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'gymflow-compare-'));
    await writeSyntheticRun(path.join(root, 'a'), { tasks: 2, repeats: 1, failed: () => 'down' });
    await writeSyntheticRun(path.join(root, 'b'), { tasks: 2, repeats: 1 });
    await expect(evalCompare([path.join(root, 'a'), path.join(root, 'b')], pino({ level: 'silent' }), () => {})).rejects.toThrow(/share no task/);
  });
});

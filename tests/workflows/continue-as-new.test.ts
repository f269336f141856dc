// Continue-as-new without draining, with scripted stub activities: a shard's rollouts in flight
// (even one whose step has not answered yet) are carried to the next execution at the step each is at,
// with the counts so far; the rollout grain carries its counts across executions of whole batches.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ShardCounts } from '../../workflows/definitions';
import { FINISHING, settle, shardId, startWorkflowTestEnv, stubRun, type WorkflowTestEnv } from './harness';

let t: WorkflowTestEnv;
beforeAll(async () => {
  t = await startWorkflowTestEnv();
});
afterAll(async () => {
  await t?.env.teardown();
});

describe('continue-as-new', () => {
  it('carries the rollouts in flight, answered or not, to the next execution at their steps', async () => {
    let calls = 0;
    // Rollouts of three turns; rollout 1 is slow: its first step answers only in the third round.
    const run = await stubRun(
      t,
      { total: 4, concurrency: 2, stepsPerExecution: 2 },
      {
        advanceRollouts: async (input) => {
          calls++;
          return input.rollouts.filter(([o]) => o !== 1 || calls >= 3).map(([o, step]) => settle(o, step, 3));
        },
      },
    );
    await run.drive(async () => {});

    const executions = [...new Set(run.rounds.map((r) => r.runId))];
    const roundsOf = (i: number) => run.rounds.filter((r) => r.runId === executions[i]).map((r) => r.input.rollouts);
    expect(roundsOf(0)).toEqual([
      [
        [0, 1],
        [1, 1],
      ],
      [
        [0, 2],
        [1, 1],
      ],
    ]);
    // After two rounds the shard continued as new: rollout 0 at its third turn, rollout 1 still at its first.
    expect(roundsOf(1)[0]).toEqual([
      [0, 3],
      [1, 1],
    ]);
    expect(executions.length).toBeGreaterThan(2);
    // Every rollout was played once, through all its steps, across the executions.
    const steps = (o: number) => run.rounds.flatMap((r) => r.input.rollouts.filter(([x]) => x === o).map(([, s]) => s));
    expect(steps(2)).toEqual([1, 2, 3, FINISHING]);
    expect(new Set(steps(1))).toEqual(new Set([1, 2, 3, FINISHING]));
    expect(await t.env.client.workflow.getHandle(shardId(run.handle, 0)).result()).toEqual({ done: 4, failed: 0, rewardSum: 4 } satisfies ShardCounts);
  });

  it('rollout grain: continues as new between batches and keeps the counts', async () => {
    const run = await stubRun(
      t,
      { total: 12, concurrency: 1, durability: 'rollout', stepsPerExecution: 1 },
      {
        runRolloutBatch: async (input) => ({ done: input.ordinals.length - 1, failed: 1, rewardSum: 0.5 }),
      },
    );
    await run.drive(async () => {});
    // One lane, so four rollouts per batch, one batch per execution.
    expect(run.batches.map((b) => b.input.ordinals)).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6, 7],
      [8, 9, 10, 11],
    ]);
    expect(new Set(run.batches.map((b) => b.runId)).size).toBe(3);
    expect(await t.env.client.workflow.getHandle(shardId(run.handle, 0)).result()).toEqual({ done: 9, failed: 3, rewardSum: 1.5 } satisfies ShardCounts);
  });
});

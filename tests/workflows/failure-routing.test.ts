// Failure routing, with scripted stub activities: rollouts a round reports as failed (in the sidecar)
// are counted as failed and the run goes on; a round or batch that itself fails non-retryably (e.g. the
// disk is full) fails its shard and the run, whose GymStatus becomes "failed"; a retryable one is retried.
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Settled } from '../../activities/rollout-rounds';
import type { ShardCounts } from '../../workflows/definitions';
import { FAILED, runStatus, settle, shardId, startWorkflowTestEnv, stubRun, type WorkflowTestEnv } from './harness';

let t: WorkflowTestEnv;
beforeAll(async () => {
  t = await startWorkflowTestEnv();
});
afterAll(async () => {
  await t?.env.teardown();
});

const diskFull = () => ApplicationFailure.create({ type: 'DISK_FULL', message: 'disk full at /runs/x/rollouts.jsonl', nonRetryable: true });

/** The chain of causes of a failed run's error, as messages. */
function causes(e: unknown): string[] {
  const out: string[] = [];
  for (let c = e as Error | undefined; c; c = (c as { cause?: Error }).cause) out.push(c.message);
  return out;
}

describe('rollouts that fail', () => {
  it('turn grain: are counted as failed and the run completes', async () => {
    // Odd ordinals fail at their first step; even ones finish after one turn with reward 1.
    const run = await stubRun(
      t,
      { total: 6, concurrency: 2 },
      {
        advanceRollouts: async (input) => input.rollouts.map(([o, step]): Settled => (o % 2 ? [o, step, FAILED] : settle(o, step, 1))),
      },
    );
    await run.drive(async () => {});
    expect(await t.env.client.workflow.getHandle(shardId(run.handle, 0)).result()).toEqual({ done: 3, failed: 3, rewardSum: 3 } satisfies ShardCounts);
    expect((await run.handle.describe()).status.name).toBe('COMPLETED');
    expect(await runStatus(run.handle)).toBe('completed');
  });

  it('rollout grain: are counted as failed and the run completes', async () => {
    const run = await stubRun(
      t,
      { total: 8, concurrency: 1, durability: 'rollout' },
      {
        runRolloutBatch: async (input) => ({ done: 1, failed: input.ordinals.length - 1, rewardSum: 1 }),
      },
    );
    await run.drive(async () => {});
    expect(await t.env.client.workflow.getHandle(shardId(run.handle, 0)).result()).toEqual({ done: 2, failed: 6, rewardSum: 2 } satisfies ShardCounts);
    expect(await runStatus(run.handle)).toBe('completed');
  });
});

describe('a round or batch that fails', () => {
  it('turn grain: a non-retryable failure is not retried and fails the shard and the run', async () => {
    const run = await stubRun(
      t,
      { total: 4, concurrency: 2, maximumAttempts: 5 },
      {
        advanceRollouts: async () => {
          throw diskFull();
        },
      },
    );
    let error: unknown;
    await run.drive(async (handle) => {
      error = await handle.result().catch((e) => e);
    });
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect(causes(error)).toContain('disk full at /runs/x/rollouts.jsonl');
    expect(run.rounds).toHaveLength(1);
    expect((await t.env.client.workflow.getHandle(shardId(run.handle, 0)).describe()).status.name).toBe('FAILED');
    expect((await run.handle.describe()).status.name).toBe('FAILED');
    expect(await runStatus(run.handle)).toBe('failed');
  });

  it('turn grain: a retryable failure is retried up to maximumAttempts, then fails the run', async () => {
    const run = await stubRun(
      t,
      { total: 2, concurrency: 2, maximumAttempts: 2 },
      {
        advanceRollouts: async () => {
          throw ApplicationFailure.create({ type: 'INTERNAL', message: 'the worker lost its run folder' });
        },
      },
    );
    await run.drive(async () => {});
    expect(run.rounds.map((r) => r.input.rollouts)).toEqual([
      [
        [0, 1],
        [1, 1],
      ],
      [
        [0, 1],
        [1, 1],
      ],
    ]);
    expect(await runStatus(run.handle)).toBe('failed');
  });

  it('rollout grain: a non-retryable batch failure is not retried and fails the shard and the run', async () => {
    const run = await stubRun(
      t,
      { total: 8, concurrency: 2, maximumAttempts: 5, durability: 'rollout' },
      {
        runRolloutBatch: async () => {
          throw diskFull();
        },
      },
    );
    let error: unknown;
    await run.drive(async (handle) => {
      error = await handle.result().catch((e) => e);
    });
    expect(causes(error)).toContain('disk full at /runs/x/rollouts.jsonl');
    expect(run.batches).toHaveLength(1);
    expect((await t.env.client.workflow.getHandle(shardId(run.handle, 0)).describe()).status.name).toBe('FAILED');
    expect(await runStatus(run.handle)).toBe('failed');
  });
});

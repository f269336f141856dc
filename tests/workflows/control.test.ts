// Live control of a run, with scripted stub activities: pause lets the rollouts in flight finish and
// starts no new ones until resume, and GymStatus says so; setConcurrency validates, answers the value
// applied and resizes every shard's window; a graceful stop lets the rollouts in flight finish and ends
// the run as cancelled with its metrics; cancel abandons them, still finalizing the run as cancelled.
import { CancelledFailure, Context } from '@temporalio/activity';
import { WorkflowFailedError, WorkflowUpdateFailedError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Settled } from '../../activities/rollout-rounds';
import { pauseSignal, resumeSignal, runStateQuery, setConcurrencyUpdate, shardProgressQuery, stopSignal, type ShardCounts } from '../../workflows/definitions';
import { waitFor } from '../helpers/worker-process';
import { FINISH, FINISHING, gate, playAll, runStatus, shardId, signalHandled, startWorkflowTestEnv, stubRun, type WorkflowTestEnv } from './harness';

let t: WorkflowTestEnv;
beforeAll(async () => {
  t = await startWorkflowTestEnv();
});
afterAll(async () => {
  await t?.env.teardown();
});

/** Waits for the gate, or throws as cancelled when the activity is cancelled first. */
async function heldUntil(opened: Promise<void>): Promise<void> {
  const { cancellationSignal } = Context.current();
  await Promise.race([opened, new Promise((_, reject) => cancellationSignal.addEventListener('abort', () => reject(new CancelledFailure('cancelled')), { once: true }))]);
}

describe('pause and resume', () => {
  it('lets the rollouts in flight finish, starts none while paused, and starts new ones on resume', async () => {
    const second = gate();
    let calls = 0;
    const run = await stubRun(
      t,
      { total: 6, concurrency: 2 },
      {
        advanceRollouts: async (input) => {
          if (++calls === 2) await second.opened;
          return playAll(1)(input);
        },
      },
    );
    const shard = () => t.env.client.workflow.getHandle(shardId(run.handle, 0));
    await run.drive(async (handle) => {
      // Round 2 verifies both rollouts of the window; the pause arrives while it runs.
      await waitFor(() => run.rounds.length === 2, 'the second round');
      await handle.signal(pauseSignal);
      await signalHandled(t, shardId(handle, 0), 'pause');
      second.open();
      // Answered only once no round is outstanding: both rollouts finished, no new one taken.
      await waitFor(async () => {
        const p = await shard().query(shardProgressQuery);
        return p.done === 2 && p.inFlight === 0;
      }, 'the paused shard to settle its rollouts in flight');
      expect(run.rounds).toHaveLength(2);
      expect((await handle.query(runStateQuery)).paused).toBe(true);
      expect(await runStatus(handle)).toBe('paused');
      await handle.signal(resumeSignal);
      await waitFor(async () => (await runStatus(handle)) !== 'paused', 'GymStatus to leave paused');
      expect(['running', 'completed']).toContain(await runStatus(handle));
    });

    expect(run.rounds.map((r) => r.input.rollouts)).toEqual([
      [
        [0, 1],
        [1, 1],
      ],
      [
        [0, FINISHING],
        [1, FINISHING],
      ],
      [
        [2, 1],
        [3, 1],
      ],
      [
        [2, FINISHING],
        [3, FINISHING],
      ],
      [
        [4, 1],
        [5, 1],
      ],
      [
        [4, FINISHING],
        [5, FINISHING],
      ],
    ]);
    expect(await shard().result()).toEqual({ done: 6, failed: 0, rewardSum: 6 } satisfies ShardCounts);
    expect(await runStatus(run.handle)).toBe('completed');
  });
});

describe('setConcurrency', () => {
  it('rejects values that are not positive integers, answers the new value, and every shard window follows it', async () => {
    const first = gate();
    const run = await stubRun(
      t,
      { total: 12, concurrency: 2, shards: 2 },
      {
        advanceRollouts: async (input) => {
          await first.opened;
          return playAll(1)(input);
        },
      },
    );
    const roundsOf = (shard: number) => run.rounds.filter((r) => r.workflowId === shardId(run.handle, shard)).map((r) => r.input.rollouts);
    await run.drive(async (handle) => {
      // Each shard's share of 2 is 1: one rollout in its first round.
      await waitFor(() => run.rounds.length === 2, 'a first round in each shard');
      expect([roundsOf(0), roundsOf(1)]).toEqual([[[[0, 1]]], [[[1, 1]]]]);

      for (const bad of [0, 2.5, -3, 10_001]) {
        const rejected = await handle.executeUpdate(setConcurrencyUpdate, { args: [bad] }).catch((e: Error) => e);
        expect(rejected).toBeInstanceOf(WorkflowUpdateFailedError);
        expect((rejected as WorkflowUpdateFailedError).cause?.message).toBe(`concurrency must be an integer from 1 to 10000, got ${bad}`);
      }
      expect((await handle.query(runStateQuery)).concurrency).toBe(2);
      expect(await handle.executeUpdate(setConcurrencyUpdate, { args: [6] })).toBe(6);
      expect((await handle.query(runStateQuery)).concurrency).toBe(6);
      await signalHandled(t, shardId(handle, 0), 'shardConcurrency');
      await signalHandled(t, shardId(handle, 1), 'shardConcurrency');
      first.open();
    });

    // Shard 0 plays ordinals 0, 2, 4, …; once its share is 3 the window holds 3 rollouts.
    expect(roundsOf(0)).toEqual([
      [[0, 1]],
      [
        [0, FINISHING],
        [2, 1],
        [4, 1],
      ],
      [
        [2, FINISHING],
        [4, FINISHING],
        [6, 1],
      ],
      [
        [6, FINISHING],
        [8, 1],
        [10, 1],
      ],
      [
        [8, FINISHING],
        [10, FINISHING],
      ],
    ]);
    expect(Math.max(...roundsOf(1).map((r) => r.length))).toBe(3);
    expect(roundsOf(1)[1]).toEqual([
      [1, FINISHING],
      [3, 1],
      [5, 1],
    ]);
  });
});

describe('graceful stop', () => {
  it.each(['turn', 'rollout'] as const)('%s grain: finishes the rollouts in flight, starts no more, and ends the run as cancelled with its metrics', async (durability) => {
    const held = gate();
    const run = await stubRun(
      t,
      { total: 12, concurrency: 2, durability },
      {
        advanceRollouts: async (input) => {
          await held.opened;
          return playAll(1)(input);
        },
        runRolloutBatch: async (input) => {
          await held.opened;
          return { done: input.ordinals.length, failed: 0, rewardSum: input.ordinals.length };
        },
      },
    );
    await run.drive(async (handle) => {
      await waitFor(() => run.rounds.length + run.batches.length === 1, 'the first round or batch');
      await handle.signal(stopSignal);
      await signalHandled(t, shardId(handle, 0), 'stop');
      held.open();
    });
    expect((await run.handle.describe()).status.name).toBe('COMPLETED');
    expect(await runStatus(run.handle)).toBe('cancelled');
    expect(run.finalized).toEqual([{ expected: 12, status: 'cancelled' }]);
    const counts = await t.env.client.workflow.getHandle(shardId(run.handle, 0)).result();
    if (durability === 'turn') {
      // The two rollouts in flight were verified and recorded; none after them was started.
      expect(run.rounds.map((r) => r.input.rollouts)).toEqual([
        [
          [0, 1],
          [1, 1],
        ],
        [
          [0, FINISHING],
          [1, FINISHING],
        ],
      ]);
      expect(counts).toEqual({ done: 2, failed: 0, rewardSum: 2 } satisfies ShardCounts);
    } else {
      expect(run.batches).toHaveLength(1);
      expect(counts.done).toBe(run.batches[0]!.input.ordinals.length);
    }
  });
});

describe('a retry of a selection', () => {
  it('plays only the selected rollouts, each with its attempt index, spread over the shards', async () => {
    const run = await stubRun(t, { total: 20, concurrency: 4, shards: 2, only: { ordinals: [3, 8, 9, 15], attempts: [1, 2, 1, 1] } }, { advanceRollouts: playAll(1) });
    await run.drive(async () => {});
    const started = run.rounds.flatMap((r) => r.input.rollouts.filter(([, step]) => step === 1).map(([o]) => [o, new Map(r.input.attempts).get(o)]));
    expect(started.sort((a, b) => a[0]! - b[0]!)).toEqual([
      [3, 1],
      [8, 2],
      [9, 1],
      [15, 1],
    ]);
    expect(run.finalized).toEqual([{ expected: 20, status: 'completed' }]);
    expect(await runStatus(run.handle)).toBe('completed');
  });
});

describe('cancel', () => {
  it('stops a turn-grain run with a round in flight as cancelled', async () => {
    const never = gate();
    const run = await stubRun(
      t,
      { total: 4, concurrency: 2 },
      {
        advanceRollouts: async (input): Promise<Settled[]> => {
          await heldUntil(never.opened);
          return input.rollouts.map(([o, s]) => [o, s, FINISH]);
        },
      },
    );
    let error: unknown;
    await run.drive(async (handle) => {
      await waitFor(() => run.rounds.length === 1, 'the first round');
      await handle.cancel();
      error = await handle.result().catch((e) => e);
    });
    never.open();
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect((error as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    expect((await run.handle.describe()).status.name).toBe('CANCELLED');
    expect((await t.env.client.workflow.getHandle(shardId(run.handle, 0)).describe()).status.name).toBe('CANCELLED');
    expect(await runStatus(run.handle)).toBe('cancelled');
    // The abandoned rollouts are counted as missing in metrics written as the run is cancelled.
    expect(run.finalized).toEqual([{ expected: 4, status: 'cancelled' }]);
  });

  it('stops a rollout-grain run with a batch in flight as cancelled', async () => {
    const run = await stubRun(
      t,
      { total: 8, concurrency: 2, durability: 'rollout' },
      {
        runRolloutBatch: async () => {
          const ctx = Context.current();
          // A regular activity hears of its cancellation through a heartbeat.
          const beat = setInterval(() => ctx.heartbeat(), 200);
          try {
            await heldUntil(new Promise(() => {}));
          } finally {
            clearInterval(beat);
          }
          return { done: 0, failed: 0, rewardSum: 0 };
        },
      },
    );
    let error: unknown;
    await run.drive(async (handle) => {
      await waitFor(() => run.batches.length === 1, 'the first batch');
      await handle.cancel();
      error = await handle.result().catch((e) => e);
    });
    expect((error as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    expect((await run.handle.describe()).status.name).toBe('CANCELLED');
    expect(await runStatus(run.handle)).toBe('cancelled');
  });
});

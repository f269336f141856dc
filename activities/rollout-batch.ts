// The "rollout" grain: many rollouts inside one heartbeating activity, each rollout's loop run in
// memory with the same steps as the "turn" grain. A rollout is checkpointed when it is recorded (or
// routed to the sidecar): the heartbeat carries the finished ones and the results files are checked,
// so a retried batch skips them and only restarts the rollouts that were in flight.
import { setMaxListeners } from 'node:events';
import { CancelledFailure, Context } from '@temporalio/activity';
import type { RolloutStage } from '../src/errors';
import type { Slots } from '../src/util/slots';
import { MemoryJournal } from '../src/store/journal';
import { FINISHING, playRollout } from '../workflows/agent-loop';
import type { RetrySettings } from '../workflows/definitions';
import type { HarnessRollout } from './harness-rollout';
import type { RolloutKey, RolloutSpec, RolloutSteps } from './rollout-steps';
import { retrying } from './step-retry';

export interface BatchInput {
  spec: RolloutSpec;
  numRepeats: number;
  /** Rollouts (task × repeat ordinals) of this batch. */
  ordinals: number[];
  /** Rollouts of this batch in flight at once. */
  concurrency: number;
  retry: RetrySettings;
  /** A retry's attempt index of each rollout (absent: the run's own attempt). */
  attempts?: [ordinal: number, attempt: number][];
}

export interface BatchCounts {
  done: number;
  failed: number;
  rewardSum: number;
}

interface BatchProgress {
  finished: number[];
  counts: BatchCounts;
}

export function keyOf(ordinal: number, numRepeats: number, attemptIndex?: number): RolloutKey {
  const key = { taskIndex: Math.floor(ordinal / numRepeats), rolloutIndex: ordinal % numRepeats };
  return attemptIndex ? { ...key, attemptIndex } : key;
}

/** `slots`: the worker's cap on rollouts played at once over all its batches (`--max-rollouts`). */
export function createBatchActivity(steps: RolloutSteps, playHarness: HarnessRollout, slots?: Slots) {
  /** One rollout with its own retries, played its row's way; resolves once it is recorded or in the sidecar. */
  async function settle(input: BatchInput, key: RolloutKey, signal: AbortSignal): Promise<{ reward?: number }> {
    const attempt = Context.current().info.attempt;
    // Kept across attempts: a retry continues at the last finished step, as in the "turn" grain.
    const journal = new MemoryJournal();
    let stage: RolloutStage = 'seed';
    const played = await retrying(
      input.retry,
      signal,
      () => stage,
      async () => {
        if (await steps.harnessOf(input.spec, key)) {
          // A harness plays the whole rollout in one go: a retry starts it again in a fresh sandbox.
          stage = 'tool';
          return playHarness(input.spec, key, attempt, signal);
        }
        return playRollout(
          {
            takeTurn: (step) => steps.takeTurn(input.spec, key, step, journal),
            finish: () => steps.finishRollout(input.spec, key, journal),
          },
          1,
          (step) => (stage = step === FINISHING ? 'verify' : 'model'),
        );
      },
    );
    if (played.ok) return { reward: played.value.reward };
    await steps.recordFailure(input.spec, key, played.failure);
    return {};
  }

  return {
    async runRolloutBatch(input: BatchInput): Promise<BatchCounts> {
      const ctx = Context.current();
      // Every rollout in flight in the batch waits on its cancellation (a model call, a timer): no leak, so no warning.
      setMaxListeners(0, ctx.cancellationSignal);
      const before = ctx.info.heartbeatDetails as BatchProgress | undefined;
      const finished = new Set(before?.finished ?? []);
      const counts: BatchCounts = before?.counts ?? { done: 0, failed: 0, rewardSum: 0 };
      const queue = input.ordinals.filter((o) => !finished.has(o));
      const attempts = new Map(input.attempts);
      const beat = setInterval(() => ctx.heartbeat({ finished: [...finished], counts } satisfies BatchProgress), 1000);
      try {
        const lane = async () => {
          for (let ordinal = queue.shift(); ordinal !== undefined; ordinal = queue.shift()) {
            if (ctx.cancellationSignal.aborted) return;
            const release = slots && (await slots.take(ctx.cancellationSignal).catch(() => undefined));
            // Cancelled while waiting for a slot: the rollout was not started, so a retry of the batch plays it.
            if (slots && !release) return;
            const { reward } = await settle(input, keyOf(ordinal, input.numRepeats, attempts.get(ordinal)), ctx.cancellationSignal).finally(release);
            if (reward === undefined) counts.failed++;
            else {
              counts.done++;
              counts.rewardSum += reward;
            }
            finished.add(ordinal);
          }
        };
        await Promise.all(Array.from({ length: Math.max(1, Math.min(input.concurrency, queue.length)) }, lane));
        if (ctx.cancellationSignal.aborted) throw new CancelledFailure('the batch was cancelled');
        return counts;
      } catch (e) {
        if (ctx.cancellationSignal.aborted) throw new CancelledFailure('the batch was cancelled');
        throw e;
      } finally {
        clearInterval(beat);
      }
    },
  };
}

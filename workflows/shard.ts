// A shard of a run: a sliding window of rollouts over its share of the run's task × repeat ordinals.
// "turn" grain: one local activity at a time advances every rollout in the window by a step and
// answers as soon as some have finished theirs (the rest keep running in the worker), so throughput is
// bounded neither by workflow starts nor by activity round trips, and the history is the same whatever
// order steps finish in. "rollout" grain: the window is filled with batch activities. Either way the
// shard continues as new before its history grows large, carrying its rollouts in flight and the step
// each is at, instead of waiting for them to end.
import { allHandlersFinished, condition, continueAsNew, isCancellation, patched, proxyActivities, proxyLocalActivities, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { Settled } from '../activities/rollout-rounds';
import { NON_RETRYABLE_TYPES } from '../src/errors';
import { FINISHING } from './agent-loop';
import { DEFAULT_STEPS_PER_EXECUTION, pauseSignal, resumeSignal, shardConcurrencySignal, stopSignal, shardProgressQuery, type ShardCounts, type ShardInput } from './definitions';

/** Rollouts one batch activity plays, per lane it runs in parallel. */
const BATCH_ROLLOUTS_PER_LANE = 4;
const BATCH_MAX_LANES = 128;
/**
 * Rounds between two yields of the workflow task. Back-to-back local activities keep one workflow task
 * open, and signals, updates, queries and cancellation only get in between tasks; scheduling a no-op
 * activity ends the task. With rounds answering within 250 ms, control reaches a shard within about two seconds.
 */
const ROUNDS_PER_YIELD = 8;
/**
 * The yield was a 1 ms timer, which the embedded dev server fires ~0.85 s late: at low concurrency the
 * shard spent most of its time waiting for it (4 rollouts/s at concurrency 1). Histories from before replay with it.
 */
const PATCH_YIELD_BY_ACTIVITY = 'shard-yield-by-activity';
/** Settled steps one execution records before it continues as new (each is ~20 bytes of history). */
const SETTLED_PER_EXECUTION = 100_000;

// Mirrors StepCode in activities/rollout-rounds.ts (a const enum cannot cross into workflow code).
const NEXT = 0;
const FINISH = 1;
const RECORDED = 2;

export async function shardWorkflow(input: ShardInput): Promise<ShardCounts> {
  const counts: ShardCounts = { ...(input.counts ?? { done: 0, failed: 0, rewardSum: 0 }) };
  let concurrency = input.concurrency;
  let paused = input.paused ?? false;
  let stopping = input.stopping ?? false;
  let cursor = input.cursor ?? 0;
  const resume = [...(input.resume ?? [])];
  /** Rollouts (ordinals) in flight, with the step each is at. */
  const inFlight = new Map<number, number>();
  let activitiesHere = 0;
  let settledHere = 0;

  setHandler(shardProgressQuery, () => ({ ...counts, inFlight: inFlight.size }));
  setHandler(shardConcurrencySignal, (n) => void (concurrency = Math.max(1, n)));
  setHandler(pauseSignal, () => void (paused = true));
  setHandler(resumeSignal, () => void (paused = false));
  setHandler(stopSignal, () => void (stopping = true));

  // A retry plays a selection, each rollout as its attempt index; a run plays ordinals shard, shard + shards, …
  const only = input.only;
  const attemptOf = new Map(only?.ordinals.map((o, i) => [o, only.attempts[i]!]));
  const attempts = (ordinals: Iterable<number>): [number, number][] | undefined => (only ? [...ordinals].map((o) => [o, attemptOf.get(o) ?? 0]) : undefined);

  const retry = {
    maximumAttempts: input.retry.maximumAttempts,
    initialInterval: input.retry.initialIntervalMs,
    maximumInterval: input.retry.maximumIntervalMs,
    backoffCoefficient: 2,
    nonRetryableErrorTypes: [...NON_RETRYABLE_TYPES],
  };
  // Step failures are retried and routed to the sidecar inside the activity; a failed round means the
  // worker or the run folder failed (a full disk is not retried): the shard, and the run, stop with it.
  const local = proxyLocalActivities<Activities>({ startToCloseTimeout: '30 minutes', retry });
  const batches = proxyActivities<Activities>({ startToCloseTimeout: '24 hours', heartbeatTimeout: input.retry.heartbeatTimeoutMs, retry, taskQueue: input.rolloutQueue });
  // The yield's no-op activity, on the shard's own queue (every worker has it). A worker whose activity slots
  // are all held (by another run's batches) cannot start it soon: then the timer yields instead.
  const control = proxyActivities<Activities>({ scheduleToStartTimeout: '2 seconds', startToCloseTimeout: '10 seconds', retry: { maximumAttempts: 1 } });
  const yieldTask = async () => {
    try {
      await control.yieldTask();
    } catch (err) {
      if (isCancellation(err)) throw err;
      await sleep(1);
    }
  };
  const budget = input.stepsPerExecution ?? DEFAULT_STEPS_PER_EXECUTION;

  const hasMore = () => resume.length > 0 || (only ? cursor < only.ordinals.length : input.shard + cursor * input.shards < input.total);
  const take = (): [number, number] => resume.shift() ?? [only ? only.ordinals[cursor++]! : input.shard + cursor++ * input.shards, 1];
  /** Whether to put another rollout in flight: a stopping shard still takes those a previous execution had in flight. */
  const mayTake = () => (stopping ? resume.length > 0 : !paused && hasMore());
  const mustRoll = () => activitiesHere >= budget || settledHere >= SETTLED_PER_EXECUTION || workflowInfo().continueAsNewSuggested;

  function apply([ordinal, step, code, reward]: Settled): void {
    settledHere++;
    if (code === NEXT) inFlight.set(ordinal, step + 1);
    else if (code === FINISH) inFlight.set(ordinal, FINISHING);
    else {
      inFlight.delete(ordinal);
      if (code === RECORDED) {
        counts.done++;
        counts.rewardSum += reward ?? 0;
      } else counts.failed++;
    }
  }

  async function runTurns(): Promise<boolean> {
    for (;;) {
      while (inFlight.size < concurrency && mayTake()) {
        const [ordinal, step] = take();
        inFlight.set(ordinal, step);
      }
      if (inFlight.size === 0) {
        if (!hasMore() || stopping) return false;
        await condition(() => !paused || stopping);
        continue;
      }
      if (mustRoll()) return true;
      if (activitiesHere > 0 && activitiesHere % ROUNDS_PER_YIELD === 0) {
        if (patched(PATCH_YIELD_BY_ACTIVITY)) await yieldTask();
        else await sleep(1);
      }
      activitiesHere++;
      const settled = await local.advanceRollouts({ spec: input.spec, numRepeats: input.numRepeats, retry: input.retry, rollouts: [...inFlight.entries()], attempts: attempts(inFlight.keys()) });
      settled.forEach(apply);
    }
  }

  async function runBatches(): Promise<boolean> {
    let active = 0;
    let fatal: unknown;
    const lanes = () => Math.min(BATCH_MAX_LANES, concurrency);
    const play = async (ordinals: number[], width: number) => {
      active++;
      activitiesHere++;
      try {
        const got = await batches.runRolloutBatch({ spec: input.spec, numRepeats: input.numRepeats, ordinals, concurrency: width, retry: input.retry, attempts: attempts(ordinals) });
        counts.done += got.done;
        counts.failed += got.failed;
        counts.rewardSum += got.rewardSum;
        for (const o of ordinals) inFlight.delete(o);
      } catch (err) {
        if (!isCancellation(err)) fatal ??= err;
      } finally {
        active--;
      }
    };
    let roll = false;
    for (;;) {
      await condition(() => fatal !== undefined || mustRoll() || !hasMore() || stopping || (!paused && active * lanes() < concurrency));
      if (fatal !== undefined) break;
      if (!hasMore() || stopping) break;
      if (mustRoll()) {
        roll = true;
        break;
      }
      const width = lanes();
      const ordinals: number[] = [];
      while (ordinals.length < width * BATCH_ROLLOUTS_PER_LANE && hasMore()) ordinals.push(take()[0]);
      for (const o of ordinals) inFlight.set(o, 1);
      void play(ordinals, width);
    }
    // Batches are whole units: the ones running finish before the shard ends or continues as new.
    await condition(() => active === 0);
    if (fatal !== undefined) throw fatal;
    return roll;
  }

  const roll = input.durability === 'rollout' ? await runBatches() : await runTurns();
  if (roll) {
    await condition(allHandlersFinished);
    return continueAsNew<typeof shardWorkflow>({ ...input, concurrency, paused, ...(stopping ? { stopping } : {}), cursor, counts, resume: [...inFlight.entries(), ...resume] });
  }
  return counts;
}

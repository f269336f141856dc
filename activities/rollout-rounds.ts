// The "turn" grain's one local activity: advance every rollout in a shard's window by its next step
// (a turn, or verify-and-record) and answer as soon as some have finished theirs. Steps that are still
// running keep running in this process and are joined by the next round, so a slow rollout never holds
// the others back, and the shard has exactly one activity outstanding at a time: its history stays
// deterministic whatever order the steps finish in.
import { setMaxListeners } from 'node:events';
import { Context } from '@temporalio/activity';
import type { RolloutStage } from '../src/errors';
import { runFiles } from '../src/store/run-files';
import { rolloutId } from '../src/schemas/task';
import { FINISHING } from '../workflows/agent-loop';
import type { RetrySettings } from '../workflows/definitions';
import { keyOf } from './rollout-batch';
import type { RolloutSpec, RolloutSteps } from './rollout-steps';
import { retrying } from './step-retry';

export interface RoundInput {
  spec: RolloutSpec;
  numRepeats: number;
  retry: RetrySettings;
  /** Each rollout in flight, with the step it is at (FINISHING = verify and record). */
  rollouts: [ordinal: number, step: number][];
  /** A retry's attempt index of each rollout in flight (absent: the run's own attempt). */
  attempts?: [ordinal: number, attempt: number][];
  /** Once a step has finished, how long to wait for others before answering. */
  gatherMs?: number;
  /** Answer after this long even if no step has finished (possibly with nothing), so the shard can take signals. */
  maxWaitMs?: number;
}

/** What became of one rollout's step. */
export const enum StepCode {
  /** Another turn follows. */
  Next = 0,
  /** The turns are over: verify and record next. */
  Finish = 1,
  Recorded = 2,
  Failed = 3,
}

/** [ordinal, step, code, reward (Recorded only)] — compact, because it is written to history. */
export type Settled = [number, number, StepCode, number?];

const DEFAULT_GATHER_MS = 5;
const DEFAULT_MAX_WAIT_MS = 250;

/** Steps running in this process, by run, rollout and step; a later round joins them. */
const running = new Map<string, Promise<Settled>>();

export function createRoundActivity(steps: RolloutSteps) {
  async function advance(input: RoundInput, ordinal: number, step: number, attempt: number | undefined): Promise<Settled> {
    const key = keyOf(ordinal, input.numRepeats, attempt);
    const journal = runFiles(input.spec).journal(rolloutId(key));
    const stage = (): RolloutStage => (step === FINISHING ? 'verify' : 'model');
    const never = new AbortController().signal;
    if (step === FINISHING) {
      const done = await retrying(input.retry, never, stage, () => steps.finishRollout(input.spec, key, journal));
      if (done.ok) return [ordinal, step, StepCode.Recorded, done.value.reward];
      await steps.recordFailure(input.spec, key, done.failure);
      return [ordinal, step, StepCode.Failed];
    }
    const turn = await retrying(input.retry, never, stage, () => steps.takeTurn(input.spec, key, step, journal));
    if (!turn.ok) {
      await steps.recordFailure(input.spec, key, turn.failure);
      return [ordinal, step, StepCode.Failed];
    }
    const { outcome, done } = turn.value;
    if (outcome) return [ordinal, step, StepCode.Recorded, outcome.reward];
    return [ordinal, step, done ? StepCode.Finish : StepCode.Next];
  }

  return {
    async advanceRollouts(input: RoundInput): Promise<Settled[]> {
      const signal = Context.current().cancellationSignal;
      // Every rollout advanced in the round waits on the activity's cancellation: no leak, so no warning.
      setMaxListeners(0, signal);
      const attempts = new Map(input.attempts);
      const keys = input.rollouts.map(([ordinal, step]) => {
        const k = `${input.spec.store ?? input.spec.runDir}|${input.spec.epoch}|${ordinal}|${step}`;
        if (!running.has(k)) {
          const p = advance(input, ordinal, step, attempts.get(ordinal));
          // Kept until a round hands its result over; a failure is handed over like a result.
          p.catch(() => {});
          running.set(k, p);
        }
        return k;
      });
      const settled = new Map<string, Settled>();
      let firstError: unknown;
      const watch = keys.map((k) =>
        running.get(k)!.then(
          (r) => void settled.set(k, r),
          (e) => {
            firstError ??= e;
            // A retried round starts this step afresh instead of joining the failed attempt.
            running.delete(k);
          },
        ),
      );
      const anySettled = Promise.race(watch);
      const aborted = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      const ceiling = new Promise((r) => setTimeout(r, input.maxWaitMs ?? DEFAULT_MAX_WAIT_MS));
      await Promise.race([anySettled, aborted, ceiling]);
      if (!signal.aborted && firstError === undefined && settled.size > 0) {
        // Gather the steps finishing at about the same time into this answer.
        await Promise.race([Promise.all(watch), new Promise((r) => setTimeout(r, input.gatherMs ?? DEFAULT_GATHER_MS)), aborted]);
      }
      // Handed over now, or (if this round fails) recomputed from the journal by the retry.
      for (const k of settled.keys()) running.delete(k);
      if (firstError !== undefined) throw firstError;
      return [...settled.values()];
    },
  };
}

// The loop of one rollout, written once for both durability grains: the shard workflow drives it with
// each turn a local activity ("turn"), the batch activity with each turn a plain call ("rollout").
// Deterministic and free of I/O, so it is safe in workflow code.
import type { RolloutOutcome, TurnResult } from '../activities/rollout-steps';

export interface RolloutDriver {
  takeTurn(step: number): Promise<TurnResult>;
  finish(): Promise<{ reward: number }>;
}

/** The position of a rollout whose turns are over: next is verify and record. */
export const FINISHING = 0;

/**
 * Turns from `fromStep` (1 for a new rollout) until the agent stops, then verify and record; returns how
 * the rollout ended. `onStep` hears each position before its step starts, so a caller can resume there.
 */
export async function playRollout(driver: RolloutDriver, fromStep = 1, onStep?: (step: number) => void): Promise<RolloutOutcome> {
  for (let step = fromStep; step !== FINISHING; step++) {
    onStep?.(step);
    const turn = await driver.takeTurn(step);
    if (turn.outcome) return turn.outcome;
    if (turn.done) break;
  }
  onStep?.(FINISHING);
  const { reward } = await driver.finish();
  return { status: 'recorded', reward };
}

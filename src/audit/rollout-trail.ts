// Each rollout's trail through a run's workflow histories: which shard and which of its executions
// drove each step (turn grain) or batch (rollout grain), retried rounds, and how the history saw it end.
import { rolloutId } from '../schemas/task';
import type { Execution } from './history-events';

/** A step position as the workflows number it: 1, 2, … are agent turns, 0 is verify and record. */
const VERIFY_STEP = 0;
const STEP_OUTCOMES = ['next turn', 'verify next', 'recorded', 'sidecar'] as const;

export interface TrailStep {
  /** The agent turn (1, 2, …) or "verify". */
  step: number | 'verify';
  outcome: (typeof STEP_OUTCOMES)[number];
  /** Index of the shard execution (0 = first, each continue-as-new adds one) and its run id. */
  execution: number;
  runId: string;
  /** The history event (a local activity marker) that recorded the round. */
  eventId: number;
  /** The round's attempt; above 1 when the round was retried (its steps resumed from their journals). */
  attempt: number;
  reward?: number;
}

export interface TrailBatch {
  execution: number;
  runId: string;
  eventId: number;
  attempts: number;
  outcome: string;
  failure?: string;
}

export interface RolloutTrail {
  rollout_id: string;
  task_index: number;
  rollout_index: number;
  shard: string;
  steps: TrailStep[];
  batches: TrailBatch[];
  /** Rounds or batch attempts beyond the first that carried this rollout. */
  retries: number;
  /**
   * How the histories saw it end: recorded (with its reward), sidecar, settled (its batch completed; a
   * batch reports only counts, the run store says which), or not finished in them.
   */
  outcome: 'recorded' | 'sidecar' | 'settled' | 'unfinished';
  reward?: number;
}

export interface RunTrail {
  durability: string;
  numRepeats: number;
  rollouts: RolloutTrail[];
  /** Rounds and batches that failed outright (the shard, and the run, stopped with them). */
  failures: { workflowId: string; runId: string; eventId: number; message: string }[];
}

/** Trails of every rollout the histories show, ordered by task then repeat. */
export function runTrail(executions: readonly Execution[]): RunTrail {
  const run = executions.find((e) => e.type === 'evalRunWorkflow');
  const shards = executions.filter((e) => e.type === 'shardWorkflow');
  const numRepeats = Number(run?.input.numRepeats ?? shards[0]?.input.numRepeats ?? 1);
  const durability = String(run?.input.durability ?? shards[0]?.input.durability ?? 'turn');
  const trails = new Map<number, RolloutTrail>();
  const failures: RunTrail['failures'] = [];
  const trailOf = (ordinal: number, shard: string): RolloutTrail => {
    let t = trails.get(ordinal);
    if (!t) {
      const key = { taskIndex: Math.floor(ordinal / numRepeats), rolloutIndex: ordinal % numRepeats };
      t = { rollout_id: rolloutId(key), task_index: key.taskIndex, rollout_index: key.rolloutIndex, shard, steps: [], batches: [], retries: 0, outcome: 'unfinished' };
      trails.set(ordinal, t);
    }
    return t;
  };
  // Executions of one shard in start order: the index says which link of its continue-as-new chain.
  const chains = new Map<string, Execution[]>();
  for (const e of shards) chains.set(e.workflowId, [...(chains.get(e.workflowId) ?? []), e]);
  for (const [shard, chain] of chains) {
    chain.sort((a, b) => (a.started ?? '').localeCompare(b.started ?? ''));
    chain.forEach((exec, index) => {
      for (const round of exec.rounds) {
        if (round.failure) failures.push({ workflowId: shard, runId: exec.runId, eventId: round.eventId, message: round.failure });
        for (const [ordinal, step, code, reward] of round.settled) {
          const t = trailOf(ordinal, shard);
          t.steps.push({
            step: step === VERIFY_STEP ? 'verify' : step,
            outcome: STEP_OUTCOMES[code] ?? 'next turn',
            execution: index,
            runId: exec.runId,
            eventId: round.eventId,
            attempt: round.attempt,
            reward,
          });
          if (round.attempt > 1) t.retries++;
          if (code === 2) Object.assign(t, { outcome: 'recorded', reward });
          if (code === 3) t.outcome = 'sidecar';
        }
      }
      for (const batch of exec.batches) {
        if (batch.outcome === 'failed' || batch.outcome === 'timed_out') failures.push({ workflowId: shard, runId: exec.runId, eventId: batch.eventId, message: batch.failure ?? batch.outcome });
        for (const ordinal of batch.ordinals) {
          const t = trailOf(ordinal, shard);
          t.batches.push({ execution: index, runId: exec.runId, eventId: batch.eventId, attempts: batch.attempts, outcome: batch.outcome, failure: batch.failure });
          t.retries += batch.attempts - 1;
          if (batch.outcome === 'completed') t.outcome = 'settled';
        }
      }
    });
  }
  const rollouts = [...trails.values()].sort((a, b) => a.task_index - b.task_index || a.rollout_index - b.rollout_index);
  return { durability, numRepeats, rollouts, failures };
}

/** One line per rollout, for people: where it ran, its steps, retries, and how it ended. */
export function formatTrail(t: RolloutTrail): string {
  const end = { recorded: `recorded, reward ${t.reward}`, sidecar: 'sent to the sidecar', settled: 'settled in its batch', unfinished: 'not finished in these histories' }[t.outcome];
  const where = [...new Set([...t.steps, ...t.batches].map((s) => s.execution))].map((i) => `#${i}`).join(',');
  const steps = t.steps.length
    ? `steps ${t.steps.map((s) => `${s.step}${s.attempt > 1 ? `(round attempt ${s.attempt})` : ''}`).join(' → ')}`
    : `${t.batches.length} batch${t.batches.length === 1 ? '' : 'es'} (${t.batches.map((b) => `${b.outcome} after ${b.attempts} attempt${b.attempts === 1 ? '' : 's'}`).join(', ')})`;
  return `${t.rollout_id.padEnd(10)} ${t.shard.split('/').at(-1)} execution ${where}: ${steps}; ${t.retries} retr${t.retries === 1 ? 'y' : 'ies'}; ${end}`;
}

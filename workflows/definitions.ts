// What the client, the worker and the workflows share: inputs, results, queries, signals and updates.
// Imported by workflow code, so it holds no Node built-ins and only type imports from src/.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { RolloutSpec } from '../activities/rollout-steps';
import type { HistoryPolicy } from '../src/agents/history-policy';
import type { EnvRef } from '../src/environments/ref';
import type { AgentKind } from '../src/environments/types';
import type { ModelSpec } from '../src/gateway/spec';
import type { RunMetrics } from '../src/metrics/aggregate';
import type { FailureClass } from '../src/schemas/records';

/** A failure class's own tries and backoff, where they differ from the run's. */
export type ClassRetry = Partial<Pick<RetrySettings, 'maximumAttempts' | 'initialIntervalMs' | 'maximumIntervalMs'>>;

export interface RetrySettings {
  /** Attempts per step (and per rollout in the "rollout" grain) before the rollout goes to the sidecar. */
  maximumAttempts: number;
  initialIntervalMs: number;
  maximumIntervalMs: number;
  /** A worker that stops heartbeating a long activity for this long is presumed dead and the activity retried. */
  heartbeatTimeoutMs: number;
  /** Per failure class (of the step's error): its own attempts and intervals, still bounded. */
  byClass?: Partial<Record<FailureClass, ClassRetry>>;
}

/**
 * Some of a run's rollouts (task × repeat ordinals) and the attempt index each is played as: what
 * `gym eval retry-failures` plays again.
 */
export interface RolloutSelection {
  ordinals: number[];
  attempts: number[];
}

export const DEFAULT_RETRY: RetrySettings = { maximumAttempts: 3, initialIntervalMs: 1000, maximumIntervalMs: 30_000, heartbeatTimeoutMs: 30_000 };

/**
 * `turn`: each agent turn is a local activity of a shard workflow, journaled call by call (a crash
 * resumes at the last finished model or tool call). `rollout`: batches of rollouts run inside
 * heartbeating activities (a crash resumes at the last finished rollout).
 */
export type Durability = 'turn' | 'rollout';

export interface RunInput {
  runId: string;
  runDir: string;
  /**
   * The run's object store (`s3://bucket/prefix/<run id>`, from `--store`): workers do the run's I/O there, and
   * the finalizer also writes the run's files into `runDir` on its machine. Only the URL: endpoint and
   * credentials are each worker's own (AWS_* environment variables).
   */
  store?: string;
  env: EnvRef;
  inputFile: string;
  model: ModelSpec;
  judgeModel?: ModelSpec;
  numRepeats: number;
  limit?: number;
  concurrency: number;
  maxSteps?: number;
  /** What of its history the model is shown on each call; absent: all of it. */
  historyPolicy?: HistoryPolicy;
  retry: RetrySettings;
  durability: Durability;
  /** Shard workflows the rollouts are spread over (each on whichever worker takes it). */
  shards: number;
  /** Steps (local activities) or batches one shard execution runs before it continues as new. */
  stepsPerExecution?: number;
  /** Play only these rollouts (a retry of sidecar rollouts); the metrics still cover the whole run. */
  only?: RolloutSelection;
  /**
   * The task queue of the rollout grain's batches (whole rollouts: harnesses, sandboxes), when workers of
   * their own (`gym worker start --role rollouts`) play them; absent: the run's own queue.
   */
  rolloutQueue?: string;
}

export interface ShardCounts {
  done: number;
  failed: number;
  rewardSum: number;
}

export interface ShardInput {
  spec: RolloutSpec;
  durability: Durability;
  retry: RetrySettings;
  numRepeats: number;
  /** Rollouts in the whole run; this shard plays ordinals shard, shard + shards, shard + 2·shards, … */
  total: number;
  shard: number;
  shards: number;
  concurrency: number;
  paused?: boolean;
  /** Start no more rollouts; end once those in flight have settled (a graceful cancel). */
  stopping?: boolean;
  stepsPerExecution?: number;
  /** This shard's part of a run's selection: it plays these instead of its ordinals of `total`. */
  only?: RolloutSelection;
  /** Where the shard's batch activities go (the run's `rolloutQueue`); absent: the shard's own queue. */
  rolloutQueue?: string;
  /** Carried across continue-as-new: the next position in this shard's sequence, the counts so far, and
   *  the rollouts that were in flight with the step each continues at. */
  cursor?: number;
  counts?: ShardCounts;
  resume?: [ordinal: number, step: number][];
}

export type RunPhase = 'collating' | 'running' | 'finalizing' | 'completed';

export interface ShardProgress extends ShardCounts {
  inFlight: number;
}

/** What the run workflow itself answers; the client adds the live counts of the shards still running. */
export interface RunState {
  phase: RunPhase;
  total: number | null;
  concurrency: number;
  paused: boolean;
  /** A graceful cancel is under way: the rollouts in flight finish, no new ones start. */
  stopping?: boolean;
  /** The shards started so far. */
  shardIds: string[];
  /** Final counts of the shards that have finished. */
  finished: Record<string, ShardCounts>;
}

export interface RunProgress {
  phase: RunPhase;
  total: number | null;
  done: number;
  failed: number;
  inFlight: number;
  concurrency: number;
  paused: boolean;
  stopping?: boolean;
  meanReward: number | null;
}

export interface RunResult {
  runDir: string;
  metrics: RunMetrics;
}

export const runStateQuery = defineQuery<RunState>('runState');
export const shardProgressQuery = defineQuery<ShardProgress>('shardProgress');
export const pauseSignal = defineSignal('pause');
export const resumeSignal = defineSignal('resume');
/** Graceful cancel: start no more rollouts, let those in flight finish, then end the run as cancelled. */
export const stopSignal = defineSignal('stop');
/** To a shard: its share of the run's concurrency. */
export const shardConcurrencySignal = defineSignal<[number]>('shardConcurrency');
/** To the run: the new concurrency, answered with the value applied. */
export const setConcurrencyUpdate = defineUpdate<number, [number]>('setConcurrency');

/** Rollouts in flight per run at most: each is a coroutine or a batch lane, held in worker memory. */
export const MAX_CONCURRENCY = 10_000;
export const MAX_SHARDS = 64;

/** A shard execution continues as new after this many local activities, far below 10k history events. */
export const DEFAULT_STEPS_PER_EXECUTION = 3000;

export type { AgentKind };

export function runWorkflowId(runId: string): string {
  return `gymflow-run-${runId}`;
}

export function shardWorkflowId(runWfId: string, shard: number): string {
  return `${runWfId}/shard-${shard}`;
}

/** Shard `s`'s share of a concurrency `c` over `n` shards; every shard keeps at least one slot. */
export function shardShare(c: number, n: number, s: number): number {
  return Math.max(1, Math.floor(c / n) + (s < c % n ? 1 : 0));
}

/** The default shard count: one per 128 rollouts in flight, so several workers can share a run. */
export function defaultShards(concurrency: number): number {
  return Math.min(MAX_SHARDS, Math.max(1, Math.ceil(concurrency / 128)));
}

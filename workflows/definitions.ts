// What the client, the worker and the workflows share: inputs, outcomes, queries and signals.
// Imported by workflow code, so it holds no Node built-ins and only type imports from src/.
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { ModelSpec } from '../src/gateway/spec';
import type { AgentKind } from '../src/environments/types';
import type { RunMetrics } from '../src/metrics/aggregate';

export interface RetrySettings {
  /** Attempts per activity before the rollout goes to the sidecar. */
  maximumAttempts: number;
  initialIntervalMs: number;
  maximumIntervalMs: number;
  /** A worker that stops heartbeating for this long is presumed dead and its activity retried. */
  heartbeatTimeoutMs: number;
}

export const DEFAULT_RETRY: RetrySettings = { maximumAttempts: 3, initialIntervalMs: 1000, maximumIntervalMs: 30_000, heartbeatTimeoutMs: 30_000 };

/** A rollout's identity and where its files live; every rollout activity takes this. */
export interface RolloutRef {
  runDir: string;
  envName: string;
  taskIndex: number;
  rolloutIndex: number;
}

export type { AgentKind };

/**
 * `turn`: every model call and tool call is an activity (resume at the last finished one).
 * `rollout`: one heartbeating activity runs the whole rollout (fewer events; same files, same resume).
 */
export type Durability = 'turn' | 'rollout';

export interface RolloutInput extends RolloutRef {
  agent: AgentKind;
  durability?: Durability;
  model: ModelSpec;
  judgeModel?: ModelSpec;
  /** Model turns allowed; unset means NeMo Gym's "unlimited", bounded by a safety cap. */
  maxSteps?: number;
  retry: RetrySettings;
}

export type RolloutOutcome =
  | { status: 'recorded'; reward: number }
  | { status: 'failed'; failureClass: string };

export interface RunCounts {
  /** Next rollout (task × repeat, in order) to start. */
  cursor: number;
  done: number;
  failed: number;
  rewardSum: number;
}

export interface RunInput {
  runId: string;
  runDir: string;
  envName: string;
  inputFile: string;
  model: ModelSpec;
  judgeModel?: ModelSpec;
  numRepeats: number;
  limit?: number;
  concurrency: number;
  maxSteps?: number;
  retry: RetrySettings;
  durability?: Durability;
  /** Continue-as-new after this many rollouts started in one execution (or when Temporal suggests it). */
  rolloutsPerExecution?: number;
  /** Carried across continue-as-new. */
  total?: number;
  agent?: AgentKind;
  counts?: RunCounts;
}

export type RunPhase = 'collating' | 'running' | 'finalizing' | 'completed';

export interface RunProgress {
  phase: RunPhase;
  total: number | null;
  done: number;
  failed: number;
  inFlight: number;
  concurrency: number;
  paused: boolean;
  meanReward: number | null;
}

export interface RunResult {
  runDir: string;
  metrics: RunMetrics;
}

export const progressQuery = defineQuery<RunProgress>('progress');
export const setConcurrencySignal = defineSignal<[number]>('setConcurrency');
export const pauseSignal = defineSignal('pause');
export const resumeSignal = defineSignal('resume');

/** Rollouts in flight per run at most: Temporal refuses more than 2,000 pending children per workflow. */
export const MAX_CONCURRENCY = 1000;

/** Safety cap on model turns when a run sets no max_steps, so a looping policy cannot run forever. */
export const STEP_CAP = 100;

export function rolloutWorkflowId(runWorkflowId: string, taskIndex: number, rolloutIndex: number): string {
  return `${runWorkflowId}/rollout-${taskIndex}-${rolloutIndex}`;
}

export function runWorkflowId(runId: string): string {
  return `gymflow-run-${runId}`;
}

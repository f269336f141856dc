// The health checks' vocabulary and the two files they write: rollout_verdicts.jsonl (one row per
// rollout) and quality_summary.json (counts, fractions, per check, per task). Check ids are NeMo Gym's.
import { z } from 'zod';

export const VERDICTS_FILE = 'rollout_verdicts.jsonl';
export const SUMMARY_FILE = 'quality_summary.json';

/** Rollout-scope checks, in the order they are reported. `rollout_failed` is Gymflow's: a sidecar rollout. */
export const ROLLOUT_CHECKS = [
  'check_execution_error',
  'record_unreadable',
  'rollout_duplicate_identity',
  'rollout_failed',
  'rollout_missing_agent_turns',
  'rollout_ended_on_failed_model_call',
  'agent_turn_hollow',
  'model_call_zero_completion_tokens',
  'model_call_missing_token_counts',
  'trajectory_capture_mismatch',
  'model_call_failed',
  'rollout_token_count_mismatch',
  'model_call_runaway_generation',
] as const;

export const TASK_CHECKS = ['task_consistently_unhealthy', 'task_no_successful_model_calls'] as const;

export const CHECK_IDS = [...ROLLOUT_CHECKS, ...TASK_CHECKS] as const;
export const CheckId = z.enum(CHECK_IDS);
export type CheckId = z.infer<typeof CheckId>;

/** The task and repeat of a line too broken to name them: a row of its own, outside every task. */
export const UNKNOWN_INDEX = '?';

export const Verdict = z.enum(['healthy', 'unhealthy', 'unobserved']);
export type Verdict = z.infer<typeof Verdict>;

export const Finding = z.object({
  check: CheckId,
  locator: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
  detail: z.record(z.string(), z.unknown()).default({}),
});
export type Finding = z.input<typeof Finding>;

/** One line of rollout_verdicts.jsonl. */
export const VerdictRow = z.object({
  _ng_task_index: z.union([z.number(), z.string()]),
  _ng_rollout_index: z.union([z.number(), z.string()]),
  rollout_id: z.string(),
  /** Where the rollout was found: its record, the sidecar, or neither (the run did not finish it). */
  source: z.enum(['rollouts', 'failures', 'missing']),
  verdict: Verdict,
  findings: z.array(Finding),
  /** Checks that could not look at this rollout (NeMo Gym's list of ids)... */
  unobserved: z.array(CheckId),
  /** ...and, per check, the gap that stopped it. */
  unobserved_reasons: z.record(z.string(), z.string()),
});
export type VerdictRow = z.infer<typeof VerdictRow>;

/** A rollout's verdict with what the summary and the task checks need. */
export interface RolloutVerdict {
  rolloutId: string;
  taskIndex: number | string;
  rolloutIndex: number | string;
  source: VerdictRow['source'];
  verdict: Verdict;
  findings: Finding[];
  unobserved: Partial<Record<CheckId, string>>;
  /** Checks that do not apply (a sidecar rollout has no record to read). */
  notApplicable: CheckId[];
  /** Every policy call the rollout made is known (NeMo Gym's precondition for task_no_successful_model_calls). */
  policyCallsObserved: boolean;
  successfulModelCalls: number;
  modelCalls: number;
  modelCallErrors: number;
  errorsByStatus: Record<string, number>;
  endedOnError: boolean;
  recordTokens: { input: number; output: number };
  captureTokens: { input: number; output: number };
}

const Counts = z.object({ healthy: z.number(), unhealthy: z.number(), unobserved: z.number() });
const Coverage = z.object({ evaluated: z.number(), unobserved: z.number(), not_applicable: z.number(), ignored: z.number() });

export const QualitySummary = z.object({
  run: z.object({
    ignored_checks: z.array(CheckId),
    /** Rollouts the run was to play (tasks × repeats), when its manifest says. */
    expected: z.number().nullable(),
    rows: z.number(),
    artifacts: z.object({
      records: z.number(),
      sidecar: z.number(),
      missing: z.number(),
      unreadable_records: z.number(),
      model_call_records: z.number(),
      unreadable_model_call_records: z.number(),
      coverage: z.record(z.string(), Coverage),
    }),
    verdicts: Counts,
    fractions: Counts.extend({ failed: z.number() }),
    issues: z.record(z.string(), z.number()),
    /** Rollouts with at least one finding of each check. */
    rollouts_flagged: z.record(z.string(), z.number()),
    stats: z.object({
      model_call_errors: z.object({ total: z.number(), by_status: z.record(z.string(), z.number()), rollouts_affected: z.number(), ended_on_error: z.number() }),
      tokens: z.object({ record_input: z.number(), record_output: z.number(), capture_input: z.number(), capture_output: z.number() }),
    }),
  }),
  tasks: z.record(z.string(), z.object({ repeats: z.number(), healthy: z.number(), unhealthy: z.number(), unobserved: z.number(), flags: z.array(CheckId) })),
});
export type QualitySummary = z.infer<typeof QualitySummary>;

// NeMo Gym's rollout health checks over Gymflow's evidence: a rollout's record (or sidecar line) and the
// model calls captured for it. Pure: checks return findings; the verdict is derived from them here.
import type { FailureRecord } from '../schemas/records';
import type { CallDigest } from './evidence';
import { ROLLOUT_CHECKS, type CheckId, type Finding, type RolloutVerdict } from './types';

/** What a rollout record says about itself, reduced to what the checks read. */
export interface RecordDigest {
  /** `_gf_model_call_ids`: one per agent turn, in order. */
  refs: string[];
  /** The episode's usage as the record reports it; undefined when the record has none. */
  usage?: { input: number | null; output: number | null };
  /** Whether the episode's output holds anything a model generated (a message, a tool call, reasoning). */
  hasModelItems: boolean;
}

/** Everything known about one rollout id. */
export interface RolloutEvidence {
  rolloutId: string;
  taskIndex: number | string;
  rolloutIndex: number | string;
  record?: RecordDigest;
  failure?: Pick<FailureRecord, '_ng_failure_class' | 'stage' | 'attempt' | 'message'>;
  /** How many lines (records and sidecar lines) claim this rollout id. */
  copies: number;
  /** A line for this rollout that could not be read as a record. */
  unreadable?: { file: string; line: number; error: string };
  /** Whether the run has a model call log at all. */
  callLog: boolean;
  /** Captured calls by call id (for the record's references). */
  callsById: (callId: string) => readonly CallDigest[];
  /** Every call captured for this rollout id, answered or failed. */
  observedCalls: readonly CallDigest[];
  /** A call line of this rollout could not be read: its capture is incomplete. */
  captureUnreadable: boolean;
}

function chainKey(call: CallDigest): string {
  return call.model ?? '';
}

/** A model's own last call in the rollout failed (judged per model, in time order, as NeMo Gym does). */
function endedOnFailure(chain: readonly CallDigest[]): CallDigest | undefined {
  const failed = chain.filter((c) => c.failed);
  if (!failed.length) return undefined;
  const ordered = [...chain].sort((a, b) => (a.startedAt ?? 0) - (b.startedAt ?? 0) || a.attempt - b.attempt);
  if (failed.length === chain.length) return ordered.at(-1);
  // Without start times a mixed chain cannot be ordered: say nothing rather than fault a recovered rollout.
  if (chain.some((c) => c.startedAt === null)) return undefined;
  const last = ordered.at(-1)!;
  return last.failed ? last : undefined;
}

function chains(calls: readonly CallDigest[]): Map<string, CallDigest[]> {
  const byModel = new Map<string, CallDigest[]>();
  for (const c of calls) {
    const key = chainKey(c);
    const list = byModel.get(key);
    if (list) list.push(c);
    else byModel.set(key, [c]);
  }
  return byModel;
}

interface Bindings {
  matched: CallDigest[];
  missing: string[];
  duplicated: { callId: string; count: number }[];
  foreign: { callId: string; rolloutId: string }[];
  complete: boolean;
}

function bind(e: RolloutEvidence, refs: readonly string[]): Bindings {
  const matched: CallDigest[] = [];
  const missing: string[] = [];
  const duplicated: Bindings['duplicated'] = [];
  const foreign: Bindings['foreign'] = [];
  for (const ref of new Set(refs)) {
    const found = e.callsById(ref);
    if (found.length === 0) missing.push(ref);
    else if (found.length > 1) duplicated.push({ callId: ref, count: found.length });
    else if (found[0]!.rolloutId !== e.rolloutId) foreign.push({ callId: ref, rolloutId: found[0]!.rolloutId });
    else matched.push(found[0]!);
  }
  return { matched, missing, duplicated, foreign, complete: refs.length > 0 && !missing.length && !duplicated.length && !foreign.length };
}

/** Why a check cannot be evaluated for this rollout, or undefined when it can. */
type Gate = (e: RolloutEvidence, b: Bindings) => string | undefined;

const needsCapture: Gate = (e) => (!e.callLog ? 'the run has no model call log (model_calls/)' : e.captureUnreadable ? 'a model call record of this rollout is unreadable' : undefined);
const needsBoundCalls: Gate = (e, b) =>
  needsCapture(e, b) ?? (!e.record!.refs.length ? 'the record references no model call' : !b.matched.length ? 'no referenced model call was captured' : undefined);

interface RecordCheck {
  gate?: Gate;
  run(e: RolloutEvidence, b: Bindings): Omit<Finding, 'check'>[];
}

const callLocator = (c: CallDigest) => ({ call_id: c.callId });

/** The checks that read a rollout record, with what each needs observed. */
const RECORD_CHECKS: Partial<Record<CheckId, RecordCheck>> = {
  rollout_missing_agent_turns: {
    run: (e) => (e.record!.refs.length === 0 && !e.record!.hasModelItems ? [{ detail: { reason: 'no agent turn with model activity' } }] : []),
  },
  agent_turn_hollow: {
    gate: needsBoundCalls,
    run: (_e, b) => b.matched.filter((c) => c.hollow).map((c) => ({ locator: { ...callLocator(c), turn: c.step }, detail: { reason: 'agent turn has no message or tool calls' } })),
  },
  model_call_zero_completion_tokens: {
    gate: needsBoundCalls,
    run: (_e, b) => b.matched.filter((c) => c.tokensOut === 0).map((c) => ({ locator: callLocator(c), detail: { completion_tokens: 0 } })),
  },
  model_call_missing_token_counts: {
    gate: needsBoundCalls,
    run: (_e, b) =>
      b.matched
        .filter((c) => c.tokensIn === null || c.tokensOut === null)
        .map((c) => ({ locator: callLocator(c), detail: { missing: [c.tokensIn === null ? 'input_tokens' : '', c.tokensOut === null ? 'output_tokens' : ''].filter(Boolean) } })),
  },
  trajectory_capture_mismatch: {
    gate: (e, b) => needsCapture(e, b) ?? (!e.record!.refs.length ? 'the record references no model call' : undefined),
    run: (_e, b) => [
      ...b.missing.map((id) => ({ locator: { call_id: id }, detail: { kind: 'missing_captured_call' } })),
      ...b.duplicated.map((d) => ({ locator: { call_id: d.callId }, detail: { kind: 'duplicated_captured_call', count: d.count } })),
      ...b.foreign.map((f) => ({ locator: { call_id: f.callId }, detail: { kind: 'conflicting_call_ownership', captured_for: f.rolloutId } })),
    ],
  },
  model_call_failed: {
    gate: needsBoundCalls,
    run: (_e, b) => {
      const last = b.complete ? b.matched.reduce<CallDigest | undefined>((a, c) => (!a || (c.startedAt ?? 0) >= (a.startedAt ?? 0) ? c : a), undefined) : undefined;
      return b.matched.filter((c) => c.failed).map((c) => ({ locator: callLocator(c), detail: { status: c.status, error_code: c.errorCode, terminal: c === last } }));
    },
  },
  rollout_token_count_mismatch: {
    gate: (e, b) => {
      const why = needsBoundCalls(e, b);
      if (why) return why;
      if (!b.complete) return 'not every referenced model call resolves to exactly one captured call';
      if (!e.record!.usage || e.record!.usage.input === null || e.record!.usage.output === null) return 'the record has no usage';
      if (b.matched.some((c) => c.tokensIn === null || c.tokensOut === null)) return 'a captured call has no usage';
      return undefined;
    },
    run: (e, b) => {
      const usage = e.record!.usage!;
      const captured = { input: b.matched.reduce((a, c) => a + c.tokensIn!, 0), output: b.matched.reduce((a, c) => a + c.tokensOut!, 0) };
      const findings: Omit<Finding, 'check'>[] = [];
      if (usage.input !== captured.input || usage.output !== captured.output) {
        findings.push({ detail: { kind: 'record_vs_capture', record_input: usage.input, record_output: usage.output, capture_input: captured.input, capture_output: captured.output } });
      }
      // Gymflow captures token ids: where a call carries them, its usage must count exactly those ids.
      for (const c of b.matched) {
        if ((c.idsIn !== null && c.idsIn !== c.tokensIn) || (c.idsOut !== null && c.idsOut !== c.tokensOut)) {
          findings.push({
            locator: callLocator(c),
            detail: { kind: 'usage_vs_token_ids', usage_input: c.tokensIn, usage_output: c.tokensOut, prompt_token_ids: c.idsIn, generation_token_ids: c.idsOut },
          });
        }
      }
      return findings;
    },
  },
  model_call_runaway_generation: {
    gate: (e, b) => needsBoundCalls(e, b) ?? (b.matched.some((c) => c.lengthFinish && !c.hasResponse) ? 'a length-limited call has no captured response' : undefined),
    run: (_e, b) => b.matched.filter((c) => c.lengthFinish && !c.hasContent).map((c) => ({ locator: callLocator(c), detail: { finish_reason: c.finishReason ?? c.responseStatus } })),
  },
};

/** Checks that need a record: on a sidecar line they do not apply (the rollout never finished). */
const RECORD_ONLY = new Set<CheckId>(Object.keys(RECORD_CHECKS) as CheckId[]);

function endedOnFailedCall(e: RolloutEvidence): Omit<Finding, 'check'>[] {
  const out: Omit<Finding, 'check'>[] = [];
  for (const [model, chain] of chains(e.observedCalls)) {
    const last = endedOnFailure(chain);
    if (!last) continue;
    out.push({
      locator: callLocator(last),
      detail: { model: model || null, status: last.status, error_code: last.errorCode, observed_calls: chain.length, successful_calls: chain.filter((c) => !c.failed).length },
    });
  }
  return out;
}

/** Whether any model's own last call in the rollout failed (for the summary's counts). */
export function endedOnError(calls: readonly CallDigest[]): boolean {
  return [...chains(calls).values()].some((chain) => endedOnFailure(chain) !== undefined);
}

/** The verdict of one rollout: unhealthy when any check found something, else unobserved when any could not look. */
export function checkRollout(e: RolloutEvidence, ignored: ReadonlySet<CheckId> = new Set()): RolloutVerdict {
  const findings: Finding[] = [];
  const unobserved: Partial<Record<CheckId, string>> = {};
  const notApplicable: CheckId[] = [];
  const bindings = e.record ? bind(e, e.record.refs) : bind(e, []);

  const add = (check: CheckId, found: Omit<Finding, 'check'>[]) => findings.push(...found.map((f) => ({ check, ...f })));

  for (const check of ROLLOUT_CHECKS) {
    if (ignored.has(check)) continue;
    if (check === 'record_unreadable') {
      if (e.unreadable) add(check, [{ locator: { file: e.unreadable.file, line: e.unreadable.line }, detail: { error: e.unreadable.error } }]);
      continue;
    }
    if (check === 'rollout_duplicate_identity') {
      if (e.copies > 1) add(check, [{ detail: { duplicate_count: e.copies } }]);
      continue;
    }
    if (!e.record && !e.failure) {
      unobserved[check] = e.unreadable ? 'its record is unreadable' : 'no record and no sidecar line for this rollout';
      continue;
    }
    try {
      if (check === 'check_execution_error') continue;
      if (check === 'rollout_failed') {
        if (e.failure && !e.record) {
          const f = e.failure;
          add(check, [{ detail: { failure_class: f._ng_failure_class, stage: f.stage, attempt: f.attempt, message: f.message.slice(0, 500) } }]);
        }
        continue;
      }
      if (check === 'rollout_ended_on_failed_model_call') {
        const why = needsCapture(e, bindings) ?? (!e.observedCalls.length ? 'no model call was captured for this rollout' : undefined);
        if (why) unobserved[check] = why;
        else add(check, endedOnFailedCall(e));
        continue;
      }
      if (RECORD_ONLY.has(check) && !e.record) {
        notApplicable.push(check);
        continue;
      }
      const spec = RECORD_CHECKS[check]!;
      const why = spec.gate?.(e, bindings);
      if (why) unobserved[check] = why;
      else add(check, spec.run(e, bindings));
    } catch (err) {
      unobserved[check] = 'the check failed to run';
      if (!ignored.has('check_execution_error')) add('check_execution_error', [{ detail: { failed_check: check, error: (err as Error).message } }]);
    }
  }

  const successful = bindings.matched.filter((c) => !c.failed).length;
  const failedCalls = e.observedCalls.filter((c) => c.failed);
  const errorsByStatus: Record<string, number> = {};
  for (const c of failedCalls) errorsByStatus[String(c.status ?? 'unknown')] = (errorsByStatus[String(c.status ?? 'unknown')] ?? 0) + 1;
  const calledOk = e.observedCalls.filter((c) => !c.failed).length;
  return {
    rolloutId: e.rolloutId,
    taskIndex: e.taskIndex,
    rolloutIndex: e.rolloutIndex,
    source: e.record || e.unreadable ? 'rollouts' : e.failure ? 'failures' : 'missing',
    verdict: findings.length ? 'unhealthy' : Object.keys(unobserved).length ? 'unobserved' : 'healthy',
    findings,
    unobserved,
    notApplicable,
    // A sidecar rollout's calls are all in the log (every Gymflow policy call is), so a run with a call log observes them.
    policyCallsObserved: e.record ? e.callLog && !e.captureUnreadable && bindings.complete : !!e.failure && e.callLog && !e.captureUnreadable,
    successfulModelCalls: e.record ? successful : calledOk,
    modelCalls: e.observedCalls.length,
    modelCallErrors: failedCalls.length,
    errorsByStatus,
    endedOnError: endedOnError(e.observedCalls),
    recordTokens: { input: e.record?.usage?.input ?? 0, output: e.record?.usage?.output ?? 0 },
    captureTokens: { input: e.observedCalls.reduce((a, c) => a + (c.tokensIn ?? 0), 0), output: e.observedCalls.reduce((a, c) => a + (c.tokensOut ?? 0), 0) },
  };
}

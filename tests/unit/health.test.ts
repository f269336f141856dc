// The health checks' rules on hand-made evidence: which model call chains ended on a failure, what a
// runaway generation is, what "unobserved" reports, and the gate's thresholds on fractions counted by hand.
import { describe, expect, it } from 'vitest';
import { checkRollout, type RolloutEvidence } from '../../src/health/checks';
import { digestCall, type CallDigest } from '../../src/health/evidence';
import { evaluateGate } from '../../src/health/gate';
import { summarize } from '../../src/health/summary';
import type { ModelCallRecord } from '../../src/schemas/records';

const message = (text: string) => ({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });

function call(id: string, over: Partial<ModelCallRecord> & { response?: Record<string, unknown> | undefined } = {}): CallDigest {
  return digestCall({
    call_id: id,
    rollout_id: 'r',
    step: 0,
    attempt: 1,
    backend: 'mock',
    model: 'm',
    latency_ms: 1,
    status: 200,
    request: {},
    response: { id: `resp-${id}`, status: 'completed', output: [message('42')], usage: { input_tokens: 3, output_tokens: 1, total_tokens: 4 } },
    ...over,
  });
}
const failed = (id: string, startedAt?: number, attempt = 1) => call(id, { status: 500, error: { code: 'MODEL_ERROR', message: 'HTTP 500' }, response: undefined, started_at: startedAt, attempt });

function evidence(calls: CallDigest[], refs: string[], over: Partial<RolloutEvidence> = {}): RolloutEvidence {
  return {
    rolloutId: 'r',
    taskIndex: 0,
    rolloutIndex: 0,
    record: { refs, usage: { input: calls.filter((c) => refs.includes(c.callId)).reduce((a, c) => a + c.tokensIn!, 0), output: refs.length }, hasModelItems: true },
    copies: 1,
    callLog: true,
    callsById: (id) => calls.filter((c) => c.callId === id),
    observedCalls: calls,
    captureUnreadable: false,
    ...over,
  };
}
const checks = (e: RolloutEvidence) => checkRollout(e).findings.map((f) => f.check);

describe('rollout health checks', () => {
  it('a failed call the retry recovered from is healthy; a chain whose last call failed is not', () => {
    const ok = call('b', { started_at: 2000, attempt: 2 });
    expect(checkRollout(evidence([failed('a', 1000), ok], ['b'])).verdict).toBe('healthy');
    expect(checks({ ...evidence([ok, failed('a', 3000, 3)], ['b']) })).toEqual(['rollout_ended_on_failed_model_call']);
    // Without start times a mixed chain cannot be ordered, so nothing is claimed.
    const untimed = call('b');
    expect(checks(evidence([untimed, failed('a')], ['b']))).toEqual([]);
    // A sidecar rollout whose every call failed.
    const sidecar = checkRollout({ ...evidence([failed('a'), failed('c')], []), record: undefined, failure: { _ng_failure_class: 'model_error', stage: 'model', attempt: 2, message: 'HTTP 500' } });
    expect(sidecar.findings.map((f) => f.check)).toEqual(['rollout_failed', 'rollout_ended_on_failed_model_call']);
    expect(sidecar.findings[1]!.detail).toMatchObject({ observed_calls: 2, successful_calls: 0, status: 500 });
    expect(sidecar.unobserved).toEqual({});
    expect(sidecar.policyCallsObserved).toBe(true);
    expect(sidecar.successfulModelCalls).toBe(0);
  });

  it('a runaway generation is a length-limited call with no text; a length-limited answer with text is not one', () => {
    const cut = (output: unknown[], incomplete: Record<string, unknown> | null) =>
      call('a', { response: { id: 'x', status: 'incomplete', incomplete_details: incomplete, output, usage: { input_tokens: 3, output_tokens: 1, total_tokens: 4 } } });
    expect(checks(evidence([cut([message('a long answer, cut')], { reason: 'max_output_tokens' })], ['a']))).toEqual([]);
    expect(checks(evidence([cut([{ type: 'function_call', call_id: 'c', name: 'f', arguments: '{"x": ' }], { reason: 'max_output_tokens' })], ['a']))).toEqual(['model_call_runaway_generation']);
    expect(checks(evidence([cut([message('  ')], null)], ['a']))).toEqual(['agent_turn_hollow', 'model_call_runaway_generation']);
    // Cut off by a content filter: not a length limit.
    expect(checks(evidence([cut([message('')], { reason: 'content_filter' })], ['a']))).toEqual(['agent_turn_hollow']);
  });

  it('usage must count the token ids a call carries', () => {
    const withIds = (ids: number) =>
      call('a', {
        response: {
          id: 'x',
          status: 'completed',
          output: [{ ...message('hi'), prompt_token_ids: [1, 2, 3], generation_token_ids: Array.from({ length: ids }, (_, i) => i) }],
          usage: { input_tokens: 3, output_tokens: 1, total_tokens: 4 },
        },
      });
    expect(checks(evidence([withIds(1)], ['a']))).toEqual([]);
    const r = checkRollout(evidence([withIds(2)], ['a']));
    expect(r.findings).toEqual([
      { check: 'rollout_token_count_mismatch', locator: { call_id: 'a' }, detail: { kind: 'usage_vs_token_ids', usage_input: 3, usage_output: 1, prompt_token_ids: 3, generation_token_ids: 2 } },
    ]);
  });

  it('says what it could not look at, and why', () => {
    const noLog = checkRollout(evidence([], ['a'], { callLog: false }));
    expect(noLog.verdict).toBe('unobserved');
    expect(noLog.unobserved.trajectory_capture_mismatch).toBe('the run has no model call log (model_calls/)');
    const noUsage = checkRollout(evidence([call('a')], ['a'], { record: { refs: ['a'], hasModelItems: true } }));
    expect(noUsage.verdict).toBe('unobserved');
    expect(Object.keys(noUsage.unobserved)).toEqual(['rollout_token_count_mismatch']);
    expect(noUsage.unobserved.rollout_token_count_mismatch).toBe('the record has no usage');
    expect(checkRollout(evidence([call('a')], ['a']), new Set(['rollout_token_count_mismatch'])).verdict).toBe('healthy');
  });
});

describe('the acceptance gate', () => {
  // 10 expected rollouts: 7 healthy records, 1 unhealthy record, 1 sidecar line, 1 never recorded.
  const verdicts = [
    ...Array.from({ length: 7 }, (_, i) => checkRollout(evidence([call(`c${i}`, { rollout_id: `${i}-0` })], [`c${i}`], { rolloutId: `${i}-0`, taskIndex: i }))),
    checkRollout(evidence([], ['gone'], { rolloutId: '7-0', taskIndex: 7 })),
    checkRollout({ ...evidence([failed('f')], [], { rolloutId: '8-0', taskIndex: 8 }), record: undefined, failure: { _ng_failure_class: 'tool_error', stage: 'tool', attempt: 3, message: 'boom' } }),
    checkRollout({ ...evidence([], [], { rolloutId: '9-0', taskIndex: 9 }), record: undefined, copies: 0 }),
  ];
  const summary = summarize(verdicts, { expected: 10, unreadableRecords: 0, modelCallRecords: 9, unreadableModelCallRecords: 0 }, new Set());

  it('counts fractions by hand', () => {
    expect(summary.run.verdicts).toEqual({ healthy: 7, unhealthy: 2, unobserved: 1 });
    expect(summary.run.fractions).toEqual({ healthy: 0.7, unhealthy: 0.2, unobserved: 0.1, failed: 0.2 });
  });

  it('passes at a threshold equal to the fraction, fails above it, and lists what to retry', () => {
    expect(evaluateGate(summary, verdicts, { maxFailedFraction: 0.2, maxUnhealthyFraction: 0.2 }).passed).toBe(true);
    const r = evaluateGate(summary, verdicts, { maxFailedFraction: 0.19, maxUnhealthyFraction: 0.2 });
    expect(r.passed).toBe(false);
    expect(r.failures).toEqual(['failed fraction 0.2 (2 of 10 rollouts in failures.jsonl or never recorded) is above --max-failed-fraction 0.19']);
    expect(r.retry).toEqual({ failed: ['8-0'], missing: ['9-0'], unhealthy: ['7-0'] });
  });
});

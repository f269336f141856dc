// The re-verification library on NeMo Gym's recorded rollouts: bad input refused with line numbers,
// stateful environments refused unless forced (then rebuilt from the recorded tool calls), and judge
// failures kept apart from rewards.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isGymError } from '../../src/errors';
import { getEnvironment } from '../../src/environments/registry';
import type { AnyEnvironment } from '../../src/environments/types';
import { readRows, reverifyRollouts, type NumberedRow } from '../../src/reverify';
import { recordedJudgeExchanges, replayJudge } from '../../src/reverify/judge';
import { formatSummary, reverifiedRow, summarize } from '../../src/reverify/report';
import { failingJudge, FIXTURES } from '../environments/nemo_fixtures';

const fixture = (env: string, file: string) => readRows(path.join(FIXTURES, env, file), 'fixture');

async function gymError(promise: Promise<unknown>) {
  const e = await promise.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!isGymError(e)) throw new Error(`expected a GymError, got ${String(e)}`);
  return e;
}

describe('joining and checking rollouts before grading', () => {
  it('refuses a file with unjoinable rollouts, listing their lines', async () => {
    const rollouts = await fixture('mcqa', 'example_rollouts.jsonl');
    const e = await gymError(reverifyRollouts({ env: getEnvironment('mcqa'), rollouts, tasks: (await fixture('mcqa', 'example.jsonl')).slice(0, 3) }));
    expect(e.code).toBe('BAD_INPUT');
    expect(e.message).toMatch(/^2 of 5 rollout\(s\) cannot be joined to a task \(pass --skip-unjoined/);
    expect(e.details).toEqual(['line 2: no task has the same input', 'line 4: no task has the same input']);
  });

  it('with skipUnjoined, re-verifies the rest and reports the skipped lines', async () => {
    const rollouts = await fixture('mcqa', 'example_rollouts.jsonl');
    const report = await reverifyRollouts({ env: getEnvironment('mcqa'), rollouts, tasks: (await fixture('mcqa', 'example.jsonl')).slice(0, 3), skipUnjoined: true });
    expect(report.checked.map((c) => c.line)).toEqual([1, 3, 5]);
    expect(report.unjoined.map((u) => u.line)).toEqual([2, 4]);
    expect(formatSummary(report, summarize(report))).toContain('skipped, no task (2):');
  });

  it('refuses rollouts without a valid response, or whose task does not fit the environment', async () => {
    const [first, second] = await fixture('example_single_tool_call', 'example_rollouts.jsonl');
    const rollouts: NumberedRow[] = [{ ...first!, row: { ...first!.row, response: { output: 'none' } } }, second!];
    const e = await gymError(reverifyRollouts({ env: getEnvironment('example_single_tool_call'), rollouts }));
    expect(e.details).toEqual(['line 1: response.id: Invalid input: expected string, received undefined']);
    const [counter] = await fixture('example_session_state_mgmt', 'example_rollouts.jsonl');
    const withoutCounts = [{ line: 1, row: { responses_create_params: counter!.row.responses_create_params } }];
    const unfit = await gymError(reverifyRollouts({ env: getEnvironment('example_session_state_mgmt'), rollouts: [counter!], tasks: withoutCounts, force: true }));
    expect(unfit.details).toEqual(['line 1: task 0 does not fit environment example_session_state_mgmt: initial_count: Invalid input: expected number, received undefined']);
  });
});

describe('recorded responses whose usage is in another shape', () => {
  it('re-verifies ruler2 rollouts that record Chat Completions usage (prompt_tokens), which verify never reads', async () => {
    const rollouts = await fixture('ruler2', 'example_rollouts.jsonl');
    expect((rollouts[0]!.row.response as { usage: object }).usage).toHaveProperty('prompt_tokens');
    const summary = summarize(await reverifyRollouts({ env: getEnvironment('ruler2'), rollouts, tasks: await fixture('ruler2', 'example.jsonl') }));
    expect([summary.compared, summary.agreed]).toEqual([5, 5]);
  });

  it('still refuses a response that is malformed elsewhere', async () => {
    const [first] = await fixture('ruler2', 'example_rollouts.jsonl');
    const broken = { ...first!, row: { ...first!.row, response: { ...(first!.row.response as object), id: 7 } } };
    const e = await gymError(reverifyRollouts({ env: getEnvironment('ruler2'), rollouts: [broken], tasks: await fixture('ruler2', 'example.jsonl') }));
    expect(e.details).toEqual(['line 1: response.id: Invalid input: expected string, received number']);
  });
});

describe('the mcqa recordings', () => {
  it('reproduce every reward but the stale one, which is listed as a disagreement', async () => {
    const report = await reverifyRollouts({ env: getEnvironment('mcqa'), rollouts: await fixture('mcqa', 'example_rollouts.jsonl'), tasks: await fixture('mcqa', 'example.jsonl') });
    const summary = summarize(report);
    expect(summary).toMatchObject({ total: 5, verified: 5, compared: 5, agreed: 4 });
    expect(summary.disagreements).toEqual([{ line: 3, taskIndex: 1, env: 'mcqa', recorded: 0, recomputed: 1 }]);
    expect(report.joinedBy).toEqual({ index: 0, input: 5, self: 0 });
    const row = reverifiedRow(report.checked[2]!);
    expect(row).toMatchObject({ reward: 1, extracted_answer: 'C', _gf_recorded_reward: 0 });
    expect(row.response).toEqual(report.checked[2]!.rollout.response);
  });
});

describe('a stateful environment (example_session_state_mgmt)', () => {
  const env = getEnvironment('example_session_state_mgmt');
  const load = async () => ({ rollouts: await fixture(env.name, 'example_rollouts.jsonl'), tasks: await fixture(env.name, 'example.jsonl') });

  it('is refused without force, before anything is graded', async () => {
    const e = await gymError(reverifyRollouts({ env, ...(await load()) }));
    expect(e.code).toBe('BAD_FLAG');
    expect(e.message).toMatch(/is stateful.*Pass --force/);
  });

  it('with force, rebuilds each session from the recorded tool calls and reproduces every reward', async () => {
    const summary = summarize(await reverifyRollouts({ env, ...(await load()), force: true }));
    expect(summary).toMatchObject({ verified: 5, compared: 5, agreed: 5 });
  });

  it('grades the state the recorded calls build, not a recorded verdict', async () => {
    const { rollouts, tasks } = await load();
    const rollout = structuredClone(rollouts[0]!);
    const output = (rollout.row.response as { output: { type: string; name?: string; arguments?: string }[] }).output;
    output.find((i) => i.name === 'increment_counter')!.arguments = '{"count":12}';
    output.filter((i) => i.name === 'increment_counter')[1]!.arguments = 'not json';
    const [checked] = (await reverifyRollouts({ env, rollouts: [rollout], tasks, force: true })).checked;
    // 12 added, the malformed call answered with an error as in a live rollout, so the counter is off.
    expect(checked!.outcome).toEqual({ status: 'verified', result: { reward: 0, failure_reason: 'wrong_final_count' } });
    expect(checked!.recorded).toBe(1);
  });
});

describe('judges', () => {
  const env = getEnvironment('equivalence_llm_judge');
  const load = async () => ({ rollouts: await fixture(env.name, 'example_rollouts_openqa.jsonl'), tasks: await fixture(env.name, 'example_openqa.jsonl') });

  it('the recorded judge replies, replayed by prompt, reproduce every reward', async () => {
    const { rollouts, tasks } = await load();
    const judge = replayJudge(recordedJudgeExchanges(rollouts.map((r) => r.row)));
    expect(summarize(await reverifyRollouts({ env, rollouts, tasks, judge, concurrency: 2 }))).toMatchObject({ verified: 5, compared: 5, agreed: 5 });
  });

  it('a judge that gives no verdict makes the row judge_failed, never a reward of 0', async () => {
    const report = await reverifyRollouts({ env, ...(await load()), judge: failingJudge });
    const summary = summarize(report);
    expect(summary).toMatchObject({ verified: 0, compared: 0, agreed: 0, disagreements: [] });
    expect(summary.judgeFailed.map((c) => c.line)).toEqual([1, 2, 3, 4, 5]);
    const row = reverifiedRow(report.checked[0]!);
    expect(row).not.toHaveProperty('reward');
    expect(row).toMatchObject({ _ng_failure_class: 'judge_failed', _gf_failure_message: expect.stringContaining('503'), _gf_recorded_reward: report.checked[0]!.recorded });
    expect(formatSummary(report, summary).join('\n')).toMatch(/judge_failed \(no reward\) \(5\):\n {2}line 1, task 4: judge call failed/);
  });

  it('a prompt the recording never saw is a judge failure', async () => {
    const { rollouts, tasks } = await load();
    const [checked] = (await reverifyRollouts({ env, rollouts: rollouts.slice(0, 1), tasks, judge: replayJudge([]) })).checked;
    expect(checked!.outcome).toMatchObject({ status: 'judge_failed', message: expect.stringContaining('no recorded judge reply') });
  });
});

describe('a verify that throws', () => {
  it('is a verify_error for that row, and the others are still graded', async () => {
    const base = getEnvironment('example_single_tool_call');
    const env: AnyEnvironment = {
      ...base,
      verify: (task, response, ctx) => {
        if (JSON.stringify(response).includes('San Francisco')) throw new Error('boom');
        return base.verify(task, response, ctx);
      },
    };
    const summary = summarize(await reverifyRollouts({ env, rollouts: await fixture(base.name, 'example_rollouts.jsonl'), tasks: await fixture(base.name, 'example.jsonl') }));
    expect(summary.verifyErrors.length).toBeGreaterThan(0);
    expect(summary.verified + summary.verifyErrors.length).toBe(5);
    expect(summary.agreed).toBe(summary.verified);
  });
});

// Health checks and the acceptance gate on a real run: `gym eval run` writes all-healthy verdicts after the
// run; copies of its files with known defects (a call record dropped or doubled, usage changed, a runaway
// generation, a rollout moved to the sidecar or lost, a torn line) are flagged exactly as expected; and the
// gate, as a command and as a run option, fails with the rollouts to play again.
import { cp, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runHealthChecks, type HealthResult } from '../../src/health/run-health';
import { VerdictRow } from '../../src/health/types';
import { gym } from '../helpers/gym-cli';
import { gymHere } from '../helpers/gym-here';
import { tempDir } from '../helpers/run';
import { startTestServer, type TestServer } from '../helpers/temporal-server';

const EXAMPLE = path.resolve(import.meta.dirname, '../fixtures/nemo-gym/example_multi_step/example.jsonl');

type Json = Record<string, any>;
const lines = async (file: string): Promise<Json[]> =>
  (await readFile(file, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const writeLines = (file: string, rows: Json[]) => writeFile(file, rows.map((r) => JSON.stringify(r) + '\n').join(''));

/** The run's call log as one list, and a way to write it back as a single segment. */
async function callLog(dir: string): Promise<Json[]> {
  const segments = (await readdir(path.join(dir, 'model_calls'))).sort();
  return (await Promise.all(segments.map((s) => lines(path.join(dir, 'model_calls', s))))).flat();
}
async function writeCallLog(dir: string, calls: Json[]): Promise<void> {
  for (const s of await readdir(path.join(dir, 'model_calls'))) await writeFile(path.join(dir, 'model_calls', s), '');
  await writeLines(path.join(dir, 'model_calls', 'edited.jsonl'), calls);
}

/** Each rollout that is not healthy: its verdict and the checks that found something, sorted. */
function flagged(r: HealthResult): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of r.verdicts) if (v.verdict !== 'healthy') out[v.rolloutId] = `${v.verdict}: ${[...new Set(v.findings.map((f) => f.check))].sort().join(',')}`;
  return out;
}

describe('health checks and the acceptance gate', () => {
  let server: TestServer;
  let env: Record<string, string>;
  let run: string;
  let runArgs: string[];
  let first: Awaited<ReturnType<typeof gym>>;

  beforeAll(async () => {
    server = await startTestServer();
    env = { TEMPORAL_ADDRESS: server.address, GYMFLOW_HOME: server.dir };
    Object.assign(process.env, env, { GYMFLOW_LOG_LEVEL: 'warn' });
    run = path.join(await tempDir(), 'health-run');
    runArgs = ['eval', 'run', '--env', 'example_multi_step', '--model', 'mock', '--input', EXAMPLE, '--output', run, '--limit', '3', '--num-repeats', '2', '--mock-accuracy', '0.5'];
    first = await gym([...runArgs, '--max-failed-fraction', '0', '--max-unhealthy-fraction', '0'], env);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('writes all-healthy verdicts for a clean run, and the gate passes', async () => {
    expect(first.stderr).not.toMatch(/error/i);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/rollout health: 6 checked, 6 healthy, 0 unhealthy, 0 unobserved/);
    expect(first.stdout).toMatch(/acceptance gate: passed/);
    const rows = (await lines(path.join(run, 'rollout_verdicts.jsonl'))).map((r) => VerdictRow.parse(r));
    expect(rows.map((r) => r.rollout_id)).toEqual(['0-0', '0-1', '1-0', '1-1', '2-0', '2-1']);
    for (const r of rows) expect(r).toMatchObject({ verdict: 'healthy', source: 'rollouts', findings: [], unobserved: [] });
    const summary = JSON.parse(await readFile(path.join(run, 'quality_summary.json'), 'utf8'));
    expect(summary.run.verdicts).toEqual({ healthy: 6, unhealthy: 0, unobserved: 0 });
    expect(summary.run.expected).toBe(6);
    // Every check looked at every rollout: nothing the checks read is missing from a Gymflow run's files.
    for (const [id, c] of Object.entries<Json>(summary.run.artifacts.coverage)) {
      if (id.startsWith('task_')) expect(c, id).toMatchObject({ evaluated: 3, unobserved: 0 });
      else expect(c, id).toMatchObject({ evaluated: 6, unobserved: 0 });
    }
    // Each record's calls are in the log with usage equal to the token ids they carry.
    const calls = await callLog(run);
    const records = await lines(path.join(run, 'rollouts.jsonl'));
    expect(calls.length).toBe(records.reduce((a, r) => a + r._gf_model_call_ids.length, 0));
  });

  /** A copy of the clean run with one defect applied, checked again from its files. */
  async function corrupted(edit: (dir: string, records: Json[], calls: Json[]) => Promise<void> | void): Promise<HealthResult> {
    const dir = path.join(await tempDir(), 'copy');
    await cp(run, dir, { recursive: true });
    const records = await lines(path.join(dir, 'rollouts.jsonl'));
    const calls = await callLog(dir);
    await edit(dir, records, calls);
    return runHealthChecks(dir);
  }
  const recordOf = (records: Json[], id: string) => records.find((r) => r._ng_rollout_id === id)!;
  const callsOf = (calls: Json[], id: string) => calls.filter((c) => c.rollout_id === id);

  it('flags held-back files with known defects exactly', async () => {
    const dropped = await corrupted(async (dir, records, calls) => {
      const ref = recordOf(records, '0-0')._gf_model_call_ids[0];
      await writeCallLog(
        dir,
        calls.filter((c) => c.call_id !== ref),
      );
    });
    expect(flagged(dropped)).toEqual({ '0-0': 'unhealthy: trajectory_capture_mismatch' });
    expect(dropped.verdicts.find((v) => v.rolloutId === '0-0')!.findings[0]!.detail).toEqual({ kind: 'missing_captured_call' });

    const doubled = await corrupted(async (dir, records, calls) => {
      const ref = recordOf(records, '0-1')._gf_model_call_ids.at(-1);
      await writeCallLog(dir, [...calls, calls.find((c) => c.call_id === ref)!]);
    });
    expect(flagged(doubled)).toEqual({ '0-1': 'unhealthy: trajectory_capture_mismatch' });
    expect(doubled.verdicts.find((v) => v.rolloutId === '0-1')!.findings[0]!.detail).toEqual({ kind: 'duplicated_captured_call', count: 2 });

    const usage = await corrupted(async (dir, _records, calls) => {
      const call = callsOf(calls, '1-0')[0]!;
      call.response.usage.output_tokens += 1;
      await writeCallLog(dir, calls);
    });
    expect(flagged(usage)).toEqual({ '1-0': 'unhealthy: rollout_token_count_mismatch' });
    expect(usage.verdicts.find((v) => v.rolloutId === '1-0')!.findings.map((f) => f.detail!.kind)).toEqual(['record_vs_capture', 'usage_vs_token_ids']);

    const runaway = await corrupted(async (dir, _records, calls) => {
      const call = callsOf(calls, '1-1').at(-1)!;
      call.response.status = 'incomplete';
      call.response.incomplete_details = { reason: 'max_output_tokens' };
      call.response.output = call.response.output
        .map((item: Json) => (item.type === 'message' ? { ...item, content: [{ type: 'output_text', text: '' }] } : item))
        .filter((item: Json) => item.type !== 'function_call');
      await writeCallLog(dir, calls);
    });
    expect(flagged(runaway)).toEqual({ '1-1': 'unhealthy: agent_turn_hollow,model_call_runaway_generation' });

    // The rollout's last attempts failed and it went to the sidecar: the failed calls are in the log.
    const sidecar = await corrupted(async (dir, records, calls) => {
      await writeLines(
        path.join(dir, 'rollouts.jsonl'),
        records.filter((r) => r._ng_rollout_id !== '2-0'),
      );
      await writeLines(path.join(dir, 'failures.jsonl'), [
        {
          _ng_task_index: 2,
          _ng_rollout_index: 0,
          _ng_failure_class: 'model_error',
          message: 'model mock answered HTTP 500',
          stage: 'model',
          attempt: 3,
          failed_at: new Date().toISOString(),
          _ng_rollout_id: '2-0',
        },
      ]);
      const last = callsOf(calls, '2-0').at(-1)!;
      const failed = [1, 2, 3].map((attempt) => ({
        ...last,
        call_id: `failed-${attempt}`,
        attempt,
        started_at: last.started_at + attempt * 1000,
        status: 500,
        error: { code: 'MODEL_ERROR', message: 'HTTP 500' },
        response: undefined,
      }));
      await writeCallLog(dir, [...calls, ...failed]);
    });
    expect(flagged(sidecar)).toEqual({ '2-0': 'unhealthy: rollout_ended_on_failed_model_call,rollout_failed' });
    expect(sidecar.summary.run.stats.model_call_errors).toEqual({ total: 3, by_status: { '500': 3 }, rollouts_affected: 1, ended_on_error: 1 });
    expect(sidecar.summary.run.fractions.failed).toBeCloseTo(1 / 6);

    // A lost record, a record written twice and a torn line.
    const lost = await corrupted(async (dir, records) => {
      const copy = { ...recordOf(records, '0-0') };
      await writeFile(path.join(dir, 'rollouts.jsonl'), [...records.filter((r) => r._ng_rollout_id !== '2-1'), copy].map((r) => JSON.stringify(r) + '\n').join('') + '{"_ng_task_index": 1, "respo\n');
    });
    expect(flagged(lost)).toEqual({ '0-0': 'unhealthy: rollout_duplicate_identity', '2-1': 'unobserved: ', 'unreadable:rollouts.jsonl:7': 'unhealthy: record_unreadable' });
    const missing = lost.verdicts.find((v) => v.rolloutId === '2-1')!;
    expect(missing.source).toBe('missing');
    expect(Object.values(missing.unobserved)).toContain('no record and no sidecar line for this rollout');
    expect(lost.summary.run.artifacts).toMatchObject({ records: 6, missing: 1, unreadable_records: 1 });
  });

  it("runs the task-level checks over each task's repeats", async () => {
    const r = await corrupted(async (dir, records, calls) => {
      // Task 0: both repeats lose a call record. Task 1: both repeats only ever failed, in the sidecar.
      const drop = new Set(['0-0', '0-1'].map((id) => recordOf(records, id)._gf_model_call_ids[0]));
      const sidecar = new Set(['1-0', '1-1']);
      await writeLines(
        path.join(dir, 'rollouts.jsonl'),
        records.filter((x) => !sidecar.has(x._ng_rollout_id)),
      );
      await writeLines(
        path.join(dir, 'failures.jsonl'),
        [...sidecar].map((id) => ({
          _ng_task_index: 1,
          _ng_rollout_index: Number(id.at(-1)),
          _ng_failure_class: 'model_error',
          message: 'HTTP 400: context too long',
          stage: 'model',
          attempt: 1,
          failed_at: new Date().toISOString(),
          _ng_rollout_id: id,
        })),
      );
      const kept = calls.filter((c) => !drop.has(c.call_id) && !sidecar.has(c.rollout_id));
      const failed = [...sidecar].map((id) => ({
        ...callsOf(calls, id)[0]!,
        call_id: `failed-${id}`,
        status: 400,
        error: { code: 'MODEL_REJECTED', message: 'context too long' },
        response: undefined,
      }));
      await writeCallLog(dir, [...kept, ...failed]);
    });
    expect(r.summary.tasks['0']!.flags).toEqual(['task_consistently_unhealthy']);
    expect(r.summary.tasks['1']!.flags).toEqual(['task_consistently_unhealthy', 'task_no_successful_model_calls']);
    expect(r.summary.tasks['2']!.flags).toEqual([]);
    expect(r.summary.run.issues).toMatchObject({ task_consistently_unhealthy: 2, task_no_successful_model_calls: 1 });
  });

  it('fails the gate with the thresholds missed and the rollouts to retry, as a command and as a run option', async () => {
    const bad = await gymHere(['eval', 'gate', run, '--max-failed-fraction', '1.5']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--max-failed-fraction must be a number between 0 and 1, got 1\.5/);
    const none = await gymHere(['eval', 'gate', run]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/give --max-failed-fraction, --max-unhealthy-fraction or both/);

    // Break the finished run itself: one record loses a call record, another goes to the sidecar.
    const records = await lines(path.join(run, 'rollouts.jsonl'));
    const calls = await callLog(run);
    const ref = recordOf(records, '1-1')._gf_model_call_ids[0];
    await writeCallLog(
      run,
      calls.filter((c) => c.call_id !== ref),
    );
    await writeLines(
      path.join(run, 'rollouts.jsonl'),
      records.filter((r) => r._ng_rollout_id !== '2-1'),
    );
    await writeLines(path.join(run, 'failures.jsonl'), [
      { _ng_task_index: 2, _ng_rollout_index: 1, _ng_failure_class: 'tool_error', message: 'tool failed', stage: 'tool', attempt: 3, failed_at: new Date().toISOString(), _ng_rollout_id: '2-1' },
    ]);

    const gate = await gymHere(['eval', 'gate', run, '--max-failed-fraction', '0.1', '--max-unhealthy-fraction', '0.5']);
    expect(gate.code).toBe(9);
    expect(gate.stderr).toMatch(/acceptance gate failed: failed fraction 0\.1667 \(1 of 6 rollouts in failures.jsonl or never recorded\) is above --max-failed-fraction 0\.1/);
    expect(gate.stderr).not.toMatch(/unhealthy fraction/);
    expect(gate.stderr).toMatch(/in failures.jsonl \(1\): 2-1/);
    expect(gate.stderr).toMatch(/recorded but unhealthy \(1\): 1-1/);
    expect(gate.stdout).toMatch(/rollout health: 6 checked, 4 healthy, 2 unhealthy, 0 unobserved/);

    // The same run again: it is complete, so only the gate is checked, against the files as they are now.
    const again = await gymHere([...runArgs, '--max-unhealthy-fraction', '0.2']);
    expect(again.stdout).toMatch(/already complete/);
    expect(again.code).toBe(9);
    expect(again.stderr).toMatch(/unhealthy fraction 0\.3333 \(2 of 6 rollouts\) is above --max-unhealthy-fraction 0\.2/);
  });
});

// The fault matrix's one checker (docs/faults.md): whatever broke during a run, its raw files must hold
// every task × repeat exactly once, no torn or invalid line, and no reward the verifier did not give.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { getEnvironment } from '../../src/environments/registry';
import type { AnyEnvironment } from '../../src/environments/types';
import { reverifyRollouts, type NumberedRow } from '../../src/reverify';
import { FailureRecord, RolloutRecord, type FailureClass } from '../../src/schemas/records';

export interface FaultRunShape {
  tasks: number;
  repeats: number;
  /** The environment that verified the run, to grade every recorded response again; omit for remote ones. */
  env?: string | AnyEnvironment;
  /** The failure classes this fault may leave in the sidecar; none by default (every rollout recorded). */
  sidecarClasses?: readonly FailureClass[];
}

export interface FaultRunFiles {
  records: RolloutRecord[];
  failures: FailureRecord[];
}

/** A results file's lines, each parsed and checked against its schema; a torn last line fails here. */
function rawLines<T>(file: string, schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: { message: string } } }): T[] {
  if (!existsSync(file)) return [];
  const text = readFileSync(file, 'utf8');
  if (text === '') return [];
  expect(text.endsWith('\n'), `${file} ends without a newline (a torn line)`).toBe(true);
  return text
    .slice(0, -1)
    .split('\n')
    .map((line, i) => {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        throw new Error(`${file} line ${i + 1} is not JSON: ${line.slice(0, 200)}`);
      }
      const parsed = schema.safeParse(value);
      if (!parsed.success) throw new Error(`${file} line ${i + 1} is not a valid record: ${parsed.error.message}`);
      return parsed.data;
    });
}

/** What holds at any moment, even in a run stopped half-way: every line whole and valid, no rollout twice. */
export function expectValidResultLines(runDir: string): FaultRunFiles {
  const records = rawLines(path.join(runDir, 'rollouts.jsonl'), RolloutRecord);
  const failures = rawLines(path.join(runDir, 'failures.jsonl'), FailureRecord);
  const seen = [...records, ...failures].map((r) => r._ng_rollout_id);
  const duplicates = seen.filter((id, i) => seen.indexOf(id) !== i);
  expect(duplicates, 'rollouts written more than once (in one file or both)').toEqual([]);
  return { records, failures };
}

/** Every task × repeat exactly once across rollouts.jsonl and failures.jsonl, each line valid, no reward made up. */
export async function expectFaultInvariants(runDir: string, shape: FaultRunShape): Promise<FaultRunFiles> {
  const { records, failures } = expectValidResultLines(runDir);
  const seen = [...records, ...failures].map((r) => r._ng_rollout_id);
  const expected: string[] = [];
  for (let t = 0; t < shape.tasks; t++) for (let r = 0; r < shape.repeats; r++) expected.push(`${t}-${r}`);
  expect([...seen].sort(), 'every task × repeat in exactly one of the two files').toEqual(expected.sort());
  for (const r of [...records, ...failures]) expect(r._ng_rollout_id).toBe(`${r._ng_task_index}-${r._ng_rollout_index}`);

  // An infrastructure failure goes to the sidecar with its class, never into the rewards.
  const allowed = new Set(shape.sidecarClasses ?? []);
  for (const f of failures) expect(allowed.has(f._ng_failure_class), `sidecar class ${f._ng_failure_class} (${f.stage}: ${f.message})`).toBe(true);

  if (shape.env !== undefined && records.length) await expectVerifierRewards(runDir, shape.env, records);

  const metricsFile = path.join(runDir, 'metrics.json');
  if (existsSync(metricsFile)) {
    const metrics = JSON.parse(readFileSync(metricsFile, 'utf8'));
    expect(metrics.rollouts_recorded).toBe(records.length);
    expect(metrics.rollouts_failed).toBe(failures.length);
    const classes: Record<string, number> = {};
    for (const f of failures) classes[f._ng_failure_class] = (classes[f._ng_failure_class] ?? 0) + 1;
    expect(metrics.failure_classes ?? {}).toEqual(classes);
    // The mean is over recorded rollouts only: a failure counted as 0 would pull it down.
    if (records.length) expect(metrics.mean_reward).toBeCloseTo(records.reduce((s, r) => s + r.reward, 0) / records.length, 9);
  }
  return { records, failures };
}

/** Each recorded reward is what the environment's verify gives the recorded response: none was made up by a failure path. */
async function expectVerifierRewards(runDir: string, env: string | AnyEnvironment, records: RolloutRecord[]): Promise<void> {
  const environment = typeof env === 'string' ? getEnvironment(env) : env;
  const tasks: NumberedRow[] = readFileSync(path.join(runDir, 'tasks.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l, i) => ({ line: i + 1, row: JSON.parse(l) }));
  const rollouts: NumberedRow[] = records.map((r, i) => ({ line: i + 1, row: r as Record<string, unknown> }));
  const report = await reverifyRollouts({ env: environment, rollouts, tasks, force: true });
  const mismatches = report.checked
    .filter((c) => c.outcome.status !== 'verified' || c.outcome.result.reward !== c.recorded)
    .map((c) => `${String(c.rollout._ng_rollout_id)}: recorded ${c.recorded}, verify says ${c.outcome.status === 'verified' ? c.outcome.result.reward : c.outcome.message}`);
  expect(mismatches, 'recorded rewards the verifier does not give').toEqual([]);
}

/** A run (or any wait) that must end: fails as a hang after `ms`, a bound set far above its normal time. */
export async function bounded<T>(what: string, ms: number, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`hang: ${what} did not end within ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([p, hang]);
  } finally {
    clearTimeout(timer);
  }
}

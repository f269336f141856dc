// Checks a finished run's `_gf_diagnostics` against what else the run folder says about each rollout:
// its model call log lines, its recorded episode and metrics.json. Shared by the e2e tests of both grains.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { RolloutDiagnostics } from '../../src/schemas/records';

const jsonl = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

/** Asserts every record's diagnostics are consistent with the run's other files; `modelLatencyMs` is the mock's --mock-latency-ms. */
export function expectPlausibleDiagnostics(runDir: string, opts: { environment: string; modelLatencyMs: number }): void {
  const rows = jsonl(path.join(runDir, 'rollouts.jsonl'));
  const calls = readdirSync(path.join(runDir, 'model_calls')).flatMap((f) => jsonl(path.join(runDir, 'model_calls', f)));
  expect(rows.length).toBeGreaterThan(0);
  for (const row of rows) {
    const d = RolloutDiagnostics.parse(row._gf_diagnostics);
    const own = calls.filter((c) => c.rollout_id === row._ng_rollout_id);
    // One turn per model call, as the call log and the record's call ids both say.
    expect(d.turns).toBe(own.length);
    expect(d.turns).toBe(row._gf_model_call_ids.length);
    expect(d.input_tokens).toBe(own.reduce((a, c) => a + c.response.usage.input_tokens, 0));
    expect(d.output_tokens).toBe(own.reduce((a, c) => a + c.response.usage.output_tokens, 0));
    expect(d.tool_calls).toBe(row.response.output.filter((i: { type: string }) => i.type === 'function_call_output').length);
    expect(d.latency_ms.model).toBeGreaterThanOrEqual(opts.modelLatencyMs * d.turns);
    // The parts ran one after another inside the total (less 2 ms for clock resolution and rounding).
    const { model, tool, verify, queueing, total } = d.latency_ms;
    expect(total + 2).toBeGreaterThanOrEqual(model + tool + verify + queueing);
    expect(d.attempts).toBe(1);
  }
  const metrics = JSON.parse(readFileSync(path.join(runDir, 'metrics.json'), 'utf8'));
  expect(metrics.diagnostics).toHaveLength(1);
  const group = metrics.diagnostics[0];
  expect(group).toMatchObject({ environment: opts.environment, agent: 'simple_agent', rollouts: rows.length });
  const turns = rows.map((r) => r._gf_diagnostics.turns as number);
  expect(group.stats.turns.mean).toBeCloseTo(turns.reduce((a, b) => a + b, 0) / turns.length, 9);
  expect(group.stats.turns.max).toBe(Math.max(...turns));
  expect(group.stats.latency_ms.model.min).toBeGreaterThanOrEqual(opts.modelLatencyMs);
}

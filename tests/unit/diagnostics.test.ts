// Per-rollout diagnostics read off a journal, their per-group distributions, and the short closing
// summary: expectations worked out by hand from the entries below.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { formatMetrics } from '../../src/cli/report';
import { computeRunMetrics } from '../../src/metrics/aggregate';
import { rolloutDiagnostics } from '../../src/metrics/diagnostics';
import { metered, startSandboxClock } from '../../src/sandboxes/meter';
import { RolloutDiagnostics } from '../../src/schemas/records';
import { episodeOf, type JournalEntry, type ModelTurn } from '../../src/store/journal';

const turn = (callId: string, usage: ModelTurn['usage'], latencyMs: number): ModelTurn => ({ callId, responseId: callId, model: 'm', output: [], usage, incomplete: false, latencyMs });
const tool = (step: number, index: number, status: number, latencyMs: number): JournalEntry => ({
  kind: 'tool',
  step,
  index,
  status,
  latencyMs,
  state: null,
  item: { type: 'function_call_output', call_id: `c${step}${index}`, output: '{}' },
});

describe('rollout diagnostics', () => {
  it('adds up tokens, turns, tool calls and the time of each kind of call the journal kept', () => {
    const entries: JournalEntry[] = [
      { kind: 'seed', state: null, startedAtMs: 1_000, queueingMs: 7 },
      { kind: 'model', step: 1, turn: turn('a', { input_tokens: 10, output_tokens: 5, total_tokens: 15, output_tokens_details: { reasoning_tokens: 2 } }, 100) },
      tool(1, 0, 200, 3),
      tool(1, 1, 404, 4),
      { kind: 'failed_try', step: 2 },
      { kind: 'model', step: 2, turn: turn('b', { input_tokens: 20, output_tokens: 7, total_tokens: 27 }, 50) },
      { kind: 'failed_try', step: 0 },
      { kind: 'verify', response: { id: 'r', output: [] }, result: { reward: 1 }, modelCallIds: ['a', 'b'], latencyMs: 30, sandboxMs: 12 },
    ];
    const d = rolloutDiagnostics(episodeOf(entries), 1_500);
    // Tokens 10 + 20 in, 5 + 7 out, reasoning 2 (the second turn reports none); model 100 + 50 ms; tools 3 + 4 ms,
    // the 404 failed; total = queueing 7 + (recorded 1500 − started 1000) = 507; two failed tries → 3 attempts.
    expect(d).toEqual({
      input_tokens: 30,
      output_tokens: 12,
      reasoning_tokens: 2,
      turns: 2,
      tool_calls: 2,
      failed_tool_calls: 1,
      latency_ms: { model: 150, tool: 7, verify: 30, sandbox: 12, queueing: 7, total: 507 },
      attempts: 3,
    });
    expect(RolloutDiagnostics.parse(d)).toEqual(d);
  });

  it('reads a journal written before timings were kept as zero time and one attempt', () => {
    const d = rolloutDiagnostics(
      episodeOf([
        { kind: 'seed', state: null },
        { kind: 'model', step: 1, turn: { ...turn('a', null, 0), latencyMs: undefined } },
      ]),
      5_000,
    );
    expect(d.latency_ms).toEqual({ model: 0, tool: 0, verify: 0, sandbox: 0, queueing: 0, total: 0 });
    expect(d.attempts).toBe(1);
    expect(d.turns).toBe(1);
  });
});

const diag = (turns: number, total: number): RolloutDiagnostics => ({
  input_tokens: 100 * turns,
  output_tokens: 10 * turns,
  reasoning_tokens: 0,
  turns,
  tool_calls: turns - 1,
  failed_tool_calls: 0,
  latency_ms: { model: total / 2, tool: 1, verify: 2, sandbox: 0, queueing: 3, total },
  attempts: 1,
});

describe('diagnostics per environment, agent and model', () => {
  it('summarizes each group separately', () => {
    const a = { environment: 'e', agent: 'simple_agent', model: 'm1' };
    const b = { environment: 'e', agent: 'simple_agent', model: 'm2' };
    const rollouts = [
      { taskIndex: 0, rolloutIndex: 0, reward: 1, diagnostics: diag(1, 100), group: a },
      { taskIndex: 0, rolloutIndex: 1, reward: 1, diagnostics: diag(3, 300), group: a },
      { taskIndex: 1, rolloutIndex: 0, reward: 0, diagnostics: diag(2, 50), group: b },
    ];
    const m = computeRunMetrics({ rollouts, failureClasses: [], expected: 3 });
    expect(m.diagnostics.map((g) => [g.model, g.rollouts])).toEqual([
      ['m1', 2],
      ['m2', 1],
    ]);
    const [g1, g2] = m.diagnostics;
    // m1 turns 1 and 3: mean 2, std √((1 + 1)/1) = √2, median 2, p90 = 1 + 0.9 · 2 = 2.8.
    expect(g1!.stats.turns).toMatchObject({ count: 2, mean: 2, min: 1, max: 3, median: 2 });
    expect(g1!.stats.turns!.std).toBeCloseTo(Math.SQRT2, 12);
    expect(g1!.stats.turns!.p90).toBeCloseTo(2.8, 12);
    // total 100 and 300: p99 = 100 + 0.99 · 200 = 298.
    expect(g1!.stats.latency_ms.total!.p99).toBeCloseTo(298, 9);
    expect(g2!.stats.latency_ms.model).toMatchObject({ count: 1, mean: 25, std: 0, p90: 25 });
  });
});

describe('closing summary', () => {
  it('shows pass@1 and the largest k only, and says when tasks are left out', () => {
    // Task 0 has four samples, task 1 two: pass@3 and pass@4 are over task 0 alone, task 1 is short.
    const rollouts = [0, 1, 2, 3]
      .map((i) => ({ taskIndex: 0, rolloutIndex: i, reward: i % 2, diagnostics: diag(2, 100 + i) }))
      .concat([0, 1].map((i) => ({ taskIndex: 1, rolloutIndex: i, reward: 1, diagnostics: diag(2, 100) })));
    const text = formatMetrics(computeRunMetrics({ rollouts, failureClasses: [], expected: 8 }), '/runs/x');
    expect(text).toMatch(/pass@1=\d\.\d{4}\s+pass@4=1\.0000 \(1 task with fewer than 4 samples left out of pass@4\)/);
    expect(text).not.toMatch(/pass@2=|pass@3=/);
    expect(text).toMatch(/95% CI: \[[-\d.]+, [-\d.]+\] \(tasks as clusters\)/);
    // Totals 100, 101, 102, 103, 100, 100 sorted 100 100 100 101 102 103: p50 at rank 2.5 = 100.5 → "101",
    // p90 at rank 4.5 = 102.5 → "103".
    expect(text).toMatch(/latency p50\/p90: total 101\/103 ms/);
    expect(text.split('\n').length).toBeLessThanOrEqual(6);
  });
});

describe('sandbox meter', () => {
  it('credits each sandbox run to the metered step it was started in, and only to it', async () => {
    const run = async (ms: number) => {
      const stop = startSandboxClock();
      await sleep(ms);
      stop();
      stop(); // a second stop is not counted again
    };
    const [a, b] = await Promise.all([metered(() => run(30)), metered(async () => (await run(5), 'b'))]);
    expect(a.sandboxMs).toBeGreaterThanOrEqual(25);
    expect(b.value).toBe('b');
    expect(b.sandboxMs).toBeLessThan(a.sandboxMs);
    await run(1); // outside any step: credited to nobody, and harmless
  });
});

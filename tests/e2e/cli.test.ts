// The `gym` command as a user runs it, each call a subprocess: a full eval with metrics, then status and
// list, and a second configuration refused in the same folder. Ctrl-C and resume: cli-resume.test.ts;
// pause, resize and cancel: cli-control.test.ts; refusals of bad input: tests/cli/eval-run-refusals.test.ts.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { defaultRunId } from '../../src/runs/manifest';
import { renderReport } from '../../src/report/html';
import { readRun } from '../../src/report/read-run';
import { describe, expect, it } from 'vitest';
import { expectPlausibleDiagnostics } from '../helpers/diagnostics';
import { gym } from '../helpers/gym-cli';
import { useGymServer } from '../helpers/gym-server';
import { tempDir } from '../helpers/run';

const EXAMPLE = path.resolve(import.meta.dirname, '../fixtures/nemo-gym/example_multi_step/example.jsonl');

describe('gym eval against a running server', () => {
  const env = useGymServer();

  it('runs an eval to its metrics, then shows it in status and list', async () => {
    const out = path.join(await tempDir(), 'cli-run');
    const r = await gym(
      ['eval', 'run', '--env', 'example_multi_step', '--model', 'mock', '--input', EXAMPLE, '--output', out, '--limit', '3', '--num-repeats', '2', '--mock-accuracy', '0.5', '--mock-latency-ms', '20'],
      env,
    );
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/rollouts: 6\/6 recorded, 0 failed \(coverage 100.0%\) over 3 tasks/);
    expect(r.stdout).toMatch(/mean reward: \d\.\d{4}/);
    expect(r.stdout).toMatch(/pass@1=\d\.\d{4}\s+pass@2=\d\.\d{4}/);
    const metrics = JSON.parse(readFileSync(path.join(out, 'metrics.json'), 'utf8'));
    const rows = readFileSync(path.join(out, 'rollouts.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(rows).toHaveLength(6);
    expect(metrics.mean_reward).toBeCloseTo(rows.reduce((a, x) => a + x.reward, 0) / 6);
    expectPlausibleDiagnostics(out, { environment: 'example_multi_step', modelLatencyMs: 20 });
    // The report reads a real run's files: every rollout, each one's model time from its diagnostics.
    const report = await readRun(out);
    expect(report.rollouts.map((x) => x.id).sort()).toEqual(rows.map((x) => x._ng_rollout_id).sort());
    expect(report.latencySource).toBe('diagnostics');
    for (const x of report.rollouts) expect(x.series.latency_model_ms).toEqual(expect.any(Number));
    expect(renderReport(report)).toContain(`<dd data-key="mean_reward">${metrics.mean_reward.toFixed(4)}</dd>`);

    const status = await gym(['eval', 'status', out], env);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/completed/);
    expect(status.stdout).toMatch(/rollouts: 6\/6 recorded/);

    const list = await gym(['eval', 'list', '--json'], env);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout).map((x: { run: string }) => x.run)).toContain(defaultRunId(out));

    // A different configuration into the same folder is refused.
    const clash = await gym(['eval', 'run', '--env', 'example_multi_step', '--model', 'mock', '--input', EXAMPLE, '--output', out, '--limit', '4'], env);
    expect(clash.code).toBe(6);
    expect(clash.stderr).toMatch(/different configuration/);
  });
});

// A fresh run into a reused --output folder clears the failure and health reports an earlier run left
// there; a resumed run (same identity) keeps them, because they are its own.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseModelSpec } from '../../src/gateway/spec';
import { prepareRun } from '../../src/runs/client';
import { RunConfig, defaultRunId, runTaskQueue } from '../../src/runs/manifest';
import { OUTCOME_REPORTS } from '../../src/runs/output-dir';
import { DEFAULT_RETRY } from '../../workflows/definitions';
import { tempDir } from '../helpers/run';

function config(runDir: string): RunConfig {
  const runId = defaultRunId(runDir);
  return RunConfig.parse({
    runId,
    runDir,
    env: { name: 'example_multi_step', options: {} },
    inputFile: '/unused.jsonl',
    model: parseModelSpec({ backend: 'mock', env: 'example_multi_step', tasks_file: path.join(runDir, 'tasks.jsonl') }),
    numRepeats: 1,
    concurrency: 1,
    shards: 1,
    taskQueue: runTaskQueue(runId),
    retry: DEFAULT_RETRY,
  });
}

const leave = (dir: string) => {
  for (const name of OUTCOME_REPORTS) {
    if (name === 'wandb') mkdirSync(path.join(dir, name, 'offline-run-1'), { recursive: true });
    else writeFileSync(path.join(dir, name), '{"left": "by an earlier run"}\n');
  }
  writeFileSync(path.join(dir, 'rollouts.jsonl'), '');
};

describe('reports in a reused output folder', () => {
  it('a fresh run removes the failures and health reports it finds, and nothing else', async () => {
    const dir = await tempDir();
    leave(dir);
    const { resumed } = await prepareRun(config(dir), 'hash-a');
    expect(resumed).toBe(false);
    expect(OUTCOME_REPORTS.map((name) => existsSync(path.join(dir, name)))).toEqual(OUTCOME_REPORTS.map(() => false));
    expect(OUTCOME_REPORTS).toEqual([
      'failures.jsonl',
      'rollout_verdicts.jsonl',
      'quality_summary.json',
      'exports.json',
      'wandb',
      'report.html',
      'rollouts_materialized_inputs.jsonl',
      'rollouts_aggregate_metrics.json',
      'rollouts_failures.jsonl',
    ]);
    expect(existsSync(path.join(dir, 'rollouts.jsonl'))).toBe(true);
  });

  it('a resumed run keeps them', async () => {
    const dir = await tempDir();
    await prepareRun(config(dir), 'hash-a');
    leave(dir);
    const { resumed } = await prepareRun(config(dir), 'hash-a');
    expect(resumed).toBe(true);
    for (const name of OUTCOME_REPORTS) expect(existsSync(path.join(dir, name)), name).toBe(true);
  });
});

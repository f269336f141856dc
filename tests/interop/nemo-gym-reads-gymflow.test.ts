// NeMo Gym 0.7.0's own tooling reads what `gym eval run --output-format nemo-gym` writes: its aggregation of
// Gymflow's rollouts.jsonl gives the metrics Gymflow wrote (and `gym eval aggregate` prints), its
// `gym eval profile` aligns Gymflow's materialized inputs with the rollouts, its `gym eval compare` loader takes
// the aggregate file as one of its own, and its resume reads the failures sidecar. Real runs on a Temporal dev
// server (mock policy; a fake OpenAI upstream answering 500 for the failed run).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRunConfig } from '../../src/cli/commands/eval-run';
import { NEMO_GYM_VENV_PYTHON } from '../../src/environments/remote/launch';
import { parseModelSpec } from '../../src/gateway/spec';
import { startFakeOpenAIUpstream, type FakeOpenAIUpstream } from '../gateway/fake_openai_upstream';
import { gymHere } from '../helpers/gym-here';
import { runConfig, runInProcess, tempDir } from '../helpers/run';
import { startTestServer, type TestServer } from '../helpers/temporal-server';
import { interopTitle, nemoGymVenv } from './nemo-gym-venv';
import { expectCovers } from '../helpers/covers';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/nemo-gym');
const READER = path.join(import.meta.dirname, 'nemo_gym_reads_gymflow.py');
const readJsonl = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, any>);

/** What NeMo Gym's tools read from each folder, in one Python process. */
async function nemoGymReads(folders: { scored: string; failed: string }): Promise<Record<string, any>> {
  const args = Object.entries(folders).map(([name, dir]) => `${name}=${dir}`);
  const { stdout } = await promisify(execFile)(NEMO_GYM_VENV_PYTHON, [READER, ...args], { cwd: folders.scored, timeout: 240_000, maxBuffer: 64 * 1024 * 1024 });
  return JSON.parse(stdout);
}

/** A run that scores (mcqa, mock policy, three repeats) and one whose every rollout failed, both read by NeMo Gym once. */
async function playRuns() {
  const scored = path.join(await tempDir('gymflow-ng-reads-'), 'run');
  const config = buildRunConfig({
    env: 'mcqa',
    model: 'mock',
    'mock-accuracy': '0.5',
    'mock-seed': '5',
    input: path.join(FIXTURES, 'mcqa', 'example.jsonl'),
    output: scored,
    'num-repeats': '3',
    'output-format': 'nemo-gym',
  });
  expect((await runInProcess(server, config)).metrics.rollouts_recorded).toBe(15);
  const failed = await tempDir('gymflow-ng-reads-');
  const failing = {
    ...runConfig({ runDir: failed, envName: 'example_single_tool_call', inputFile: path.join(FIXTURES, 'example_single_tool_call', 'example.jsonl'), limit: 2, numRepeats: 2, maximumAttempts: 1 }),
    model: parseModelSpec({ backend: 'openai', model: 'gpt-test', base_url: upstream.url, api_key_env: 'GYMFLOW_NG_READS_KEY' }),
    outputFormat: 'nemo-gym' as const,
  };
  upstream.failWith(500, 'the upstream is overloaded');
  expect((await runInProcess(server, failing)).metrics.rollouts_failed).toBe(4);
  upstream.recover();
  return { dirs: { scored, failed }, reads: await nemoGymReads({ scored, failed }) };
}

let server: TestServer;
let upstream: FakeOpenAIUpstream;
beforeAll(async () => {
  if (!nemoGymVenv) return;
  server = await startTestServer();
  upstream = await startFakeOpenAIUpstream();
  process.env.GYMFLOW_NG_READS_KEY = 'sk-test-not-a-secret';
});
afterAll(async () => {
  await upstream?.close();
  await server?.stop();
});

describe.skipIf(!nemoGymVenv)(interopTitle("NeMo Gym's tools on Gymflow's output"), () => {
  let runs: Awaited<ReturnType<typeof playRuns>>;
  beforeAll(async () => {
    runs = await playRuns();
  }, 600_000);

  it("aggregates, profiles and compares a Gymflow run as one of its own, with Gymflow's numbers", async () => {
    const runDir = runs.dirs.scored;
    const ng = runs.reads.scored;
    const ours = JSON.parse(readFileSync(path.join(runDir, 'rollouts_aggregate_metrics.json'), 'utf8'));

    // Its aggregation of our rollouts.jsonl: every metric, per task, per repeat, pass@k and majority@k, is ours.
    expect(ng.aggregate.map((e: any) => e.agent_ref.name)).toEqual(['mcqa_simple_agent']);
    expectCovers(ours, ng.aggregate);
    expect(Object.keys(ours[0].agent_metrics).sort()).toEqual(Object.keys(ng.aggregate[0].agent_metrics).sort());
    // And `gym eval aggregate` gives the same from the file alone.
    const again = await gymHere(['eval', 'aggregate', path.join(runDir, 'rollouts.jsonl'), '-o', '-']);
    expect(again.code, again.stderr).toBe(0);
    expectCovers(JSON.parse(again.stdout), ng.aggregate);

    // `gym eval profile` refuses unaligned inputs and rollouts; over ours it profiles one agent, with our mean.
    const [profiled] = ng.profile_agent_metrics;
    expect(profiled.agent_ref.name).toBe('mcqa_simple_agent');
    expect(profiled['mean/reward']).toBeCloseTo(ours[0].agent_metrics['mean/reward'], 12);

    // `gym eval compare` loads the aggregate file without rebuilding anything from it.
    expect(ng.compare_warnings).toEqual([]);
    expect(ng.compare_runs.mcqa_simple_agent).toMatchObject({ num_tasks: 5, num_repeats: 3, has_repeat_cis: true });
    expect(ng.compare_runs.mcqa_simple_agent.key_metrics).toEqual(ours[0].key_metrics);
    expect(ng.failures).toEqual([]);
  });

  it('reads the failures sidecar as its resume and count_failure_classes_as_zero do', () => {
    const ng = runs.reads.failed;
    const sidecar = readJsonl(path.join(runs.dirs.failed, 'failures.jsonl'));
    expect(ng.failures.map((f: any) => f.key.join(':')).sort()).toEqual(sidecar.map((f) => `${f._ng_task_index}:${f._ng_rollout_index}`).sort());
    expect(ng.failures.every((f: any) => f.class === 'agent_run_error')).toBe(true);
    // Counted as zero by NeMo Gym: scored rows of reward 0 and no failure fields, under the run's agent.
    expect(ng.counted_as_zero).toHaveLength(4);
    for (const row of ng.counted_as_zero) {
      expect(row).toMatchObject({ reward: 0, mask_sample: false, agent_ref: { name: 'example_single_tool_call_simple_agent' } });
      expect(Object.keys(row).some((k) => k.startsWith('_ng_failure_') || k === 'failure_kind')).toBe(false);
    }
  });
});

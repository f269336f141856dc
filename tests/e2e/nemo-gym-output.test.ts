// `--output-format nemo-gym` end to end (real Temporal dev server, in-process worker): the files NeMo Gym
// 0.7.0's rollout collection writes, beside rollouts.jsonl, with its fields, for a run that scores (mock
// policy on mcqa, two repeats) and for runs whose every rollout failed (a fake OpenAI upstream answering 500),
// one of them routed with num_repeats by agent (each repeat a task line of its own).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRunConfig } from '../../src/cli/commands/eval-run';
import { parseModelSpec } from '../../src/gateway/spec';
import { resolveConfigRun } from '../../src/routing/from-config';
import { PACKAGE_ROOT } from '../../src/util/paths';
import { startFakeOpenAIUpstream, type FakeOpenAIUpstream } from '../gateway/fake_openai_upstream';
import { gymHere } from '../helpers/gym-here';
import { runConfig, runInProcess, tempDir } from '../helpers/run';
import { startTestServer, type TestServer } from '../helpers/temporal-server';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/nemo-gym');
const readJsonl = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, any>);
const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

let server: TestServer;
let upstream: FakeOpenAIUpstream;
beforeAll(async () => {
  server = await startTestServer();
  upstream = await startFakeOpenAIUpstream();
  process.env.GYMFLOW_NG_OUTPUT_KEY = 'sk-test-not-a-secret';
});
afterAll(async () => {
  await upstream?.close();
  await server?.stop();
});

describe('gym eval run --output-format nemo-gym', () => {
  it("writes NeMo Gym's rollouts, materialized inputs, aggregate metrics and sidecar", async () => {
    const runDir = path.join(await tempDir('gymflow-ng-output-'), 'run');
    const config = buildRunConfig({
      env: 'mcqa',
      model: 'mock',
      'mock-accuracy': '0.5',
      'mock-seed': '3',
      input: path.join(FIXTURES, 'mcqa', 'example.jsonl'),
      output: runDir,
      'num-repeats': '2',
      'output-format': 'nemo-gym',
    });
    expect(config.outputFormat).toBe('nemo-gym');
    const result = await runInProcess(server, config);
    expect(result.metrics.rollouts_recorded).toBe(10);

    const rollouts = readJsonl(path.join(runDir, 'rollouts.jsonl'));
    for (const r of rollouts) {
      expect(r).toMatchObject({ mask_sample: false, failure_kind: null, agent_ref: { type: 'responses_api_agents', name: 'mcqa_simple_agent' } });
      // mcqa says why an answer scored 0; NeMo Gym's default (null) otherwise.
      expect(r.failure_reason).toBe(r.reward === 1 ? null : 'wrong_answer');
      expect(r.response.output.length).toBeGreaterThan(0);
      expect(r.response.usage).toHaveProperty('input_tokens');
      expect(typeof r._ng_task_index).toBe('number');
      expect(typeof r._ng_rollout_index).toBe('number');
      expect(typeof r._ng_rollout_id).toBe('string');
    }

    const materialized = readJsonl(path.join(runDir, 'rollouts_materialized_inputs.jsonl'));
    expect(materialized.map((m) => `${m._ng_task_index}:${m._ng_rollout_index}`).sort()).toEqual(rollouts.map((r) => `${r._ng_task_index}:${r._ng_rollout_index}`).sort());
    for (const m of materialized) {
      expect(m.agent_ref.name).toBe('mcqa_simple_agent');
      expect(m.responses_create_params.input[0].role).toBe('user');
    }

    expect(readFileSync(path.join(runDir, 'rollouts_failures.jsonl'), 'utf8')).toBe('');

    const [entry, ...others] = readJson(path.join(runDir, 'rollouts_aggregate_metrics.json'));
    expect(others).toEqual([]);
    expect(entry.agent_ref).toEqual({ name: 'mcqa_simple_agent' });
    const rewards = rollouts.map((r) => r.reward as number);
    expect(new Set(rewards).size).toBe(2);
    expect(entry.agent_metrics['mean/reward']).toBeCloseTo(rewards.reduce((a, b) => a + b, 0) / rewards.length, 12);
    expect(entry.agent_metrics.num_repeats).toBe(2);
    expect(entry.agent_metrics).not.toHaveProperty('mean/mask_sample');
    expect(entry.group_level_metrics.map((g: any) => g._ng_task_index)).toEqual([0, 1, 2, 3, 4]);
    expect(entry.repeat_level_metrics.map((g: any) => [g._ng_rollout_index, g.sample_count])).toEqual([
      [0, 5],
      [1, 5],
    ]);
    expect(Object.keys(entry.key_metrics)).toEqual(expect.arrayContaining(['mean/reward', 'pass@1[avg-of-2]/accuracy', 'pass@2/accuracy', 'majority@2/accuracy']));

    // `gym eval aggregate` rebuilds the same file from rollouts.jsonl alone.
    const again = await gymHere(['eval', 'aggregate', path.join(runDir, 'rollouts.jsonl'), '--output', '-']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual([entry]);
  });

  it('a run whose every rollout failed: each in the sidecar with NeMo Gym fields, counted as zero when asked', async () => {
    const runDir = await tempDir('gymflow-ng-output-');
    const config = {
      ...runConfig({ runDir, envName: 'example_single_tool_call', inputFile: path.join(FIXTURES, 'example_single_tool_call', 'example.jsonl'), limit: 2, numRepeats: 2, maximumAttempts: 1 }),
      model: parseModelSpec({ backend: 'openai', model: 'gpt-test', base_url: upstream.url, api_key_env: 'GYMFLOW_NG_OUTPUT_KEY' }),
      outputFormat: 'nemo-gym' as const,
      countAsZero: ['model_error' as const],
    };
    upstream.failWith(500, 'the upstream is overloaded');
    const result = await runInProcess(server, config);
    expect(result.metrics.rollouts_failed).toBe(4);

    const sidecar = readJsonl(path.join(runDir, 'failures.jsonl'));
    const failures = readJsonl(path.join(runDir, 'rollouts_failures.jsonl'));
    expect(failures.map((f) => f._ng_rollout_id).sort()).toEqual(sidecar.map((f) => f._ng_rollout_id).sort());
    for (const f of failures) {
      const own = sidecar.find((s) => s._ng_rollout_id === f._ng_rollout_id)!;
      expect(f).toMatchObject({
        agent_ref: { name: 'example_single_tool_call_simple_agent' },
        _ng_task_index: own._ng_task_index,
        _ng_rollout_index: own._ng_rollout_index,
        _ng_failure_class: 'agent_run_error',
        _ng_failure_message: own.message,
        _ng_failure_stage: 'model',
        _ng_failure_terminal: false,
        failure_kind: 'agent_request_failed',
        failure_reason: own.message,
        _gf_failure_class: 'model_error',
      });
      expect(f).not.toHaveProperty('reward');
    }
    expect(readJsonl(path.join(runDir, 'rollouts_materialized_inputs.jsonl'))).toHaveLength(4);
    // --count-as-zero model_error: the four enter the aggregate as scored zeros, as NeMo Gym counts them.
    const [entry] = readJson(path.join(runDir, 'rollouts_aggregate_metrics.json'));
    expect(entry.agent_ref).toEqual({ name: 'example_single_tool_call_simple_agent' });
    expect(entry.agent_metrics['mean/reward']).toBe(0);
    expect(entry.group_level_metrics.map((g: any) => g.num_rollouts)).toEqual([2, 2]);
    upstream.recover();
  });

  it('num_repeats by agent: each failure row carries its own task, agent and repeat', async () => {
    const dir = await tempDir('gymflow-ng-output-');
    // string_match's first row, played once by one agent and twice by the other, as the routing writes it.
    const row = { ...JSON.parse(readFileSync(path.join(FIXTURES, 'string_match', 'example.jsonl'), 'utf8').split('\n')[0]!), task_source: 'string_match' };
    writeFileSync(path.join(dir, 'input.jsonl'), JSON.stringify(row) + '\n');
    const routed = await resolveConfigRun({
      files: [path.resolve(import.meta.dirname, '../fixtures/routing/three-environments.yaml')],
      overrides: ['+agent_map={string_match: [string_match_simple_agent, string_match_second_agent]}', '+num_repeats={string_match_second_agent: 2, _default: 1}'],
      envYaml: '/dev/null',
      cwd: PACKAGE_ROOT,
      env: {},
      input: path.join(dir, 'input.jsonl'),
    });
    expect(routed.lines).toHaveLength(3);
    writeFileSync(path.join(dir, 'tasks.jsonl'), routed.lines.join('\n') + '\n');
    const runDir = path.join(dir, 'run');
    const config = {
      ...runConfig({ runDir, envName: 'string_match', inputFile: path.join(dir, 'tasks.jsonl'), numRepeats: routed.numRepeats, maximumAttempts: 1 }),
      model: parseModelSpec({ backend: 'openai', model: 'gpt-test', base_url: upstream.url, api_key_env: 'GYMFLOW_NG_OUTPUT_KEY' }),
      outputFormat: 'nemo-gym' as const,
      countAsZero: ['model_error' as const],
    };
    upstream.failWith(500, 'the upstream is overloaded');
    const result = await runInProcess(server, config);
    upstream.recover();
    expect(result.metrics.rollouts_failed).toBe(3);

    // What each failure should name, from the routed lines alone: its task, its repeat, its agent.
    const plays = routed.lines.map((l) => JSON.parse(l)).map((t) => `${t._ng_task_index}/${t._ng_rollout_index} ${t.agent_ref.name} ${t.task_source}`);
    const failures = readJsonl(path.join(runDir, 'rollouts_failures.jsonl'));
    expect(failures.map((f) => `${f._ng_task_index}/${f._ng_rollout_index} ${f.agent_ref.name} ${f.task_source}`).sort()).toEqual(plays.sort());
    const materialized = readJsonl(path.join(runDir, 'rollouts_materialized_inputs.jsonl'));
    expect(materialized.map((m) => `${m._ng_task_index}/${m._ng_rollout_index} ${m.agent_ref.name} ${m.task_source}`).sort()).toEqual(plays.sort());
    // Counted as zero, each under its own agent and task: the second agent's one task has two rollouts.
    const entries = readJson(path.join(runDir, 'rollouts_aggregate_metrics.json'));
    const groups = Object.fromEntries(entries.map((e: any) => [e.agent_ref.name, e.group_level_metrics.map((g: any) => g.num_rollouts)]));
    expect(groups).toEqual({ string_match_simple_agent: [1], string_match_second_agent: [2] });
  });
});

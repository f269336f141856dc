// Failures are data: a rollout whose model keeps failing exhausts its retries and goes to
// failures.jsonl with its class, message and attempt — never a fabricated reward 0 — and the same
// run resumed once the model is healthy records it. The API key never lands in a file or history.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseModelSpec } from '../../src/gateway/spec';
import { runWorkflowId } from '../../workflows/definitions';
import { startFakeOpenAIUpstream, type FakeOpenAIUpstream } from '../gateway/fake_openai_upstream';
import { expectFaultInvariants } from '../helpers/fault-invariants';
import { captureRunHistories } from '../helpers/histories';
import { runConfig, runInProcess, tempDir } from '../helpers/run';
import { startTestServer, type TestServer } from '../helpers/temporal-server';
import { filesUnder } from '../helpers/files';

const INPUT = path.resolve(import.meta.dirname, '../fixtures/nemo-gym/example_single_tool_call/example.jsonl');
const SECRET = 'sk-gymflow-test-secret-value-0123456789';

let server: TestServer;
let upstream: FakeOpenAIUpstream;
beforeAll(async () => {
  server = await startTestServer();
  upstream = await startFakeOpenAIUpstream();
  process.env.GYMFLOW_TEST_KEY = SECRET;
});
afterAll(async () => {
  await upstream?.close();
  await server?.stop();
});

describe('a model that keeps failing (fake OpenAI upstream answering HTTP 500)', () => {
  it('routes each rollout to the sidecar, then records it when resumed against a healthy model', async () => {
    const runDir = await tempDir('gymflow-failures-');
    const config = {
      ...runConfig({ runDir, envName: 'example_single_tool_call', inputFile: INPUT, limit: 3, numRepeats: 2, maximumAttempts: 2 }),
      model: parseModelSpec({ backend: 'openai', model: 'gpt-test', base_url: upstream.url, api_key_env: 'GYMFLOW_TEST_KEY' }),
    };
    upstream.failWith(500, 'the upstream is overloaded');
    const failed = await runInProcess(server, config);

    expect(failed.metrics.rollouts_recorded).toBe(0);
    expect(failed.metrics.rollouts_failed).toBe(6);
    expect(failed.metrics.coverage).toBe(0);
    expect(failed.metrics.mean_reward).toBeNull();
    expect(failed.metrics.failure_classes).toEqual({ model_error: 6 });
    await expectFaultInvariants(runDir, { tasks: 3, repeats: 2, env: 'example_single_tool_call', sidecarClasses: ['model_error'] });
    const sidecar = readFileSync(path.join(runDir, 'failures.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(sidecar).toHaveLength(6);
    for (const f of sidecar) {
      expect(f._ng_failure_class).toBe('model_error');
      expect(f.stage).toBe('model');
      expect(f.attempt).toBe(2);
      expect(f.message).toMatch(/HTTP 502/);
      expect(f).not.toHaveProperty('reward');
    }
    expect(readFileSync(path.join(runDir, 'rollouts.jsonl'), { encoding: 'utf8', flag: 'a+' })).toBe('');
    // Two attempts per rollout reached the upstream, each with the key from the environment variable.
    expect(upstream.requests).toHaveLength(12);
    expect(upstream.requests.every((r) => r.headers.authorization === `Bearer ${SECRET}`)).toBe(true);

    // The health checks see the failed calls in the call log: every rollout ended on one, no task got an answer.
    const health = JSON.parse(readFileSync(path.join(runDir, 'quality_summary.json'), 'utf8'));
    expect(health.run.verdicts).toEqual({ healthy: 0, unhealthy: 6, unobserved: 0 });
    expect(health.run.rollouts_flagged).toMatchObject({ rollout_failed: 6, rollout_ended_on_failed_model_call: 6, task_no_successful_model_calls: 3 });
    expect(health.run.stats.model_call_errors).toEqual({ total: 12, by_status: { '502': 12 }, rollouts_affected: 6, ended_on_error: 6 });

    upstream.recover();
    const resumed = await runInProcess(server, config);
    // Played again, each rollout's last call succeeded: the failed attempts before it leave it healthy.
    const after = JSON.parse(readFileSync(path.join(runDir, 'quality_summary.json'), 'utf8'));
    expect(after.run.verdicts).toEqual({ healthy: 6, unhealthy: 0, unobserved: 0 });
    expect(after.run.stats.model_call_errors).toMatchObject({ total: 12, rollouts_affected: 6, ended_on_error: 0 });
    expect(resumed.metrics.rollouts_recorded).toBe(6);
    expect(resumed.metrics.rollouts_failed).toBe(0);
    expect(resumed.metrics.coverage).toBe(1);
    expect(readFileSync(path.join(runDir, 'failures.jsonl'), 'utf8')).toBe('');
    await expectFaultInvariants(runDir, { tasks: 3, repeats: 2, env: 'example_single_tool_call' });

    // The key is referenced by name only: not in any file of the run, not in any workflow history.
    for (const file of filesUnder(runDir)) expect(readFileSync(file, 'utf8')).not.toContain(SECRET);
    const histories = await captureRunHistories(await server.client(), runWorkflowId(config.runId));
    // The run and its shard, each run twice (the failing run and its resume).
    expect(histories.length).toBeGreaterThanOrEqual(4);
    for (const h of histories) expect(h.json).not.toContain(SECRET);
  });
});

describe('a judge model that keeps failing', () => {
  it('routes judge-graded rollouts to the sidecar as judge_failed, never as reward 0', async () => {
    const fixtures = path.resolve(import.meta.dirname, '../fixtures/nemo-gym/equivalence_llm_judge');
    const runDir = await tempDir('gymflow-judge-failures-');
    const config = {
      ...runConfig({
        runDir,
        envName: 'equivalence_llm_judge',
        inputFile: path.join(fixtures, 'example_openqa.jsonl'),
        limit: 2,
        maximumAttempts: 2,
        model: { replay_files: [path.join(fixtures, 'example_rollouts_openqa.jsonl')] },
      }),
      judgeModel: parseModelSpec({ backend: 'openai', model: 'judge-test', base_url: upstream.url, api_key_env: 'GYMFLOW_TEST_KEY' }),
    };
    upstream.failWith(503, 'judge overloaded');
    const result = await runInProcess(server, config);
    expect(result.metrics.rollouts_recorded).toBe(0);
    expect(result.metrics.failure_classes).toEqual({ judge_failed: 2 });
    const sidecar = readFileSync(path.join(runDir, 'failures.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(sidecar.map((f) => [f._ng_failure_class, f.stage, f.attempt])).toEqual([
      ['judge_failed', 'verify', 2],
      ['judge_failed', 'verify', 2],
    ]);
    expect(sidecar[0].message).toMatch(/judge call failed/);
    upstream.recover();
  });
});

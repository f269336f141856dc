// Real harness CLIs (installed from npm by `gym setup --harnesses`, as .ci/run does) play swe_repair tasks
// under a durable run: real Temporal dev server, real gateway and mock model, real local (bubblewrap) sandbox.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxProvider } from '../../src/sandboxes/registry';
import { exportTraining } from '../../src/training/export';
import { runConfig, runInProcess, tempDir } from '../helpers/run';
import { startTestServer, type TestServer } from '../helpers/temporal-server';

const TASKS = path.resolve(import.meta.dirname, '../../src/environments/swe_repair/data/example.jsonl');
/** The harnesses CI installs (.ci/run): those that run end to end here. */
const HARNESSES = ['pi', 'opencode', 'codex', 'claude-code'] as const;

function jsonl(file: string): any[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
}

function calls(runDir: string): any[] {
  const dir = path.join(runDir, 'model_calls');
  return readdirSync(dir).flatMap((f) => jsonl(path.join(dir, f)));
}

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

async function play(harness: string, accuracy: number) {
  const runDir = await tempDir(`gymflow-harness-${harness}-`);
  const env = { name: 'swe_repair', harness: { name: harness, timeout_ms: 240_000 } };
  const result = await runInProcess(server, runConfig({ runDir, env: env as any, inputFile: TASKS, limit: 1, durability: 'rollout', model: { accuracy }, maximumAttempts: 1 }));
  return { runDir, result, records: jsonl(path.join(runDir, 'rollouts.jsonl')), failures: jsonl(path.join(runDir, 'failures.jsonl')) };
}

describe.each(HARNESSES)('%s in a durable run', (harness) => {
  it('repairs the repository, the hidden tests reward it, its calls are logged with token ids, and its sandbox is gone', async () => {
    const { runDir, records, failures } = await play(harness, 1);
    expect(failures).toEqual([]);
    expect(records).toHaveLength(1);
    const [record] = records;
    // The hidden tests' own verdict, run in the sandbox after the harness finished.
    expect(record.reward).toBe(1);
    expect(record.tests_exit_code).toBe(0);
    expect(record.tests_output).toMatch(/\nOK\s*$/);
    expect(record._gf_harness).toMatchObject({ name: harness, exit_code: 0 });
    expect(record._gf_harness.tool_calls.length).toBeGreaterThan(0);

    const logged = calls(runDir).filter((c) => c.rollout_id === record._ng_rollout_id);
    expect(logged.length).toBeGreaterThanOrEqual(2);
    expect(record._gf_model_call_ids.sort()).toEqual(logged.map((c) => c.call_id).sort());
    for (const call of logged) {
      expect(call.status).toBe(200);
      expect(call.tokens.generation_token_ids.length).toBeGreaterThan(0);
    }
    expect(existsSync(path.join(runDir, 'harness'))).toBe(true);
    const provider = await sandboxProvider('local');
    expect(await provider.list({ run: path.basename(runDir) })).toEqual([]);

    // Training mode: one response for the episode, its generated ids the captured ones.
    const out = path.join(runDir, 'training.jsonl');
    const summary = await exportTraining(runDir, { output: out });
    expect(summary.exported).toBe(1);
    const [line] = jsonl(out);
    expect(line.masked).toBe(false);
    expect(line.calls.length).toBeGreaterThan(0);
    for (const used of line.calls) {
      const call = logged.find((c) => c.call_id === used.call_id);
      expect(line.response_token_ids.slice(used.generation_start, used.generation_start + used.generation_tokens)).toEqual(call.tokens.generation_token_ids);
    }
  }, 600_000);
});

describe('a harness that does not repair the repository', () => {
  it('gets reward 0 from the hidden tests, recorded (not a failure)', async () => {
    const { records, failures } = await play('pi', 0);
    expect(failures).toEqual([]);
    expect(records).toHaveLength(1);
    expect(records[0].reward).toBe(0);
    expect(records[0].failure_reason).toBe('tests_failed');
  }, 600_000);
});

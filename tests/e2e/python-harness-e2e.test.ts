// A Python harness from PyPI — Harbor's Terminus-2 (`harbor`, installed by `gym setup --harnesses`, as .ci/run
// does) — plays a swe_repair task under durable runs in a local (bubblewrap) jail: one real Temporal dev server,
// the real gateway and its mock model (which answers in Terminus-2's JSON keystroke format), real tmux, and the
// task's hidden tests deciding the reward.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getEnvironment } from '../../src/environments/registry';
import { isGymError } from '../../src/errors';
import { getHarness } from '../../src/harnesses/registry';
import { runHarnessRollout } from '../../src/harnesses/run';
import type { SandboxProvider } from '../../src/sandboxes/provider';
import { sandboxProvider } from '../../src/sandboxes/registry';
import { exportTraining } from '../../src/training/export';
import { backgroundRuns, harnessTraces, jsonlIfPresent, modelCalls, runOutcome } from '../helpers/run-folder';
import { runConfig, runInProcess, tempDir } from '../helpers/run';
import { startTestServer, type TestServer } from '../helpers/temporal-server';

const TASKS = path.resolve(import.meta.dirname, '../../src/environments/swe_repair/data/example.jsonl');
const HARNESS_TIMEOUT_MS = 300_000;
const TEST_TIMEOUT_MS = 600_000;

interface Played {
  runDir: string;
  runId: string;
  records: any[];
  failures: any[];
  traces: any[];
}

interface Play {
  accuracy: number;
  timeoutMs?: number;
  maxModelCalls?: number;
  latencyMs?: number;
}

async function play(p: Play): Promise<Played> {
  const runDir = await tempDir('gymflow-harness-terminus-2-');
  const harness = { name: 'terminus-2', sandbox: 'local', timeout_ms: p.timeoutMs ?? HARNESS_TIMEOUT_MS, ...(p.maxModelCalls ? { max_model_calls: p.maxModelCalls } : {}) };
  const env = { name: 'swe_repair', harness };
  const config = runConfig({ runDir, env: env as any, inputFile: TASKS, limit: 1, durability: 'rollout', model: { accuracy: p.accuracy, latency_ms: p.latencyMs ?? 0 }, maximumAttempts: 1 });
  await runInProcess(server, config);
  return { runDir, runId: config.runId, ...runOutcome(runDir), traces: harnessTraces(runDir) };
}

let server: TestServer;
let local: SandboxProvider;
const plays = backgroundRuns<Played>();

beforeAll(async () => {
  server = await startTestServer();
  local = await sandboxProvider('local');
  const runs: Record<string, Play> = {
    right: { accuracy: 1 },
    wrong: { accuracy: 0 },
    // The second call is over the cap: Harbor's client retries the refusal, then the agent gives up.
    cap: { accuracy: 1, maxModelCalls: 1 },
    // The mock answers after 10 minutes: the driver is killed at its 20 s deadline, mid-call.
    timeout: { accuracy: 1, timeoutMs: 20_000, latencyMs: 600_000 },
  };
  for (const [name, p] of Object.entries(runs)) plays.start(name, () => play(p));
}, 120_000);

afterAll(async () => {
  await plays.settled();
  await server?.stop();
}, TEST_TIMEOUT_MS);

describe('terminus-2 in a durable run (local sandbox)', () => {
  it(
    'repairs the repository by typing into its terminal, the hidden tests reward it, its calls are logged with token ids, and its sandbox is gone',
    async () => {
      const {
        runDir,
        runId,
        records,
        failures,
        traces: [trace, ...more],
      } = await plays.get('right');
      expect(failures).toEqual([]);
      expect(records).toHaveLength(1);
      const [record] = records;
      // The hidden tests' own verdict, run in the sandbox after Terminus-2 finished.
      expect(record.reward).toBe(1);
      expect(record.tests_exit_code).toBe(0);
      expect(record.tests_output).toMatch(/\nOK\s*$/);
      expect(record._gf_harness).toMatchObject({ name: 'terminus-2', exit_code: 0 });
      // Read back from Harbor's own trajectory: the keystroke batch, with what the terminal showed after it.
      const typed = record._gf_harness.tool_calls.find((c: any) => c.name === 'bash_command');
      expect(JSON.parse(typed.arguments).keystrokes).toContain('base64 -d >');
      expect(typed.output).toContain('New Terminal Output');
      expect(record._gf_harness.tool_calls.filter((c: any) => c.name === 'mark_task_complete')).toHaveLength(2);

      // Typing, claiming completion, confirming it: every call through the gateway, with token ids.
      const logged = modelCalls(runDir).filter((c) => c.rollout_id === record._ng_rollout_id);
      expect(logged).toHaveLength(3);
      expect(record._gf_model_call_ids.sort()).toEqual(logged.map((c) => c.call_id).sort());
      for (const call of logged) {
        expect(call.status).toBe(200);
        expect(call.tokens.generation_token_ids.length).toBeGreaterThan(0);
      }

      expect(more).toEqual([]);
      expect(trace).toMatchObject({ harness: 'terminus-2', package: { name: 'harbor', version: '0.25.0' }, exitCode: 0 });
      expect(trace.sandboxId).toMatch(/^sbx-[0-9a-f]{16}$/);
      expect(trace.sandbox_labels.run).toBe(runId);
      expect(await local.list({ run: runId })).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'exports one training response for the episode, its generated ids the captured ones',
    async () => {
      const { runDir, records } = await plays.get('right');
      const logged = modelCalls(runDir).filter((c) => c.rollout_id === records[0]._ng_rollout_id);
      const out = path.join(runDir, 'training.jsonl');
      const summary = await exportTraining(runDir, { output: out });
      expect(summary.exported).toBe(1);
      const [line] = jsonlIfPresent(out);
      expect(line.masked).toBe(false);
      expect(line.calls).toHaveLength(logged.length);
      for (const used of line.calls) {
        const call = logged.find((c) => c.call_id === used.call_id);
        expect(line.response_token_ids.slice(used.generation_start, used.generation_start + used.generation_tokens)).toEqual(call.tokens.generation_token_ids);
      }
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'gets reward 0 from the hidden tests when it claims completion without repairing (recorded, not a failure)',
    async () => {
      const { records, failures, runId } = await plays.get('wrong');
      expect(failures).toEqual([]);
      expect(records).toHaveLength(1);
      expect(records[0].reward).toBe(0);
      expect(records[0].failure_reason).toBe('tests_failed');
      expect(await local.list({ run: runId })).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );
});

describe('terminus-2 that fails is a classified failure in the sidecar, never a reward', () => {
  it(
    'stopped by the model-call cap: `cap_exceeded`, the refused calls logged, its sandbox gone',
    async () => {
      const played = await plays.get('cap');
      expect(played.records).toEqual([]);
      expect(played.failures).toHaveLength(1);
      expect(played.failures[0]._ng_failure_class).toBe('cap_exceeded');
      expect(played.failures[0]).not.toHaveProperty('reward');
      const refused = modelCalls(played.runDir).filter((c) => c.error);
      expect(refused.length).toBeGreaterThan(0);
      expect(refused.every((c) => c.error.code === 'rollout_cap_exceeded')).toBe(true);
      expect(played.traces[0]).not.toHaveProperty('verify');
      expect(await local.list({ run: played.runId })).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'past its deadline: killed, `timeout`, its trace kept',
    async () => {
      const played = await plays.get('timeout');
      expect(played.records).toEqual([]);
      expect(played.failures).toHaveLength(1);
      expect(played.failures[0]._ng_failure_class).toBe('timeout');
      expect(played.traces).toHaveLength(1);
      expect(played.traces[0]).toMatchObject({ harness: 'terminus-2', timedOut: true, exitCode: null });
      expect(await local.list({ run: played.runId })).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );
});

it("refuses a sandbox made from an image before making one: its Python and tmux are the worker's", async () => {
  const env = getEnvironment('swe_repair');
  const [task] = jsonlIfPresent(TASKS);
  const refused = await runHarnessRollout({
    harness: getHarness('terminus-2'),
    provider: local,
    env,
    task,
    labels: { run: 'refused', rollout: 'r0', attempt: 1, user: 'test' },
    image: '/nonexistent-rootfs',
    baseUrl: 'http://127.0.0.1:1/r/x/v1',
    apiKey: 'unused',
    model: 'mock',
    timeoutMs: 10_000,
  }).catch((e) => e);
  expect(isGymError(refused) && refused.code).toBe('SETUP_FAILED');
  expect(refused.message).toContain('--sandbox-image');
  expect(await local.list({ run: 'refused' })).toEqual([]);
});

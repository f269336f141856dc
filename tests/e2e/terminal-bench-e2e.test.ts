// Terminal-Bench 2.1 end to end: a durable eval (real Temporal dev server, gateway and mock model) in which
// real harness CLIs (installed by `gym setup --harnesses`, as .ci/run does) play the example tasks in real
// containers (a private dockerd, the task image built offline by scripts/setup-docker.sh; needs root), and
// each task's own tests/test.sh, run in the same container afterwards, writes the reward.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DockerProvider } from '../../src/sandboxes/docker/provider';
import { sandboxProvider } from '../../src/sandboxes/registry';
import { startTestDockerEngine, type TestDockerEngine } from '../helpers/docker-engine';
import { backgroundRuns, modelCalls, runOutcome } from '../helpers/run-folder';
import { runConfig, runInProcess, tempDir } from '../helpers/run';
import { expectNothingLeftBehind, privateTmpdir, scratchFolders } from '../helpers/sandbox-leftovers';
import { startTestServer, type TestServer } from '../helpers/temporal-server';

const TASKS = path.resolve(import.meta.dirname, '../../src/environments/terminal_bench_2_1/data/example.jsonl');
const ANYTERMINAL_TASKS = path.resolve(import.meta.dirname, '../../src/environments/terminal_bench_2_1/data/example_anyterminal.jsonl');
/** openclaw needs tens of CPU-seconds before its first call: generous on a shared 2-core machine. */
const HARNESS_TIMEOUT_MS = 420_000;
const TEST_TIMEOUT_MS = 900_000;

interface Played {
  runDir: string;
  runId: string;
  records: any[];
  failures: any[];
  calls: any[];
}

let server: TestServer;
let docker: TestDockerEngine;
let provider: DockerProvider;
const dockerHostBefore = process.env.DOCKER_HOST;
let scratchBefore: Set<string>;
const plays = backgroundRuns<Played>();

interface Play {
  harness: string;
  model: { accuracy: number; seed: number };
  limit?: number;
  inputFile?: string;
  options?: Record<string, unknown>;
  sandbox?: 'docker' | 'local';
}

async function play(p: Play): Promise<Played> {
  const runDir = await tempDir(`gymflow-tb-${p.harness}-`);
  const env = {
    name: 'terminal_bench_2_1',
    options: p.options ?? {},
    harness: { name: p.harness, sandbox: p.sandbox ?? 'docker', ...(p.sandbox === 'local' ? {} : { sandbox_image: docker.image }), timeout_ms: HARNESS_TIMEOUT_MS },
  };
  const config = runConfig({ runDir, env: env as any, inputFile: p.inputFile ?? TASKS, durability: 'rollout', model: p.model, maximumAttempts: 1, ...(p.limit ? { limit: p.limit } : {}) });
  await runInProcess(server, config);
  return { runDir, runId: config.runId, ...runOutcome(runDir), calls: modelCalls(runDir) };
}

const start = plays.start;

beforeAll(async () => {
  privateTmpdir();
  scratchBefore = scratchFolders();
  server = await startTestServer();
  docker = await startTestDockerEngine();
  // The in-process worker's docker provider finds the engine as any worker would: DOCKER_HOST.
  process.env.DOCKER_HOST = `unix://${docker.socketPath}`;
  provider = (await sandboxProvider('docker', { socketPath: docker.socketPath })) as DockerProvider;
  // Seed 3 at accuracy 0.5: the mock's per-rollout draw plays the first task right and the second wrong.
  start('pi', () => play({ harness: 'pi', model: { accuracy: 0.5, seed: 3 } }));
  start('openclaw', () => play({ harness: 'openclaw', model: { accuracy: 1, seed: 0 }, limit: 1 }));
  // AnyTerminal's rows (the task in responses_create_params.metadata) scored by its rule.
  // The same in a local (bubblewrap) jail: /tests and /logs/verifier are its scratch mounts too.
  start('local', () => play({ harness: 'pi', model: { accuracy: 1, seed: 0 }, limit: 1, sandbox: 'local' }));
  start('anyterminal', () => play({ harness: 'pi', model: { accuracy: 1, seed: 0 }, limit: 1, inputFile: ANYTERMINAL_TASKS, options: { reward_rule: 'anyterminal' } }));
}, 300_000);
afterAll(async () => {
  await plays.settled();
  if (dockerHostBefore === undefined) delete process.env.DOCKER_HOST;
  else process.env.DOCKER_HOST = dockerHostBefore;
  await provider?.close();
  await docker?.stop();
  await server?.stop();
}, TEST_TIMEOUT_MS);

const byTask = (records: any[]) => new Map(records.map((r) => [r.task_name, r]));
const solveCalls = (record: any) => record.response.output.filter((i: any) => i.type === 'function_call' && i.arguments.includes('gymflow-solve.sh'));

describe('terminal_bench_2_1 played by pi in a durable eval (docker sandbox)', () => {
  it(
    "solves one task and fails the other, each reward written by the task's own tests in the harness's container",
    async () => {
      const { records, failures, calls } = await plays.get('pi');
      expect(failures).toEqual([]);
      expect(records).toHaveLength(2);
      const tasks = byTask(records);
      const solved = tasks.get('gymflow/log-error-summary');
      const failed = tasks.get('gymflow/fix-word-frequency');
      // The policy ran the reference solution through pi's bash tool; the tests' unittest run passed.
      expect(solveCalls(solved)).toHaveLength(1);
      expect(solved).toMatchObject({ reward: 1, evaluation_completed: true, failure_reason: null, tests_timed_out: false, golden_patch_output: null });
      expect(solved.test_output).toMatch(/test_counts .* ok[\s\S]*\nOK\n$/);
      // Played wrong, the policy finished without touching /app: the same tests fail, and say which.
      expect(solveCalls(failed)).toHaveLength(0);
      expect(failed).toMatchObject({ reward: 0, evaluation_completed: true, failure_reason: 'tests_failed' });
      expect(failed.test_output).toMatch(/FAIL: test_hidden[\s\S]*FAILED \(failures=2\)/);
      for (const record of records) {
        expect(record._gf_harness).toMatchObject({ name: 'pi', exit_code: 0 });
        const logged = calls.filter((c) => c.rollout_id === record._ng_rollout_id);
        expect(logged.length).toBeGreaterThanOrEqual(1);
        expect(record._gf_model_call_ids.sort()).toEqual(logged.map((c) => c.call_id).sort());
        for (const call of logged) expect(call.tokens.generation_token_ids.length).toBeGreaterThan(0);
      }
    },
    TEST_TIMEOUT_MS,
  );
});

describe('terminal_bench_2_1 played by openclaw in a durable eval (docker sandbox)', () => {
  it(
    'solves the task through its exec tool, rewarded by the tests',
    async () => {
      const { records, failures } = await plays.get('openclaw');
      expect(failures).toEqual([]);
      expect(records).toHaveLength(1);
      const [record] = records;
      expect(record.task_name).toBe('gymflow/log-error-summary');
      expect(solveCalls(record)).toHaveLength(1);
      expect(record).toMatchObject({ reward: 1, evaluation_completed: true, failure_reason: null });
      expect(record._gf_harness).toMatchObject({ name: 'openclaw', exit_code: 0 });
    },
    TEST_TIMEOUT_MS,
  );
});

describe('terminal_bench_2_1 played by pi in a durable eval (local sandbox)', () => {
  it(
    'solves the task in a bubblewrap jail, rewarded by its tests there',
    async () => {
      const { records, failures } = await plays.get('local');
      expect(failures).toEqual([]);
      expect(records).toHaveLength(1);
      expect(solveCalls(records[0])).toHaveLength(1);
      expect(records[0]).toMatchObject({ task_name: 'gymflow/log-error-summary', reward: 1, evaluation_completed: true, failure_reason: null });
    },
    TEST_TIMEOUT_MS,
  );
});

describe("terminal_bench_2_1 on AnyTerminal's rows, by AnyTerminal's rule (pi, docker sandbox)", () => {
  it(
    'plays the task its metadata names and records resolved with a 1.0 reward',
    async () => {
      const { records, failures } = await plays.get('anyterminal');
      expect(failures).toEqual([]);
      expect(records).toHaveLength(1);
      const [record] = records;
      expect(record.responses_create_params.metadata).toMatchObject({ instance_id: 'terminal_bench::log-error-summary' });
      expect(record).toMatchObject({ task_name: 'log-error-summary', reward: 1, resolved: true, evaluation_completed: true });
    },
    TEST_TIMEOUT_MS,
  );
});

describe('after the runs', () => {
  it(
    'leaves no sandbox and no scratch folder behind',
    async () => {
      const played = await plays.all();
      await expectNothingLeftBehind(
        [provider, await sandboxProvider('local')],
        played.map((p) => p.runId),
        scratchBefore,
      );
    },
    TEST_TIMEOUT_MS,
  );
});

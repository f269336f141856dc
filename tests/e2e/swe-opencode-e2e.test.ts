// SWE-bench and DeepSWE task shapes played by the real OpenCode CLI (installed by `gym setup --harnesses`, as .ci/run
// does) in durable evals: a real Temporal dev server, gateway and mock model; real containers of a private dockerd
// (the task image built offline by scripts/setup-docker.sh; needs root), one run in a local jail. Each rollout's patch
// is taken from OpenCode's sandbox and graded in a fresh one, as NeMo Gym's swebench and deepswe servers grade it.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DockerProvider } from '../../src/sandboxes/docker/provider';
import { sandboxProvider } from '../../src/sandboxes/registry';
import { startTestDockerEngine, type TestDockerEngine } from '../helpers/docker-engine';
import { runConfig, runInProcess, tempDir } from '../helpers/run';
import { backgroundRuns, jsonlIfPresent, modelCalls, runOutcome } from '../helpers/run-folder';
import { expectNothingLeftBehind, privateTmpdir, scratchFolders } from '../helpers/sandbox-leftovers';
import { startTestServer, type TestServer } from '../helpers/temporal-server';

const DATA = path.resolve(import.meta.dirname, '../../src/environments');
const SWEBENCH_ROWS = path.join(DATA, 'swebench/data/example.jsonl');
const DEEPSWE_ROWS = path.join(DATA, 'deepswe/data/example.jsonl');
const HARNESS_TIMEOUT_MS = 300_000;
const TEST_TIMEOUT_MS = 600_000;

interface Played {
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

async function play(env: string, inputFile: string, p: { accuracy: number; seed: number; limit?: number; sandbox?: 'docker' | 'local' }): Promise<Played> {
  const runDir = await tempDir(`gymflow-${env}-opencode-`);
  const sandbox = p.sandbox ?? 'docker';
  const harness = { name: 'opencode', sandbox, ...(sandbox === 'docker' ? { sandbox_image: docker.image } : {}), timeout_ms: HARNESS_TIMEOUT_MS };
  const config = runConfig({
    runDir,
    env: { name: env, harness } as any,
    inputFile,
    durability: 'rollout',
    model: { accuracy: p.accuracy, seed: p.seed },
    maximumAttempts: 1,
    ...(p.limit ? { limit: p.limit } : {}),
  });
  await runInProcess(server, config);
  return { runId: config.runId, ...runOutcome(runDir), calls: modelCalls(runDir) };
}

beforeAll(async () => {
  privateTmpdir();
  scratchBefore = scratchFolders();
  server = await startTestServer();
  // The jail's run starts while the engine comes up and imports the image.
  plays.start('swebench-local', () => play('swebench', SWEBENCH_ROWS, { accuracy: 1, seed: 0, limit: 1, sandbox: 'local' }));
  docker = await startTestDockerEngine();
  // The in-process worker's docker provider finds the engine as any worker would: DOCKER_HOST.
  process.env.DOCKER_HOST = `unix://${docker.socketPath}`;
  provider = (await sandboxProvider('docker', { socketPath: docker.socketPath })) as DockerProvider;
  // Seed 6 at accuracy 0.5: the mock's per-rollout draw plays each file's first task right and its second wrong.
  plays.start('swebench', () => play('swebench', SWEBENCH_ROWS, { accuracy: 0.5, seed: 6 }));
  plays.start('deepswe', () => play('deepswe', DEEPSWE_ROWS, { accuracy: 0.5, seed: 6 }));
}, 300_000);
afterAll(async () => {
  await plays.settled();
  if (dockerHostBefore === undefined) delete process.env.DOCKER_HOST;
  else process.env.DOCKER_HOST = dockerHostBefore;
  await provider?.close();
  await docker?.stop();
  await server?.stop();
}, TEST_TIMEOUT_MS);

/** The oracle's shell call applying the task's reference fix (through OpenCode's bash tool). */
const fixCalls = (record: any) => record.response.output.filter((i: any) => i.type === 'function_call' && i.arguments.includes('gymflow-fix.patch'));

function expectOpencodeRecords(played: Played): void {
  for (const record of played.records) {
    expect(record._gf_harness).toMatchObject({ name: 'opencode', exit_code: 0 });
    const logged = played.calls.filter((c) => c.rollout_id === record._ng_rollout_id);
    expect(logged.length).toBeGreaterThanOrEqual(1);
    expect(record._gf_model_call_ids.sort()).toEqual(logged.map((c) => c.call_id).sort());
  }
}

describe('swebench played by opencode in a durable eval (docker sandboxes)', () => {
  it(
    "resolves one task and not the other: each git diff applied in a fresh container and graded by SWE-bench's eval script and log parser",
    async () => {
      const played = await plays.get('swebench');
      expect(played.failures).toEqual([]);
      expect(played.records).toHaveLength(2);
      const rows = jsonlIfPresent(SWEBENCH_ROWS);
      const byId = new Map(played.records.map((r) => [r.instance_id, r]));
      const solved = byId.get('gymflow__textkit-1');
      const failed = byId.get('gymflow__textkit-2');
      // The policy applied the gold patch through OpenCode's bash tool; its git diff is exactly that patch.
      expect(fixCalls(solved)).toHaveLength(1);
      expect(solved).toMatchObject({ reward: 1, resolved: true, evaluation_completed: true, failure_reason: null, model_patch: rows[0].patch, repo: 'gymflow/textkit', log_dir: '' });
      expect(solved.tests_status.FAIL_TO_PASS).toEqual({ success: JSON.parse(rows[0].FAIL_TO_PASS), failure: [] });
      expect(solved.test_output).toMatch(/test_repeated_whitespace \(tests\.test_words\.WordCountTest\.test_repeated_whitespace\) \.\.\. ok/);
      // Played wrong, the policy finished without touching /testbed: an empty diff, the same tests fail.
      expect(fixCalls(failed)).toHaveLength(0);
      expect(failed).toMatchObject({ reward: 0, resolved: false, evaluation_completed: true, failure_reason: 'tests_failed', model_patch: null });
      expect(failed.tests_status.FAIL_TO_PASS.failure).toEqual(JSON.parse(rows[1].FAIL_TO_PASS));
      expectOpencodeRecords(played);
    },
    TEST_TIMEOUT_MS,
  );
});

describe('deepswe played by opencode in a durable eval (docker sandboxes)', () => {
  it(
    "rewards the committed solution and not the untouched repository: each collected diff verified by the task's own verifier in a fresh container",
    async () => {
      const played = await plays.get('deepswe');
      expect(played.failures).toEqual([]);
      expect(played.records).toHaveLength(2);
      const byId = new Map(played.records.map((r) => [r.task_id, r]));
      const solved = byId.get('ledger-running-balance');
      const failed = byId.get('ledger-csv-export');
      expect(fixCalls(solved)).toHaveLength(1);
      expect(solved).toMatchObject({ reward: 1, evaluation_completed: true, apply_failed: false, f2p_total: 3, f2p_passed: 3, p2p_total: 2, p2p_passed: 2, partial: 1, failure_reason: null });
      expect(solved.model_patch).toContain('+def running_balance(entries):');
      expect(solved.test_output).toMatch(/reward 1\.0: fail-to-pass 3\/3, pass-to-pass 2\/2/);
      expect(fixCalls(failed)).toHaveLength(0);
      expect(failed).toMatchObject({ reward: 0, evaluation_completed: true, f2p_passed: 0, p2p_passed: 2, model_patch: '', model_patch_bytes: 0, failure_reason: 'tests_failed' });
      expectOpencodeRecords(played);
    },
    TEST_TIMEOUT_MS,
  );
});

describe('swebench played by opencode in a durable eval (local sandboxes)', () => {
  it(
    'resolves the task in a bubblewrap jail, graded in a fresh one',
    async () => {
      const played = await plays.get('swebench-local');
      expect(played.failures).toEqual([]);
      expect(played.records).toHaveLength(1);
      expect(fixCalls(played.records[0])).toHaveLength(1);
      expect(played.records[0]).toMatchObject({ instance_id: 'gymflow__textkit-1', reward: 1, resolved: true, evaluation_completed: true });
    },
    TEST_TIMEOUT_MS,
  );
});

describe('after the runs', () => {
  it(
    'leaves no sandbox, harness or verifier, and no scratch folder behind',
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

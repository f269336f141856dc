// Real harness CLIs (installed from npm by `gym setup --harnesses`, as .ci/run does) play swe_repair tasks
// under durable runs: one real Temporal dev server, real gateway and mock model; five harnesses in real
// containers (a private dockerd, the task image built offline by scripts/setup-docker.sh; needs root, as
// the docker sandbox tests do), two in local (bubblewrap) jails. Every run starts at once, so the file
// takes about as long as its slowest harness.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isGymError } from '../../src/errors';
import { parseModelSpec } from '../../src/gateway/spec';
import type { RunConfig } from '../../src/runs/manifest';
import type { DockerProvider } from '../../src/sandboxes/docker/provider';
import type { SandboxProvider } from '../../src/sandboxes/provider';
import { sandboxProvider } from '../../src/sandboxes/registry';
import { exportTraining } from '../../src/training/export';
import { startTestDockerEngine, type TestDockerEngine } from '../helpers/docker-engine';
import { backgroundRuns, harnessTraces, jsonlIfPresent, modelCalls, runOutcome } from '../helpers/run-folder';
import { runConfig, runInProcess, tempDir } from '../helpers/run';
import { startTestServer, type TestServer } from '../helpers/temporal-server';

const TASKS = path.resolve(import.meta.dirname, '../../src/environments/swe_repair/data/example.jsonl');
/** Every harness CI installs (.ci/run); cline is evaluation-only. */
const HARNESSES = ['pi', 'opencode', 'codex', 'claude-code', 'kilo', 'openclaw', 'cline'] as const;
const TRAINABLE = HARNESSES.filter((h) => h !== 'cline');
type Provider = 'docker' | 'local';
/**
 * Where each harness plays: OpenCode and four more in containers, so both providers carry real harnesses
 * (native binaries and Node scripts on the mounted Node alike) at the cost of one run each.
 */
const SANDBOX: Record<(typeof HARNESSES)[number], Provider> = {
  opencode: 'docker',
  pi: 'docker',
  codex: 'docker',
  'claude-code': 'docker',
  openclaw: 'docker',
  kilo: 'local',
  cline: 'local',
};
/** What a sandbox's id looks like per provider: the trace names the sandbox the harness really ran in. */
const SANDBOX_ID: Record<Provider, RegExp> = { docker: /^gymflow-[0-9a-f]{12}$/, local: /^sbx-[0-9a-f]{16}$/ };
/** kilo and openclaw need tens of CPU-seconds before their first call: generous on a shared 2-core machine. */
const HARNESS_TIMEOUT_MS = 420_000;
const TEST_TIMEOUT_MS = 900_000;
const UNREACHABLE_KEY_ENV = 'GYMFLOW_TEST_HARNESS_UNREACHABLE_KEY';

interface Played {
  sandbox: Provider;
  runDir: string;
  config: RunConfig;
  records: any[];
  failures: any[];
  traces: any[];
}

interface Play {
  harness: string;
  sandbox: Provider;
  accuracy?: number;
  timeoutMs?: number;
  maxModelCalls?: number;
  latencyMs?: number;
  /** A model the gateway cannot reach (an openai backend on a closed port). */
  unreachable?: boolean;
}

async function play(p: Play): Promise<Played> {
  const runDir = await tempDir(`gymflow-harness-${p.harness}-`);
  const harness = {
    name: p.harness,
    sandbox: p.sandbox,
    ...(p.sandbox === 'docker' ? { sandbox_image: docker.image } : {}),
    timeout_ms: p.timeoutMs ?? HARNESS_TIMEOUT_MS,
    ...(p.maxModelCalls ? { max_model_calls: p.maxModelCalls } : {}),
  };
  const env = { name: 'swe_repair', harness };
  const base = runConfig({ runDir, env: env as any, inputFile: TASKS, limit: 1, durability: 'rollout', model: { accuracy: p.accuracy ?? 1, latency_ms: p.latencyMs ?? 0 }, maximumAttempts: 1 });
  const config = p.unreachable ? { ...base, model: parseModelSpec({ backend: 'openai', model: 'gpt-none', base_url: 'http://127.0.0.1:1/v1', api_key_env: UNREACHABLE_KEY_ENV }) } : base;
  await runInProcess(server, config);
  return { sandbox: p.sandbox, runDir, config, ...runOutcome(runDir), traces: harnessTraces(runDir) };
}

let server: TestServer;
let docker: TestDockerEngine;
const providers: Partial<Record<Provider, SandboxProvider>> = {};
const dockerHostBefore = process.env.DOCKER_HOST;
const plays = backgroundRuns<Played>();
const start = (name: string, p: Play) => plays.start(name, () => play(p));

function startAll(sandbox: Provider): void {
  for (const harness of HARNESSES) if (SANDBOX[harness] === sandbox) start(harness, { harness, sandbox });
  if (sandbox === 'docker') {
    start('wrong', { harness: 'pi', sandbox, accuracy: 0 });
    // The mock answers after 10 minutes: the harness is killed at its 20 s deadline, mid-call.
    start('timeout', { harness: 'pi', sandbox, timeoutMs: 20_000, latencyMs: 600_000 });
  } else {
    // pi reports a refused call and exits 0: the cap, not the exit code, decides.
    start('cap', { harness: 'pi', sandbox, maxModelCalls: 1 });
    start('unreachable', { harness: 'codex', sandbox, unreachable: true });
  }
}

beforeAll(async () => {
  process.env[UNREACHABLE_KEY_ENV] = 'sk-unused';
  server = await startTestServer();
  providers.local = await sandboxProvider('local');
  // The jails' runs start while the engine comes up and imports the image.
  startAll('local');
  docker = await startTestDockerEngine();
  // The in-process worker's docker provider finds the engine as any worker would: DOCKER_HOST.
  process.env.DOCKER_HOST = `unix://${docker.socketPath}`;
  providers.docker = (await sandboxProvider('docker', { socketPath: docker.socketPath })) as DockerProvider;
  startAll('docker');
}, 300_000);
afterAll(async () => {
  delete process.env[UNREACHABLE_KEY_ENV];
  await plays.settled();
  if (dockerHostBefore === undefined) delete process.env.DOCKER_HOST;
  else process.env.DOCKER_HOST = dockerHostBefore;
  await (providers.docker as DockerProvider | undefined)?.close();
  await docker?.stop();
  await server?.stop();
}, TEST_TIMEOUT_MS);

/**
 * The run's sandboxes were its provider's, and none is left: found by the run's real id (the manifest's),
 * which its trace names too.
 */
async function expectSandboxesGone(played: Played): Promise<void> {
  const provider = providers[played.sandbox]!;
  expect(played.traces.length).toBeGreaterThan(0);
  for (const trace of played.traces) {
    expect(trace.sandbox_labels.run).toBe(played.config.runId);
    expect(trace.sandboxId).toMatch(SANDBOX_ID[played.sandbox]);
  }
  expect(await provider.list({ run: played.config.runId })).toEqual([]);
}

describe.each(HARNESSES.map((h) => [h, SANDBOX[h]] as const))('%s in a durable run (%s sandbox)', (harness) => {
  it(
    'repairs the repository, the hidden tests reward it, its calls are logged with token ids, and its sandbox is gone',
    async () => {
      const played = await plays.get(harness);
      const { runDir, records, failures } = played;
      expect(failures).toEqual([]);
      expect(records).toHaveLength(1);
      const [record] = records;
      // The hidden tests' own verdict, run in the sandbox after the harness finished.
      expect(record.reward).toBe(1);
      expect(record.tests_exit_code).toBe(0);
      expect(record.tests_output).toMatch(/\nOK\s*$/);
      expect(record._gf_harness).toMatchObject({ name: harness, exit_code: 0 });
      expect(record._gf_harness.tool_calls.length).toBeGreaterThan(0);

      const logged = modelCalls(runDir).filter((c) => c.rollout_id === record._ng_rollout_id);
      expect(logged.length).toBeGreaterThanOrEqual(2);
      expect(record._gf_model_call_ids.sort()).toEqual(logged.map((c) => c.call_id).sort());
      for (const call of logged) {
        expect(call.status).toBe(200);
        expect(call.tokens.generation_token_ids.length).toBeGreaterThan(0);
      }
      await expectSandboxesGone(played);
    },
    TEST_TIMEOUT_MS,
  );
});

describe.each(TRAINABLE)('%s in training mode', (harness) => {
  it(
    'exports one response for the episode, its generated ids the captured ones',
    async () => {
      const { runDir, records } = await plays.get(harness);
      const logged = modelCalls(runDir).filter((c) => c.rollout_id === records[0]._ng_rollout_id);
      const out = path.join(runDir, 'training.jsonl');
      const summary = await exportTraining(runDir, { output: out });
      expect(summary.exported).toBe(1);
      const [line] = jsonlIfPresent(out);
      expect(line.masked).toBe(false);
      expect(line.calls.length).toBeGreaterThan(0);
      for (const used of line.calls) {
        const call = logged.find((c) => c.call_id === used.call_id);
        expect(line.response_token_ids.slice(used.generation_start, used.generation_start + used.generation_tokens)).toEqual(call.tokens.generation_token_ids);
      }
    },
    TEST_TIMEOUT_MS,
  );
});

it(
  'refuses to export training data from cline, which is evaluation-only',
  async () => {
    const { runDir } = await plays.get('cline');
    const refused = await exportTraining(runDir, { output: path.join(runDir, 'training.jsonl') }).catch((e) => e);
    expect(isGymError(refused) && refused.code).toBe('BAD_INPUT');
    expect(refused.message).toContain('evaluation-only');
  },
  TEST_TIMEOUT_MS,
);

describe('a harness that does not repair the repository', () => {
  it(
    'gets reward 0 from the hidden tests, recorded (not a failure)',
    async () => {
      const played = await plays.get('wrong');
      expect(played.failures).toEqual([]);
      expect(played.records).toHaveLength(1);
      expect(played.records[0].reward).toBe(0);
      expect(played.records[0].failure_reason).toBe('tests_failed');
      await expectSandboxesGone(played);
    },
    TEST_TIMEOUT_MS,
  );
});

describe('a harness that fails is a classified failure in the sidecar, never a reward', () => {
  it(
    'past its deadline: killed, `timeout`, its partial trace kept',
    async () => {
      const played = await plays.get('timeout');
      expect(played.records).toEqual([]);
      expect(played.failures).toHaveLength(1);
      expect(played.failures[0]._ng_failure_class).toBe('timeout');
      expect(played.failures[0]).not.toHaveProperty('reward');
      expect(played.traces).toHaveLength(1);
      expect(played.traces[0]).toMatchObject({ harness: 'pi', timedOut: true, exitCode: null });
      expect(played.traces[0]).not.toHaveProperty('verify');
      await expectSandboxesGone(played);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'stopped by the model-call cap: `cap_exceeded`, though pi itself exited 0',
    async () => {
      const played = await plays.get('cap');
      expect(played.records).toEqual([]);
      expect(played.failures).toHaveLength(1);
      expect(played.failures[0]._ng_failure_class).toBe('cap_exceeded');
      expect(played.traces[0].exitCode).toBe(0);
      const refused = modelCalls(played.runDir).filter((c) => c.error);
      expect(refused.length).toBeGreaterThan(0);
      expect(refused.every((c) => c.error.code === 'rollout_cap_exceeded')).toBe(true);
      await expectSandboxesGone(played);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'exiting non-zero after its model could not be reached: `model_error`',
    async () => {
      const played = await plays.get('unreachable');
      expect(played.records).toEqual([]);
      expect(played.failures).toHaveLength(1);
      expect(played.failures[0]._ng_failure_class).toBe('model_error');
      expect(played.traces[0].exitCode).not.toBe(0);
      expect(played.traces[0].timedOut).toBe(false);
      await expectSandboxesGone(played);
    },
    TEST_TIMEOUT_MS,
  );
});

it(
  'leaves no container on the engine once every run has ended',
  async () => {
    await plays.settled();
    expect(await providers.docker!.list()).toEqual([]);
    expect(await docker.engine.json('GET', '/containers/json', { query: { all: true } })).toEqual([]);
  },
  TEST_TIMEOUT_MS,
);

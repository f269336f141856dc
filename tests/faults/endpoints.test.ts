// Fault matrix (docs/faults.md): the endpoints a run depends on misbehave — a model upstream (a FAKE
// OpenAI-compatible server on loopback) answering 5xx, 429 with Retry-After and stalls at set rates, a
// dead and a silent endpoint, `gym gateway serve` restarted mid-run, the environment server killed or
// never started. Each run must end, with every task × repeat exactly once and no failure scored 0.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { remoteEnvironmentName, type RemoteTimeoutsInput } from '../../src/environments/names';
import { modelName, parseModelSpec, type ModelSpecInput } from '../../src/gateway/spec';
import { hash32 } from '../../src/util/rng';
import type { RunConfig } from '../../src/runs/manifest';
import { startFakeOpenAIUpstream, type FakeOpenAIUpstream } from '../gateway/fake_openai_upstream';
import { bounded, expectFaultInvariants } from '../helpers/fault-invariants';
import { startGymService, type GymService } from '../helpers/gym-service';
import { releasePort, reservePort } from '../helpers/ports';
import { runConfig, runInProcess, tempDir } from '../helpers/run';
import { startTestServer, type TestServer } from '../helpers/temporal-server';
import { waitFor } from '../helpers/worker-process';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/nemo-gym');
const KEY_ENV = 'GYMFLOW_FAULTS_KEY';
/** Far above any of these runs' normal time (a worker's start included, slow on a loaded machine): only a hang reaches it. */
const HANG_MS = 400_000;
// Each test waits for subprocesses and a worker to start; a loaded 2-core machine can take minutes.
vi.setConfig({ testTimeout: 600_000 });

let server: TestServer;
let upstream: FakeOpenAIUpstream;
const services: GymService[] = [];
beforeAll(async () => {
  server = await startTestServer();
  upstream = await startFakeOpenAIUpstream();
  process.env[KEY_ENV] = 'sk-gymflow-faults-test-key-0123456789abcdef';
});
afterAll(async () => {
  await Promise.all(services.map((s) => s.kill()));
  await upstream?.close();
  await server?.stop();
});

/** mcqa tasks, each prompt made unique so every rollout's request body is its own (a retry repeats it byte for byte). */
async function mcqaTasks(count: number): Promise<string> {
  const rows = readFileSync(path.join(FIXTURES, 'mcqa/example.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const file = path.join(await tempDir('gymflow-fault-tasks-'), 'mcqa.jsonl');
  const out = Array.from({ length: count }, (_, i) => {
    const row = structuredClone(rows[i % rows.length]);
    row.responses_create_params.input[0].content += `\n(variant ${i})`;
    return JSON.stringify(row);
  });
  writeFileSync(file, out.join('\n') + '\n');
  return file;
}

function openaiRun(runDir: string, inputFile: string, model: Partial<Extract<ModelSpecInput, { backend: 'openai' }>>, opts: { maximumAttempts: number; concurrency?: number }): RunConfig {
  return {
    ...runConfig({ runDir, envName: 'mcqa', inputFile, maximumAttempts: opts.maximumAttempts, concurrency: opts.concurrency ?? 4 }),
    model: parseModelSpec({ backend: 'openai', model: 'gpt-fault', base_url: upstream.url, api_key_env: KEY_ENV, ...model }),
  };
}

describe('a model upstream that fails at set rates (5xx, 429 with Retry-After, stalls)', () => {
  it('retries each fault, waits out every Retry-After, and records or sidecars every rollout once', async () => {
    const TASKS = 12;
    const RETRY_AFTER_S = 2;
    upstream.answerWith((body) => `\\boxed{${'ABCDE'[hash32(JSON.stringify(body.input)) % 5]}}`);
    upstream.inject({ seed: 7, serverError: 0.2, tooManyRequests: 0.2, retryAfterS: RETRY_AFTER_S, stall: 0.1 });
    const runDir = await tempDir('gymflow-fault-upstream-');
    const config = openaiRun(runDir, await mcqaTasks(TASKS), { timeouts: { connect_ms: 2000, first_byte_ms: 1500, idle_ms: 1500, total_ms: 3000 } }, { maximumAttempts: 6 });
    const before = upstream.requests.length;
    try {
      await bounded('the run against the faulty upstream', HANG_MS, runInProcess(server, config));
    } finally {
      upstream.recover();
    }
    const { failures } = await expectFaultInvariants(runDir, { tasks: TASKS, repeats: 1, env: 'mcqa', sidecarClasses: ['model_error', 'timeout'] });

    const requests = upstream.requests.slice(before);
    const kinds = new Set(requests.map((r) => r.fault?.kind));
    // The seeded plan must have produced every kind of fault, or the run proves nothing about them.
    expect([...kinds].sort()).toEqual([undefined, 'server_error', 'stall', 'too_many_requests'].sort());
    // Retry-After honoured: the next try of a rate-limited call came at least that long after it.
    let waited = 0;
    requests.forEach((r, i) => {
      if (r.fault?.kind !== 'too_many_requests') return;
      const retry = requests.slice(i + 1).find((n) => n.digest === r.digest);
      // The last attempt of a rollout that ran out of attempts has no retry; its sidecar line says so.
      if (!retry) return void expect(failures.map((f) => f._ng_task_index)).toContain(r.body.input[0].content.match(/variant (\d+)/)![1] * 1);
      // setTimeout never fires early; a millisecond of slack covers Date.now()'s rounding.
      expect(retry.at - r.at, `retry of a 429 (Retry-After: ${RETRY_AFTER_S})`).toBeGreaterThanOrEqual(RETRY_AFTER_S * 1000 - 1);
      waited++;
    });
    expect(waited).toBeGreaterThan(0);
  });
});

describe('a model endpoint that is not there', () => {
  it('sends every rollout to the sidecar as model_error when the connection is refused, within the bound', async () => {
    const port = await reservePort(); // reserved and never listened on: connections are refused
    try {
      const runDir = await tempDir('gymflow-fault-dead-');
      const config = openaiRun(runDir, path.join(FIXTURES, 'mcqa/example.jsonl'), { base_url: `http://127.0.0.1:${port}/v1` }, { maximumAttempts: 2 });
      const result = await bounded('the run against a dead endpoint', HANG_MS, runInProcess(server, config));
      const { failures } = await expectFaultInvariants(runDir, { tasks: 5, repeats: 1, env: 'mcqa', sidecarClasses: ['model_error'] });
      expect(failures).toHaveLength(5);
      for (const f of failures) expect(f.message).toMatch(/cannot reach .*http:\/\/127\.0\.0\.1:\d+\/v1/);
      expect(result.metrics.coverage).toBe(0);
    } finally {
      releasePort(port);
    }
  });

  it('sends every rollout to the sidecar as timeout when the endpoint accepts and never answers', async () => {
    const silent = await startFakeOpenAIUpstream();
    silent.stall('before-headers');
    try {
      const runDir = await tempDir('gymflow-fault-silent-');
      const config = openaiRun(
        runDir,
        path.join(FIXTURES, 'mcqa/example.jsonl'),
        { base_url: silent.url, timeouts: { connect_ms: 1000, first_byte_ms: 1000, idle_ms: 1000, total_ms: 2000 } },
        { maximumAttempts: 2 },
      );
      await bounded('the run against a silent endpoint', HANG_MS, runInProcess(server, config));
      const { failures } = await expectFaultInvariants(runDir, { tasks: 5, repeats: 1, env: 'mcqa', sidecarClasses: ['timeout'] });
      expect(failures).toHaveLength(5);
      for (const f of failures) expect(f.message).toMatch(/timeouts\.first_byte_ms = 1000 ms/);
      expect(silent.requests).toHaveLength(10);
    } finally {
      await silent.close();
    }
  });
});

describe('gym gateway serve as the model endpoint, restarted mid-run', () => {
  it('loses no rollout and doubles none', async () => {
    const port = await reservePort();
    const dir = await tempDir('gymflow-fault-gateway-');
    const mock = { backend: 'mock', env: 'mcqa', accuracy: 0.6, seed: 5, latency_ms: 150 } as const;
    writeFileSync(path.join(dir, 'gateway.json'), JSON.stringify({ models: [mock] }));
    const serve = () => startGymService(['gateway', 'serve', '--port', String(port), '--config', path.join(dir, 'gateway.json')], { GYMFLOW_GATEWAY_TOKEN: process.env[KEY_ENV]! }, /gateway at /);
    // The port stays reserved (a lock file, not a socket) so no other test takes it while the gateway is down.
    let gateway = await serve();
    services.push(gateway);
    const runDir = path.join(dir, 'run');
    const config = openaiRun(
      runDir,
      path.join(FIXTURES, 'mcqa/example.jsonl'),
      { base_url: `http://127.0.0.1:${port}/v1`, model: modelName(parseModelSpec(mock)) },
      { maximumAttempts: 60, concurrency: 2 },
    );
    const run = runInProcess(server, { ...config, numRepeats: 6 });
    const recorded = () => (existsSync(path.join(runDir, 'rollouts.jsonl')) ? readFileSync(path.join(runDir, 'rollouts.jsonl'), 'utf8').split('\n').filter(Boolean).length : 0);
    await waitFor(() => recorded() >= 4, 'the first records', 300_000);
    await gateway.kill('SIGKILL');
    expect(recorded()).toBeLessThan(30);
    gateway = await serve();
    services.push(gateway);
    const result = await bounded('the run across the gateway restart', HANG_MS, run);
    await expectFaultInvariants(runDir, { tasks: 5, repeats: 6, env: 'mcqa' });
    expect(result.metrics.coverage).toBe(1);
    releasePort(port);
  });
});

describe('the environment server (gym env serve, driven with --env remote) down', () => {
  const TOOLS = ['get_synonym_value', 'extract_synonym_values'];
  const remoteRun = (runDir: string, url: string, timeouts: RemoteTimeoutsInput = {}, concurrency = 2) => {
    const envName = remoteEnvironmentName(url, TOOLS, timeouts);
    const fixtures = path.join(FIXTURES, 'example_multi_step');
    return runConfig({
      runDir,
      envName,
      inputFile: path.join(fixtures, 'example.jsonl'),
      numRepeats: 4,
      concurrency,
      maximumAttempts: 3,
      model: { env: envName, latency_ms: 100, replay_files: [path.join(fixtures, 'example_rollouts.jsonl')] },
    });
  };

  it('never started: every rollout goes to the sidecar as env_error, within the bound', async () => {
    const port = await reservePort();
    try {
      const runDir = await tempDir('gymflow-fault-env-absent-');
      await bounded('the run without its environment server', HANG_MS, runInProcess(server, remoteRun(runDir, `http://127.0.0.1:${port}`)));
      const { failures } = await expectFaultInvariants(runDir, { tasks: 5, repeats: 4, sidecarClasses: ['env_error'] });
      expect(failures).toHaveLength(20);
    } finally {
      releasePort(port);
    }
  });

  it('accepting every call and never answering: every rollout goes to the sidecar as timeout, naming the bound', async () => {
    // A server that takes each connection and its request, then stays silent: only the bounds end the calls.
    const held: Socket[] = [];
    const silent = createServer((socket) => {
      held.push(socket);
      socket.on('error', () => {});
      socket.resume();
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      const runDir = await tempDir('gymflow-fault-env-silent-');
      // Each rollout waits out the bound on every attempt: ten at once, not two, so the test takes seconds, not a minute.
      await bounded('the run against a silent environment server', HANG_MS, runInProcess(server, remoteRun(runDir, url, { first_byte_ms: 1_000, total_ms: 3_000 }, 10)));
      const { failures } = await expectFaultInvariants(runDir, { tasks: 5, repeats: 4, sidecarClasses: ['timeout'] });
      expect(failures).toHaveLength(20);
      for (const failure of failures) expect(failure.message).toMatch(/gave no answer within first_byte_ms \(1000 ms\)/);
      expect(held.length).toBeGreaterThanOrEqual(20);
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('killed mid-run: the rollouts it broke go to the sidecar, and the resumed run records them exactly once', async () => {
    const port = await reservePort();
    const serve = () => startGymService(['env', 'serve', '--env', 'example_multi_step', '--port', String(port)], {}, /served at /);
    let envServer = await serve();
    services.push(envServer);
    const runDir = await tempDir('gymflow-fault-env-killed-');
    const config = remoteRun(runDir, `http://127.0.0.1:${port}`);
    const run = runInProcess(server, config);
    const recorded = () => (existsSync(path.join(runDir, 'rollouts.jsonl')) ? readFileSync(path.join(runDir, 'rollouts.jsonl'), 'utf8').split('\n').filter(Boolean).length : 0);
    await waitFor(() => recorded() >= 2, 'the first records', 300_000);
    await envServer.kill('SIGKILL');
    await bounded('the run after its environment server died', HANG_MS, run);
    const broken = await expectFaultInvariants(runDir, { tasks: 5, repeats: 4, env: 'example_multi_step', sidecarClasses: ['env_error', 'tool_error'] });
    expect(broken.failures.length).toBeGreaterThan(0);

    envServer = await serve();
    services.push(envServer);
    await bounded('the resumed run', HANG_MS, runInProcess(server, config));
    const { failures } = await expectFaultInvariants(runDir, { tasks: 5, repeats: 4, env: 'example_multi_step' });
    expect(failures).toEqual([]);
    releasePort(port);
  });
});

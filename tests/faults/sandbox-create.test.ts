// Fault matrix (docs/faults.md): sandbox creation failing under harness rollouts (the real Pi CLI on
// swe_repair in docker containers of a private real dockerd, needs root as the docker tests do). The worker's
// DOCKER_HOST is a relay (tests/helpers/docker-fault-relay.ts) that fails creations by plan: all of them,
// or the first few (refused, or made by the engine with the answer lost); or no engine at all. Each run ends
// with every rollout once, a failed creation an env_error in the sidecar (never a reward), no container left.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DockerProvider } from '../../src/sandboxes/docker/provider';
import { sandboxProvider } from '../../src/sandboxes/registry';
import { PACKAGE_ROOT } from '../../src/util/paths';
import { startDockerFaultRelay, type CreateFault, type DockerFaultRelay } from '../helpers/docker-fault-relay';
import { startTestDockerEngine, type TestDockerEngine } from '../helpers/docker-engine';
import { bounded, expectFaultInvariants } from '../helpers/fault-invariants';
import { runConfig, runInProcess, tempDir } from '../helpers/run';
import { startTestServer, type TestServer } from '../helpers/temporal-server';

const TASKS = path.join(PACKAGE_ROOT, 'src/environments/swe_repair/data/example.jsonl');
/** Far above any of these runs' normal time on a loaded machine: only a hang reaches it. */
const HANG_MS = 400_000;
vi.setConfig({ testTimeout: 600_000, hookTimeout: 300_000 });

let server: TestServer;
let docker: TestDockerEngine;
let provider: DockerProvider;
const relays: DockerFaultRelay[] = [];
const dockerHostBefore = process.env.DOCKER_HOST;
beforeAll(async () => {
  [server, docker] = await Promise.all([startTestServer(), startTestDockerEngine()]);
  provider = (await sandboxProvider('docker', { socketPath: docker.socketPath })) as DockerProvider;
});
afterAll(async () => {
  if (dockerHostBefore === undefined) delete process.env.DOCKER_HOST;
  else process.env.DOCKER_HOST = dockerHostBefore;
  await Promise.all(relays.map((r) => r.close()));
  await provider?.close();
  await docker?.stop();
  await server?.stop();
});

async function relay(engineSocket: string | undefined, plan: (n: number) => CreateFault): Promise<DockerFaultRelay> {
  const started = await startDockerFaultRelay(engineSocket, plan);
  relays.push(started);
  return started;
}

/** Pi on `tasks` swe_repair tasks × `repeats` in docker, the worker's engine at `dockerHost` (read when its provider is made). */
async function play(dockerHost: string, opts: { tasks: number; repeats: number; maximumAttempts: number; concurrency?: number }) {
  process.env.DOCKER_HOST = dockerHost;
  const runDir = await tempDir('gymflow-fault-sandbox-');
  const env = { name: 'swe_repair', harness: { name: 'pi', sandbox: 'docker', sandbox_image: docker.image, timeout_ms: 300_000 } } as const;
  const config = runConfig({
    runDir,
    env,
    inputFile: TASKS,
    limit: opts.tasks,
    numRepeats: opts.repeats,
    concurrency: opts.concurrency ?? 2,
    durability: 'rollout',
    model: { accuracy: 1 },
    maximumAttempts: opts.maximumAttempts,
  });
  const result = await bounded('the run with failing sandbox creation', HANG_MS, runInProcess(server, config));
  return { runDir, config, result };
}

/** Nothing the run made is left in the engine: neither by the run's labels nor at all (the engine is this file's). */
async function expectNoContainerLeft(runId: string): Promise<void> {
  expect(await provider.list({ run: runId })).toEqual([]);
  expect(await docker.engine.json('GET', '/containers/json', { query: { all: true } })).toEqual([]);
}

describe('an engine that refuses every sandbox creation', () => {
  it('sends every rollout to the sidecar as env_error after its attempts, within the bound', async () => {
    const refusing = await relay(docker.socketPath, () => 'refuse');
    const { runDir, config, result } = await play(`unix://${refusing.socketPath}`, { tasks: 2, repeats: 2, maximumAttempts: 3 });
    const { failures } = await expectFaultInvariants(runDir, { tasks: 2, repeats: 2, sidecarClasses: ['env_error'] });
    expect(failures).toHaveLength(4);
    for (const f of failures) {
      expect(f.message).toMatch(/POST \/containers\/create → 500: failed to create task/);
      expect(f.attempt).toBe(3);
      // A refused creation may work next time: `gym eval retry-failures` takes it.
      expect(f._ng_failure_terminal).toBe(false);
    }
    expect(refusing.creates).toEqual(Array(12).fill('refuse'));
    expect(result.metrics.coverage).toBe(0);
    await expectNoContainerLeft(config.runId);
  });

  it('with no engine at all: every rollout is an env_error naming the socket, never a tool_error', async () => {
    const nowhere = path.join(await tempDir('gymflow-fault-noengine-'), 'docker.sock');
    const { runDir } = await play(`unix://${nowhere}`, { tasks: 2, repeats: 1, maximumAttempts: 3 });
    const { failures } = await expectFaultInvariants(runDir, { tasks: 2, repeats: 1, sidecarClasses: ['env_error'] });
    expect(failures).toHaveLength(2);
    for (const f of failures) expect(f.message).toContain(`no Docker Engine at unix://${nowhere}`);
  });
});

describe('sandbox creation failing transiently', () => {
  it('retries each failed creation; every rollout recorded once, by its tests, and no container left behind', async () => {
    // The first four creations fail: refused, or made by the engine and the answer lost; then all pass.
    const PLAN: CreateFault[] = ['refuse', 'lose', 'refuse', 'lose'];
    const flaky = await relay(docker.socketPath, (n) => PLAN[n - 1] ?? 'pass');
    // All three at once, so the faults fall on several rollouts; enough attempts for one rollout to meet them all.
    const { runDir, config, result } = await play(`unix://${flaky.socketPath}`, { tasks: 1, repeats: 3, concurrency: 3, maximumAttempts: PLAN.length + 2 });
    const { records } = await expectFaultInvariants(runDir, { tasks: 1, repeats: 3 });
    // swe_repair is graded by its hidden tests in the sandbox: each reward is their verdict.
    for (const r of records as Record<string, unknown>[]) expect(r.reward).toBe(r.tests_exit_code === 0 ? 1 : 0);
    // The plan's faults all happened, then one creation per rollout at least (more only if a sandbox failed later on).
    expect(flaky.creates.slice(0, PLAN.length)).toEqual(PLAN);
    expect(flaky.creates.slice(PLAN.length).filter((c) => c === 'pass').length).toBeGreaterThanOrEqual(3);
    expect(flaky.creates.slice(PLAN.length).every((c) => c === 'pass')).toBe(true);
    expect(result.metrics.coverage).toBe(1);
    await expectNoContainerLeft(config.runId);
  });
});

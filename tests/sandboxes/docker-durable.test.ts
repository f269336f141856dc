// A worker SIGKILLed while its sandboxed step runs a command in a real container: with the product's
// sandbox activities the retry re-attaches to the same command (it runs once); with a step that makes a
// new sandbox per attempt, the retry removes the dead one's. Either way no container is left.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DockerProvider } from '../../src/sandboxes/docker/provider';
import { startTestDockerEngine, type TestDockerEngine } from '../helpers/docker-engine';
import { startTestServer, type TestServer } from '../helpers/temporal-server';
import { waitFor, type WorkerProcess } from '../helpers/worker-process';
import type { sandboxStepWorkflow } from './durable/workflow';

const DURABLE = path.join(import.meta.dirname, 'durable');
const taskQueue = `sandbox-durable-${process.pid}`;

let docker: TestDockerEngine;
let server: TestServer;
let provider: DockerProvider;
let bundlePath: string;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  const bundling = bundleWorkflowCode({ workflowsPath: path.join(DURABLE, 'workflow.ts'), logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} } });
  [docker, server] = await Promise.all([startTestDockerEngine(), startTestServer()]);
  provider = new DockerProvider({ socketPath: docker.socketPath });
  bundlePath = path.join(await mkdtemp(path.join(os.tmpdir(), 'gf-durable-')), 'workflow-bundle.js');
  await writeFile(bundlePath, (await bundling).code);
}, 300_000);

afterAll(async () => {
  await Promise.all(workers.map((w) => w.kill()));
  await provider?.close();
  await server?.stop();
  await docker?.stop();
}, 120_000);

function startWorker(): WorkerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(DURABLE, 'worker.ts')], {
    env: { ...process.env, GF_TEMPORAL_ADDRESS: server.address, GF_TASK_QUEUE: taskQueue, GF_DOCKER_SOCKET: docker.socketPath, GF_WORKFLOW_BUNDLE: bundlePath },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  let killed = false;
  const worker: WorkerProcess = {
    child,
    output: () => out,
    assertAlive() {
      if (!killed && (child.exitCode !== null || child.signalCode !== null)) throw new Error(`worker exited (${child.exitCode ?? child.signalCode}):\n${out}`);
    },
    kill(signal = 'SIGKILL') {
      killed = true;
      return new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      });
    },
  };
  workers.push(worker);
  return worker;
}

it('a worker SIGKILLed mid-exec: the retry completes on another worker and no container is left', async () => {
  const run = `durable-${process.pid}`;
  const client = await server.client();
  const outDir = await mkdtemp(path.join(os.tmpdir(), 'gf-durable-out-'));
  // The sandbox's unprivileged user writes the mark.
  await chmod(outDir, 0o777);
  const first = startWorker();
  const handle = await client.workflow.start<typeof sandboxStepWorkflow>('sandboxStepWorkflow', {
    taskQueue,
    workflowId: `${run}-step`,
    args: [{ run, rollout: 'r1', image: docker.image, outDir }],
  });

  // The first attempt's command runs in its container (observed without attaching: that would own it).
  await waitFor(() => {
    first.assertAlive();
    return existsSync(path.join(outDir, 'running'));
  }, 'the first attempt to be running its command in a container');
  const [firstInfo] = await provider.list({ run, attempt: 1 });
  const firstId = firstInfo!.id;

  await first.kill('SIGKILL');
  // Its container outlives it (without the retry's cleanup it would leak), and gc sees it as an orphan.
  expect(await provider.list({ run })).toEqual([expect.objectContaining({ id: firstId, ownerAlive: false })]);

  startWorker();
  const result = await handle.result();
  expect(result).toEqual({ attempt: 2, stdout: 'done-2' });
  expect(await provider.list({ run })).toEqual([]);
  const all = await docker.engine.json<unknown[]>('GET', '/containers/json', { query: { all: true } });
  expect(all).toEqual([]);
});

it('with the sandbox activities: the retry re-attaches to the same command in the same container, and teardown leaves nothing', async () => {
  const run = `durable-activities-${process.pid}`;
  const taskQueue = `sandbox-activities-${process.pid}`;
  const outDir = await mkdtemp(path.join(os.tmpdir(), 'gf-durable-out-'));
  await chmod(outDir, 0o777);
  const spawnWorker = () => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, '../helpers/sandbox-worker.ts'), server.address, taskQueue], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const worker: WorkerProcess = {
      child,
      output: () => out,
      assertAlive() {},
      kill: (signal = 'SIGKILL') =>
        new Promise((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill(signal);
        }),
    };
    workers.push(worker);
    return worker;
  };
  const first = spawnWorker();
  const client = await server.client();
  // The command counts its runs and waits for a go the test gives once the first worker is dead.
  const script = ['echo run >> /out/runs', 'while [ ! -e /out/go ]; do sleep 0.1; done', 'echo "runs: $(wc -l < /out/runs)"'].join('\n');
  const target = { provider: 'docker', providerOptions: { socketPath: docker.socketPath } };
  const handle = await client.workflow.start('sandboxedCommand', {
    taskQueue,
    workflowId: `${run}-cmd`,
    args: [
      {
        provision: { ...target, spec: { image: docker.image, labels: { run, rollout: 'r1', attempt: 0, user: 'tester' }, mounts: [{ hostPath: outDir, path: '/out', writable: true }] } },
        exec: { request: { command: ['sh', '-c', script], timeoutMs: 300_000 } },
      },
    ],
  });
  await waitFor(() => existsSync(path.join(outDir, 'runs')), 'the command to start in its container');
  await first.kill('SIGKILL');
  spawnWorker();
  await writeFile(path.join(outDir, 'go'), '');
  const result = (await handle.result()) as { sandboxId: string; exitCode: number; stdoutTail: string; attempt: number };
  expect(result).toMatchObject({ exitCode: 0, stdoutTail: 'runs: 1\n' });
  expect(result.attempt).toBeGreaterThan(1);
  expect(await provider.list({ run })).toEqual([]);
  expect(await docker.engine.json<unknown[]>('GET', '/containers/json', { query: { all: true } })).toEqual([]);
});

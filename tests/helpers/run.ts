// Runs a real eval in-process against a test server: the same manifest, workflow start and worker
// that `gym eval run` uses, without the terminal.
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { NativeConnection } from '@temporalio/worker';
import pino from 'pino';
import type { ModelSpecInput } from '../../src/gateway/spec';
import { parseModelSpec } from '../../src/gateway/spec';
import { envKey, type EnvRefInput } from '../../src/environments/ref';
import { RunConfig, defaultRunId, runTaskQueue } from '../../src/runs/manifest';
import { prepareRun, startRun, validateRunInput } from '../../src/runs/client';
import { createGymWorker, installRuntime } from '../../workers/worker';
import { DEFAULT_RETRY, type RunResult } from '../../workflows/definitions';
import type { TestServer } from './temporal-server';

export const quietLogger = pino({ level: 'error' });
installRuntime(quietLogger);

export async function tempDir(prefix = 'gymflow-run-'): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), prefix));
}

export function runConfig(opts: {
  runDir: string;
  /** A registered environment's name, or a whole reference (settings, remote server). */
  envName?: string;
  env?: EnvRefInput;
  inputFile: string;
  model?: Partial<ModelSpecInput> & { backend?: 'mock' };
  numRepeats?: number;
  concurrency?: number;
  limit?: number;
  maxSteps?: number;
  stepsPerExecution?: number;
  shards?: number;
  maximumAttempts?: number;
  durability?: 'turn' | 'rollout';
}): RunConfig {
  const env = opts.env ?? { name: opts.envName! };
  const runId = defaultRunId(opts.runDir);
  return RunConfig.parse({
    runId,
    runDir: opts.runDir,
    env,
    inputFile: opts.inputFile,
    model: parseModelSpec({ backend: 'mock', env: envKey(env), tasks_file: path.join(opts.runDir, 'tasks.jsonl'), ...opts.model } as ModelSpecInput),
    numRepeats: opts.numRepeats ?? 1,
    limit: opts.limit,
    concurrency: opts.concurrency ?? 4,
    shards: opts.shards ?? 1,
    taskQueue: runTaskQueue(runId),
    maxSteps: opts.maxSteps,
    retry: { ...DEFAULT_RETRY, initialIntervalMs: 200, maximumIntervalMs: 1000, heartbeatTimeoutMs: 5000, maximumAttempts: opts.maximumAttempts ?? DEFAULT_RETRY.maximumAttempts },
    stepsPerExecution: opts.stepsPerExecution,
    durability: opts.durability,
  });
}

/** Starts the run's workflow (no worker): for tests that run workers as separate processes. */
export async function startRunWorkflow(server: TestServer, config: RunConfig) {
  const client = await server.client();
  const { manifest } = await prepareRun(config, await validateRunInput(config));
  return startRun(client, manifest);
}

export async function runInProcess(server: TestServer, config: RunConfig): Promise<RunResult> {
  const handle = await startRunWorkflow(server, config);
  const connection = await NativeConnection.connect({ address: server.address });
  try {
    const worker = await createGymWorker({ connection, namespace: 'default', taskQueue: config.taskQueue, logger: quietLogger });
    return (await worker.run(handle.result())) as RunResult;
  } finally {
    await connection.close();
  }
}

// Records workflow histories of small real runs into tests/fixtures/histories, one run per workflow
// branch, for the replay test, and writes WORKFLOWS.sha256 (the workflow code they were captured from).
// Run it when a workflow changes on purpose (with patched() if command order changed), keeping the old
// histories AND adding new ones:
//   npx tsx scripts/capture-histories.ts <name>
import { readdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { parseModelSpec } from '../src/gateway/spec';
import { queryProgress } from '../src/runs/client';
import { createGymWorker } from '../workers/worker';
import { pauseSignal, resumeSignal, runStateQuery, runWorkflowId, setConcurrencyUpdate, stopSignal } from '../workflows/definitions';
import { captureRunHistories, saveHistories } from '../tests/helpers/histories';
import { quietLogger, runConfig, startRunWorkflow, tempDir } from '../tests/helpers/run';
import { startTestServer, type TestServer } from '../tests/helpers/temporal-server';
import { waitFor } from '../tests/helpers/worker-process';
import { WORKFLOWS_HASH_FILE, workflowsFingerprint } from '../tests/helpers/workflow-hash';

type RunOptions = Omit<Parameters<typeof runConfig>[0], 'runDir' | 'inputFile'> & { input: string };

interface Scenario {
  what: string;
  run: RunOptions;
  /** A model that cannot be reached (a closed loopback port): every model call fails. */
  unreachableModel?: boolean;
  /** Before the run starts: e.g. make the sidecar unwritable. */
  prepare?: (runDir: string) => Promise<void>;
  /** Steers the run while it runs. */
  drive?: (handle: WorkflowHandle, run: { total: number; runDir: string }) => Promise<void>;
  ends: 'COMPLETED' | 'FAILED' | 'CANCELLED';
  /** Why this scenario is not captured any more (its branch stays covered by older histories). */
  skip?: string;
  /** The batches on a rollout queue of their own, played by a second worker with the `rollouts` role. */
  rolloutQueue?: boolean;
}

const INPUT = (env: string) => `tests/fixtures/nemo-gym/${env}/example.jsonl`;
/** Nothing listens on port 1, so connecting is refused at once. */
const CLOSED_PORT_URL = 'http://127.0.0.1:1/v1';
const KEY_ENV = 'GYMFLOW_CAPTURE_KEY';

async function progress(handle: WorkflowHandle) {
  const p = await queryProgress(handle);
  if (!p) throw new Error(`${handle.workflowId} did not answer its progress query`);
  return p;
}

/** Pause once rollouts are in flight, let them drain, change the concurrency while paused, resume. */
async function pauseResizeResume(handle: WorkflowHandle, total: number, concurrency: number): Promise<void> {
  await waitFor(async () => ((await queryProgress(handle))?.inFlight ?? 0) > 0, 'rollouts in flight');
  await handle.signal(pauseSignal);
  await waitFor(async () => {
    const p = await progress(handle);
    return p.paused && p.inFlight === 0;
  }, 'the paused run to drain');
  const p = await progress(handle);
  if (p.done + p.failed >= total) throw new Error('the run finished before the pause took effect: make it longer');
  const applied = await handle.executeUpdate(setConcurrencyUpdate, { args: [concurrency] });
  if (applied !== concurrency) throw new Error(`setConcurrency answered ${applied}, not ${concurrency}`);
  await handle.signal(resumeSignal);
}

/**
 * Cancel once rollouts are in flight. A turn-grain shard answers queries only between workflow tasks
 * (its rounds chain inside one), so in that grain a rollout's journal file is the sign instead.
 */
async function cancelMidway(handle: WorkflowHandle, runDir: string): Promise<void> {
  const journals = () => readdirSync(path.join(runDir, 'work')).some((f) => f.endsWith('.jsonl'));
  await waitFor(async () => (await handle.query(runStateQuery)).phase === 'running', 'the run to start its shards');
  await waitFor(async () => journals() || ((await queryProgress(handle))?.inFlight ?? 0) > 0, 'rollouts in flight');
  await handle.cancel();
}

/** A graceful cancel once rollouts are in flight: those finish, no more start, the run ends as cancelled. */
async function stopMidway(handle: WorkflowHandle, runDir: string): Promise<void> {
  const journals = () => readdirSync(path.join(runDir, 'work')).some((f) => f.endsWith('.jsonl'));
  await waitFor(async () => (await handle.query(runStateQuery)).phase === 'running', 'the run to start its shards');
  await waitFor(async () => journals() || ((await queryProgress(handle))?.inFlight ?? 0) > 0, 'rollouts in flight');
  await handle.signal(stopSignal);
}

// The results log now moves a folder found at failures.jsonl aside and writes the file, so this
// injection no longer fails a round or batch; v5 and v6 keep those branches until another is found.
const UNWRITABLE_SIDECAR_GONE = 'a folder at failures.jsonl no longer makes the sidecar unwritable';

/** The sidecar cannot be written (its path is a folder): a rollout that fails stops its round or batch. */
async function unwritableSidecar(runDir: string): Promise<void> {
  await mkdir(path.join(runDir, 'failures.jsonl'));
}

const SCENARIOS: Scenario[] = [
  {
    what: 'turn grain, multi-step, continue-as-new with rollouts in flight',
    run: { envName: 'example_multi_step', input: INPUT('example_multi_step'), limit: 2, numRepeats: 2, concurrency: 2, stepsPerExecution: 3, durability: 'turn' },
    ends: 'COMPLETED',
  },
  {
    what: 'rollout grain, mcqa',
    run: { envName: 'mcqa', input: INPUT('mcqa'), limit: 2, numRepeats: 2, concurrency: 2, durability: 'rollout' },
    ends: 'COMPLETED',
  },
  {
    what: 'turn grain, gymnasium agent',
    run: { envName: 'example_multi_turn_gymnasium', input: INPUT('example_multi_turn_gymnasium'), limit: 2, numRepeats: 2, concurrency: 2, durability: 'turn' },
    ends: 'COMPLETED',
  },
  {
    what: 'turn grain, every rollout routed to the sidecar',
    run: { envName: 'example_single_tool_call', input: INPUT('example_single_tool_call'), limit: 2, numRepeats: 2, concurrency: 2, maximumAttempts: 1, durability: 'turn' },
    unreachableModel: true,
    ends: 'COMPLETED',
  },
  {
    what: 'rollout grain, every rollout routed to the sidecar',
    run: { envName: 'mcqa', input: INPUT('mcqa'), limit: 2, numRepeats: 2, concurrency: 2, maximumAttempts: 1, durability: 'rollout' },
    unreachableModel: true,
    ends: 'COMPLETED',
  },
  {
    what: 'turn grain, a failed round fails the shard and the run',
    run: { envName: 'example_single_tool_call', input: INPUT('example_single_tool_call'), limit: 2, numRepeats: 1, concurrency: 2, maximumAttempts: 1, durability: 'turn' },
    unreachableModel: true,
    prepare: unwritableSidecar,
    ends: 'FAILED',
    skip: UNWRITABLE_SIDECAR_GONE,
  },
  {
    what: 'rollout grain, a failed batch fails the shard and the run',
    run: { envName: 'mcqa', input: INPUT('mcqa'), limit: 2, numRepeats: 1, concurrency: 2, maximumAttempts: 1, durability: 'rollout' },
    unreachableModel: true,
    prepare: unwritableSidecar,
    ends: 'FAILED',
    skip: UNWRITABLE_SIDECAR_GONE,
  },
  {
    what: 'turn grain, two shards, pause, concurrency change, resume, continue-as-new',
    run: {
      envName: 'example_multi_step',
      input: INPUT('example_multi_step'),
      limit: 4,
      numRepeats: 2,
      concurrency: 4,
      shards: 2,
      stepsPerExecution: 4,
      durability: 'turn',
      model: { accuracy: 0.5, seed: 3, latency_ms: 150 },
    },
    drive: (handle, { total }) => pauseResizeResume(handle, total, 6),
    ends: 'COMPLETED',
  },
  {
    what: 'rollout grain, two shards, pause, concurrency change, resume, continue-as-new',
    run: { envName: 'mcqa', input: INPUT('mcqa'), limit: 5, numRepeats: 4, concurrency: 4, shards: 2, stepsPerExecution: 1, durability: 'rollout', model: { accuracy: 0.5, seed: 3, latency_ms: 150 } },
    drive: (handle, { total }) => pauseResizeResume(handle, total, 2),
    ends: 'COMPLETED',
  },
  {
    what: 'turn grain, cancelled',
    // Long enough for the cancel to reach the shard, which hears it only at its next workflow task.
    run: { envName: 'example_multi_step', input: INPUT('example_multi_step'), limit: 5, numRepeats: 4, concurrency: 2, durability: 'turn', model: { accuracy: 0.5, seed: 3, latency_ms: 500 } },
    drive: (handle, { runDir }) => cancelMidway(handle, runDir),
    ends: 'CANCELLED',
  },
  {
    what: 'turn grain, stopped gracefully (the rollouts in flight finish)',
    run: { envName: 'example_multi_step', input: INPUT('example_multi_step'), limit: 5, numRepeats: 4, concurrency: 2, durability: 'turn', model: { accuracy: 0.5, seed: 3, latency_ms: 300 } },
    drive: (handle, { runDir }) => stopMidway(handle, runDir),
    ends: 'COMPLETED',
  },
  {
    what: 'rollout grain, batches on a rollout queue of their own',
    run: { envName: 'mcqa', input: INPUT('mcqa'), limit: 2, numRepeats: 2, concurrency: 2, durability: 'rollout' },
    rolloutQueue: true,
    ends: 'COMPLETED',
  },
  {
    what: 'rollout grain, cancelled',
    run: { envName: 'mcqa', input: INPUT('mcqa'), limit: 5, numRepeats: 4, concurrency: 2, durability: 'rollout', model: { accuracy: 0.5, seed: 3, latency_ms: 500 } },
    drive: (handle, { runDir }) => cancelMidway(handle, runDir),
    ends: 'CANCELLED',
  },
];

async function capture(server: TestServer, client: Client, scenario: Scenario) {
  const runDir = await tempDir('gymflow-histories-');
  const { input, ...run } = scenario.run;
  const made = runConfig({ model: { accuracy: 0.5, seed: 3 }, ...run, runDir, inputFile: path.resolve(input) });
  const base = scenario.rolloutQueue ? { ...made, rolloutQueue: `${made.taskQueue}-rollouts` } : made;
  const config = scenario.unreachableModel ? { ...base, model: parseModelSpec({ backend: 'openai', model: 'unreachable', base_url: CLOSED_PORT_URL, api_key_env: KEY_ENV }) } : base;
  await scenario.prepare?.(runDir);
  const total = (run.limit ?? 5) * (run.numRepeats ?? 1);
  const connection = await NativeConnection.connect({ address: server.address });
  try {
    const handle = await startRunWorkflow(server, config);
    const worker = await createGymWorker({ connection, namespace: 'default', taskQueue: config.taskQueue, logger: quietLogger });
    const rollouts = config.rolloutQueue ? await createGymWorker({ connection, namespace: 'default', taskQueue: config.rolloutQueue, role: 'rollouts', logger: quietLogger }) : undefined;
    const ended = (async () => {
      await scenario.drive?.(handle, { total, runDir });
      await handle.result().catch(() => {});
    })();
    await Promise.all([worker.run(ended), rollouts?.run(ended)]);
    const status = (await handle.describe()).status.name;
    if (status !== scenario.ends) throw new Error(`"${scenario.what}" ended ${status}, not ${scenario.ends}`);
  } finally {
    await connection.close();
  }
  return captureRunHistories(client, runWorkflowId(config.runId));
}

const name = process.argv[2] ?? 'v1';
// The unreachable model's key: never sent anywhere, but the gateway wants one before it connects.
process.env[KEY_ENV] = 'unused';
const server = await startTestServer();
try {
  const client = await server.client();
  for (const [i, scenario] of SCENARIOS.entries()) {
    if (scenario.skip) {
      console.log(`${scenario.what}: skipped (${scenario.skip})`);
      continue;
    }
    const histories = await capture(server, client, scenario);
    const files = await saveHistories(histories, `${name}-${i}`);
    console.log(`${scenario.what}: ${files.length} histories\n  ${files.map((f) => path.basename(f)).join('\n  ')}`);
  }
  await writeFile(WORKFLOWS_HASH_FILE, workflowsFingerprint());
  console.log(`wrote ${WORKFLOWS_HASH_FILE}`);
} finally {
  await server.stop();
}

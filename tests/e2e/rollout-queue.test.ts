// Workers per task queue: a run started with --rollout-queue orchestrates on its own queue (the `gym
// eval run` process) while whole rollouts are played by `gym worker start --role rollouts` processes on
// the rollout queue, each under its --max-rollouts cap. Nothing polls that queue at first: the person
// following the run is told so; once a rollouts worker starts, the resumed run completes exactly once.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWorkflowId } from '../../workflows/definitions';
import { expectFaultInvariants } from '../helpers/fault-invariants';
import { gym, gymLive } from '../helpers/gym-cli';
import { captureRunHistories } from '../helpers/histories';
import { tempDir } from '../helpers/run';
import { startTestServer, type TestServer } from '../helpers/temporal-server';
import { spawnWorker, type WorkerProcess } from '../helpers/worker-process';

const INPUT = path.resolve(import.meta.dirname, '../fixtures/nemo-gym/mcqa/example.jsonl');
const TASKS = readFileSync(INPUT, 'utf8').split('\n').filter(Boolean).length;
const REPEATS = 3;
const CAP = 2;

let server: TestServer;
let env: Record<string, string>;
const spawned: WorkerProcess[] = [];
beforeAll(async () => {
  server = await startTestServer();
  env = { TEMPORAL_ADDRESS: server.address, GYMFLOW_HOME: server.dir };
});
afterAll(async () => {
  await Promise.all(spawned.map((w) => w.kill()));
  await server?.stop();
});

const runArgs = (out: string, extra: string[] = []) => [
  'eval',
  'run',
  '--env',
  'mcqa',
  '--model',
  'mock',
  '--mock-latency-ms',
  '150',
  '--input',
  INPUT,
  '--num-repeats',
  String(REPEATS),
  '--concurrency',
  '8',
  '--durability',
  'rollout',
  '--output',
  out,
  ...extra,
];

/** The most model calls in progress at one moment, from the calls' own start times and latencies. */
function peakConcurrentCalls(runDir: string): number {
  const dir = path.join(runDir, 'model_calls');
  const calls = readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .flatMap((f) =>
      readFileSync(path.join(dir, f), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { started_at: number; latency_ms: number }),
    );
  expect(calls.length).toBe(TASKS * REPEATS);
  const edges = calls.flatMap((c) => [
    [c.started_at, 1],
    [c.started_at + c.latency_ms, -1],
  ]);
  // An end and a start at the same instant are not an overlap.
  edges.sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
  let now = 0;
  let peak = 0;
  for (const [, d] of edges) peak = Math.max(peak, (now += d!));
  return peak;
}

type HistoryEvent = {
  eventId: string;
  activityTaskScheduledEventAttributes?: { activityType: { name: string }; taskQueue: { name: string } };
  activityTaskStartedEventAttributes?: { scheduledEventId: string; identity: string };
  workflowTaskCompletedEventAttributes?: { identity: string };
};

/** Who ran what in the run's histories: each batch's queue and worker, and the workflow tasks' workers. */
async function whoRan(runId: string) {
  const histories = await captureRunHistories(await server.client(), runWorkflowId(runId));
  const batches: { queue: string; identity: string }[] = [];
  const workflowTasks = new Set<string>();
  for (const { json } of histories) {
    const events = (JSON.parse(json) as { events: HistoryEvent[] }).events;
    const scheduled = new Map(events.filter((e) => e.activityTaskScheduledEventAttributes).map((e) => [e.eventId, e.activityTaskScheduledEventAttributes!]));
    for (const e of events) {
      const started = e.activityTaskStartedEventAttributes;
      const task = started && scheduled.get(started.scheduledEventId);
      if (task?.activityType.name === 'runRolloutBatch') batches.push({ queue: task.taskQueue.name, identity: started!.identity });
      if (e.workflowTaskCompletedEventAttributes) workflowTasks.add(e.workflowTaskCompletedEventAttributes.identity);
    }
  }
  return { batches, workflowTasks };
}

describe('--rollout-queue with a rollouts worker of its own', () => {
  it('waits for a rollouts worker (and says so), then plays every rollout there, under its cap, exactly once', async () => {
    const runDir = path.join(await tempDir('gymflow-rollout-queue-'), 'run');
    const queue = `rollouts-${path.basename(path.dirname(runDir))}`;

    // No worker polls the rollout queue: the run waits for one and says so; Ctrl-C leaves it resumable.
    const waiting = gymLive(runArgs(runDir, ['--rollout-queue', queue]), env, 120_000);
    await waiting.until(() => waiting.stdout().includes(`no worker polls rollout queue ${queue} yet`), 'the unpolled-queue hint', 60_000);
    expect(waiting.stdout()).toContain(`gym worker start --task-queue ${queue} --role rollouts`);
    expect(readdirSync(runDir)).not.toContain('rollouts.jsonl');
    process.kill(waiting.pid, 'SIGINT');
    expect(await waiting.exited).toBe(130);

    // A rollouts worker for that run (found from its folder), capped at CAP rollouts at once.
    const rollouts = spawnWorker(env, { runDir }, ['--role', 'rollouts', '--max-rollouts', String(CAP)]);
    spawned.push(rollouts);
    const resumed = await gym(['eval', 'resume', runDir], env, { timeoutMs: 240_000 });
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(resumed.stdout).not.toContain('no worker polls rollout queue');
    rollouts.assertAlive();
    expect(rollouts.output()).toContain(`worker polling rollout batches of task queue ${queue}`);

    const { records } = await expectFaultInvariants(runDir, { tasks: TASKS, repeats: REPEATS, env: 'mcqa' });
    expect(records).toHaveLength(TASKS * REPEATS);
    // The cap holds over the worker's batches: with 8 rollouts asked in flight, never more than CAP calls at once.
    const peak = peakConcurrentCalls(runDir);
    expect(peak).toBeLessThanOrEqual(CAP);
    expect(peak).toBe(CAP);

    // Every batch ran on the rollouts worker, and no workflow task did.
    const manifest = JSON.parse(readFileSync(path.join(runDir, 'manifest.json'), 'utf8')) as { run_id: string; config: { rolloutQueue?: string } };
    expect(manifest.config.rolloutQueue).toBe(queue);
    const ran = await whoRan(manifest.run_id);
    const rolloutsWorker = `${rollouts.child.pid}@`;
    expect(ran.batches.length).toBeGreaterThan(0);
    for (const b of ran.batches) {
      expect(b.queue).toBe(queue);
      expect(b.identity.startsWith(rolloutsWorker), `batch run by ${b.identity}`).toBe(true);
    }
    expect(ran.workflowTasks.size).toBeGreaterThan(0);
    for (const id of ran.workflowTasks) expect(id.startsWith(rolloutsWorker), `workflow task run by ${id}`).toBe(false);
  }, 400_000);

  it('refuses what cannot work, naming the flag', async () => {
    const out = path.join(await tempDir('gymflow-rollout-queue-bad-'), 'run');
    const turn = await gym([...runArgs(out, ['--rollout-queue', 'elsewhere']).filter((a) => a !== 'rollout' && a !== '--durability')], env);
    expect(turn.code).toBe(2);
    expect(turn.stderr).toMatch(/--rollout-queue elsewhere needs the rollout grain/);
    const noQueue = await gym(['worker', 'start', '--task-queue', 'x', '--role', 'sandboxes'], env);
    expect(noQueue.code).toBe(2);
    expect(noQueue.stderr).toMatch(/--role sandboxes: use all or rollouts/);
    const cap = await gym(['worker', 'start', '--task-queue', 'x', '--max-rollouts', '0'], env);
    expect(cap.code).toBe(2);
    expect(cap.stderr).toMatch(/--max-rollouts/);
  }, 120_000);
});

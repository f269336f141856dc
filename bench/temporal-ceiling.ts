// The Temporal ceiling on this machine: workflow executions/s, activities/s and local activities/s against
// the embedded dev server, with no-op work, so every Gymflow figure can be shown as a fraction of it.
//   node --import tsx bench/temporal-ceiling.ts [--executions 500] [--activities 2000] [--local-activities 5000] [--window 256]
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker, makeTelemetryFilterString } from '@temporalio/worker';
import { startTestServer, type TestServer } from '../tests/helpers/temporal-server';
import * as activities from './temporal/activities';
import type { WindowInput } from './temporal/workflows';
import { measure, printResults, type CaseResult, type Sample } from './lib/cases';
import { parseFlags, runMain } from './lib/flags';
import { watchProcesses } from './lib/processes';

const TASK_QUEUE = 'bench-temporal-ceiling';
const WORKFLOWS_PATH = path.join(path.dirname(fileURLToPath(import.meta.url)), 'temporal', 'workflows.ts');

/** Runs `body` while watching this process and the Temporal server, adding their CPU and memory to the sample. */
async function withUsage(server: TestServer, body: () => Promise<Sample>): Promise<Sample> {
  const watch = watchProcesses({ roots: [server.info.pid] });
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const sample = await body();
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const serverUsage = watch.stop();
  return {
    seconds,
    ...sample,
    bench_cpu_seconds: (cpu.user + cpu.system) / 1e6,
    bench_rss_mib: process.memoryUsage().rss / 2 ** 20,
    server_cpu_seconds: serverUsage.cpu_seconds,
    server_rss_mib: serverUsage.peak_rss_mib,
  };
}

/** Starts `n` trivial workflows from the client, `window` at a time, each awaited to completion. */
async function trivialExecutions(client: Client, n: number, window: number, tag: string): Promise<Sample> {
  let next = 0;
  const lane = async () => {
    while (next < n) {
      const i = next++;
      await client.workflow.execute('trivialWorkflow', { taskQueue: TASK_QUEUE, workflowId: `bench-trivial-${tag}-${i}`, args: [] });
    }
  };
  await Promise.all(Array.from({ length: Math.min(window, n) }, lane));
  return { units: n };
}

async function oneWorkflow(client: Client, workflow: 'activitiesWorkflow' | 'localActivitiesWorkflow', input: WindowInput, tag: string): Promise<Sample> {
  const handle = await client.workflow.start(workflow, { taskQueue: TASK_QUEUE, workflowId: `bench-${workflow}-${tag}`, args: [input] });
  const done = await handle.result();
  const { historyLength } = await handle.describe();
  return { units: done, history_events: historyLength };
}

async function main(): Promise<void> {
  const flags = parseFlags('node --import tsx bench/temporal-ceiling.ts [flags]', {
    executions: { kind: 'int', default: 500, min: 1, help: 'trivial workflow executions per repeat' },
    activities: { kind: 'int', default: 2000, min: 1, help: 'regular activities in one workflow per repeat' },
    'local-activities': { kind: 'int', default: 5000, min: 1, help: 'local activities in one workflow per repeat' },
    window: { kind: 'int', default: 256, min: 1, help: 'executions or activities in flight at once' },
    repeats: { kind: 'int', default: 3, min: 1, help: 'runs per case; the medians are reported' },
  });
  // The SDK's own logs (and its Rust core's) go to stderr: stdout carries only the result line.
  Runtime.install({
    logger: new DefaultLogger('WARN', (entry) => process.stderr.write(`${entry.level} ${entry.message} ${JSON.stringify(entry.meta ?? {})}\n`)),
    telemetryOptions: { logging: { forward: {}, filter: makeTelemetryFilterString({ core: 'WARN' }) } },
    shutdownSignals: [],
  });
  const server = await startTestServer();
  const connection = await NativeConnection.connect({ address: server.address });
  // Slots above the window, so the worker's own limits are not what is measured.
  const slots = flags.window * 2;
  const worker = await Worker.create({
    connection,
    taskQueue: TASK_QUEUE,
    workflowsPath: WORKFLOWS_PATH,
    activities,
    maxConcurrentActivityTaskExecutions: slots,
    maxConcurrentLocalActivityExecutions: slots,
  });
  const cases: CaseResult[] = [];
  try {
    await worker.runUntil(async () => {
      const client = await server.client();
      const { window, repeats } = flags;
      cases.push(
        await measure('workflow per unit', (r) => withUsage(server, () => trivialExecutions(client, flags.executions, window, `${Date.now()}-${r}`)), {
          unit: 'workflow executions',
          params: { executions: flags.executions, window },
          repeats,
        }),
      );
      cases.push(
        await measure('activities in one workflow', (r) => withUsage(server, () => oneWorkflow(client, 'activitiesWorkflow', { n: flags.activities, window }, `${Date.now()}-${r}`)), {
          unit: 'activities',
          params: { activities: flags.activities, window },
          repeats,
        }),
      );
      cases.push(
        await measure(
          'local activities in one workflow',
          (r) => withUsage(server, () => oneWorkflow(client, 'localActivitiesWorkflow', { n: flags['local-activities'], window }, `${Date.now()}-${r}`)),
          { unit: 'local activities', params: { local_activities: flags['local-activities'], window }, repeats },
        ),
      );
    });
  } finally {
    await connection.close();
    await server.stop();
  }
  printResults('temporal-ceiling', cases, { server: 'temporal server start-dev (SQLite, WAL), tests/helpers/temporal-server.ts' });
}

runMain(main);

// A worker process running only the sandbox activities and the test sandbox workflow, so a test can SIGKILL
// it mid-exec like a crashed worker: `sandbox-worker.ts <address> <task queue>`; prints "ready" once polling.
import path from 'node:path';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createSandboxActivities } from '../../activities/sandbox';
import pino from 'pino';
import { workflowBundle } from '../../workers/bundle';
import { installRuntime } from '../../workers/worker';

installRuntime(pino({ level: 'error' }));

const [address, taskQueue] = process.argv.slice(2);
const connection = await NativeConnection.connect({ address: address! });
const worker = await Worker.create({
  connection,
  taskQueue: taskQueue!,
  workflowBundle: await workflowBundle(path.join(import.meta.dirname, '../sandboxes/sandbox-workflow.ts'), []),
  activities: createSandboxActivities(),
});
process.stdout.write('ready\n');
await worker.run();

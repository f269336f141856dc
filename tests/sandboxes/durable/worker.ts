// A test-only worker process for the sandbox step (run with tsx), so a test can SIGKILL it mid-exec:
// GF_TEMPORAL_ADDRESS, GF_TASK_QUEUE, GF_DOCKER_SOCKET and GF_WORKFLOW_BUNDLE (a prebuilt bundle file).
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { DockerProvider } from '../../../src/sandboxes/docker/provider';
import { createSandboxStepActivities } from './activities';

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

Runtime.install({ logger: new DefaultLogger('WARN') });
const connection = await NativeConnection.connect({ address: env('GF_TEMPORAL_ADDRESS') });
const worker = await Worker.create({
  connection,
  taskQueue: env('GF_TASK_QUEUE'),
  workflowBundle: { codePath: env('GF_WORKFLOW_BUNDLE') },
  activities: createSandboxStepActivities(new DockerProvider({ socketPath: env('GF_DOCKER_SOCKET') })),
});
console.log('worker ready');
await worker.run();

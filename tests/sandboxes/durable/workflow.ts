// A test-only workflow: one sandboxed step as an activity with heartbeats and retries, the shape a
// rollout's sandbox steps take, so a worker SIGKILLed mid-exec can be shown to leave nothing behind.
import { proxyActivities } from '@temporalio/workflow';
import type { SandboxStepInput, SandboxStepActivities } from './activities';

const { runSandboxStep } = proxyActivities<SandboxStepActivities>({
  startToCloseTimeout: '5 minutes',
  // A dead worker stops heartbeating: past this the step is retried on another worker.
  heartbeatTimeout: '3 seconds',
  retry: { initialInterval: '200 milliseconds', maximumAttempts: 3 },
});

export async function sandboxStepWorkflow(input: SandboxStepInput): Promise<{ attempt: number; stdout: string }> {
  return runSandboxStep(input);
}

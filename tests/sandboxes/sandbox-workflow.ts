// A test workflow (not part of the product's workflows): one sandboxed command the way a rollout runs one —
// provision, exec with heartbeats, and a destroy that runs even when the workflow is cancelled.
import { CancellationScope, proxyActivities } from '@temporalio/workflow';
import type { ExecInSandboxInput, ProvisionSandboxInput, SandboxActivities } from '../../activities/sandbox';

const steps = proxyActivities<SandboxActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '5 seconds',
  retry: { initialInterval: '200 milliseconds', maximumAttempts: 5 },
});

export async function sandboxedCommand(input: { provision: ProvisionSandboxInput; exec: Omit<ExecInSandboxInput, 'sandboxId'> }) {
  const { sandboxId } = await steps.provisionSandbox(input.provision);
  const target = { provider: input.provision.provider, providerOptions: input.provision.providerOptions };
  try {
    return { sandboxId, ...(await steps.execInSandbox({ ...input.exec, ...target, sandboxId })) };
  } finally {
    await CancellationScope.nonCancellable(() => steps.destroySandbox({ ...target, sandboxId }));
  }
}

// A test-only sandboxed step: removes what earlier attempts of the same rollout left (their worker
// died), runs a command in a fresh docker sandbox while heartbeating, and always destroys its sandbox.
import { Context } from '@temporalio/activity';
import type { DockerProvider } from '../../../src/sandboxes/docker/provider';

export interface SandboxStepInput {
  run: string;
  rollout: string;
  image: string;
  /** A host folder shown at /out: the first attempt marks there that its command runs. */
  outDir: string;
}

export function createSandboxStepActivities(provider: DockerProvider) {
  return {
    async runSandboxStep(input: SandboxStepInput): Promise<{ attempt: number; stdout: string }> {
      const { attempt } = Context.current().info;
      const beat = setInterval(() => Context.current().heartbeat(), 500);
      try {
        for (const leftover of await provider.list({ run: input.run, rollout: input.rollout })) {
          await (await provider.attach(leftover.id)).destroy();
        }
        const sandbox = await provider.create({
          image: input.image,
          labels: { run: input.run, rollout: input.rollout, attempt, user: 'durable-test' },
          mounts: [{ hostPath: input.outDir, path: '/out', writable: true }],
        });
        try {
          // The first attempt's command outlives its worker (the test kills that worker meanwhile).
          const line = attempt === 1 ? 'touch /out/running; sleep 600' : `echo done-${attempt}`;
          const result = await sandbox.exec({ command: ['sh', '-c', line], timeoutMs: 600_000 });
          return { attempt, stdout: result.stdout.trim() };
        } finally {
          await sandbox.destroy();
        }
      } finally {
        clearInterval(beat);
      }
    },
  };
}

export type SandboxStepActivities = ReturnType<typeof createSandboxStepActivities>;

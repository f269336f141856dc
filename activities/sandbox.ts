// A rollout's sandbox as durable steps: provision (found again by its labels when retried), exec as a
// detached command re-attached by id on retry (so a killed worker's command never runs twice), and destroy.
import { Context } from '@temporalio/activity';
import { z } from 'zod';
import { GymError, isGymError } from '../src/errors';
import type { SandboxProvider } from '../src/sandboxes/provider';
import { sandboxProvider } from '../src/sandboxes/registry';
import { ExecRequest, ProviderName, SandboxSpec } from '../src/sandboxes/schema';
import { runActivity } from './envelope';

const Target = z.strictObject({
  provider: ProviderName.default('local'),
  /** The provider's own options (local: root, unsafeNoIsolation); never secrets, they are in the history. */
  providerOptions: z.record(z.string(), z.unknown()).default({}),
});

export const ProvisionSandboxInput = Target.extend({
  spec: SandboxSpec,
  /**
   * Sandbox variables whose values come from this worker's environment (name inside → name here): how
   * a key reaches the sandbox without entering the workflow's input or history.
   */
  envFromWorker: z.record(z.string(), z.string()).default({}),
});
export type ProvisionSandboxInput = z.input<typeof ProvisionSandboxInput>;

export const ExecInSandboxInput = Target.extend({
  sandboxId: z.string().min(1),
  /** Stable across retries (default: the workflow's and activity's ids), so a retry re-attaches. */
  commandId: z.string().min(1).optional(),
  request: ExecRequest,
  /** How much of each stream's end the result keeps (it goes into the history). */
  tailBytes: z
    .number()
    .int()
    .positive()
    .max(1 << 20)
    .default(64 * 1024),
});
export type ExecInSandboxInput = z.input<typeof ExecInSandboxInput>;

export const DestroySandboxInput = Target.extend({ sandboxId: z.string().min(1) });
export type DestroySandboxInput = z.input<typeof DestroySandboxInput>;

export interface SandboxExecOutcome {
  commandId: string;
  exitCode: number | null;
  timedOut: boolean;
  stdoutTail: string;
  stderrTail: string;
  /** Which attempt of the activity saw it finish (a retry that re-attached says > 1). */
  attempt: number;
}

/** How long one status poll waits for the command to exit before the activity heartbeats again. */
const POLL_MS = 2_000;

function parse<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new GymError('BAD_INPUT', `${what} field "${issue.path.join('.') || '(root)'}": ${issue.message}`);
  }
  return parsed.data;
}

const tail = (text: string, bytes: number) => {
  const buffer = Buffer.from(text, 'utf8');
  return buffer.length <= bytes ? text : buffer.subarray(buffer.length - bytes).toString('utf8');
};

export function createSandboxActivities(deps: { provider?: (name: string, options: Record<string, unknown>) => Promise<SandboxProvider> } = {}) {
  const providerOf = (target: z.output<typeof Target>) => (deps.provider ?? sandboxProvider)(target.provider, target.providerOptions);

  async function provisionSandbox(raw: ProvisionSandboxInput): Promise<{ sandboxId: string }> {
    const input = parse(ProvisionSandboxInput, raw, 'provisionSandbox input');
    const provider = await providerOf(input);
    const { labels } = input.spec;
    // A retry after a worker died mid-create takes the sandbox that attempt made, instead of a second one.
    const existing = (await provider.list(labels)).find((info) => info.state === 'running');
    if (existing) return { sandboxId: (await provider.attach(existing.id)).id };
    const env = { ...input.spec.env };
    for (const [inside, here] of Object.entries(input.envFromWorker)) {
      const value = process.env[here];
      if (value === undefined) throw new GymError('SETUP_FAILED', `sandbox variable ${inside} comes from this worker's ${here}, which is not set`);
      env[inside] = value;
    }
    return { sandboxId: (await provider.create({ ...input.spec, env })).id };
  }

  async function execInSandbox(raw: ExecInSandboxInput): Promise<SandboxExecOutcome> {
    const input = parse(ExecInSandboxInput, raw, 'execInSandbox input');
    const ctx = Context.current();
    const commandId = input.commandId ?? `${ctx.info.workflowExecution?.workflowId ?? 'activity'}-${ctx.info.activityId}`.replace(/[^A-Za-z0-9._-]/g, '_').slice(-128);
    const sandbox = await (await providerOf(input)).attach(input.sandboxId);
    await sandbox.startCommand(input.request, { commandId });
    for (;;) {
      if (ctx.cancellationSignal.aborted) {
        await sandbox.killCommand(commandId);
        throw ctx.cancellationSignal.reason ?? new GymError('TIMEOUT', `command ${commandId} was cancelled`);
      }
      const status = await sandbox.commandStatus(commandId, { waitMs: POLL_MS });
      ctx.heartbeat({ commandId });
      if (status.state === 'exited') {
        return {
          commandId,
          exitCode: status.exitCode,
          timedOut: status.timedOut,
          stdoutTail: tail(status.stdoutTail, input.tailBytes),
          stderrTail: tail(status.stderrTail, input.tailBytes),
          attempt: ctx.info.attempt,
        };
      }
    }
  }

  /** Idempotent; the workflow runs it in a non-cancellable scope, so a cancelled rollout still cleans up. */
  async function destroySandbox(raw: DestroySandboxInput): Promise<void> {
    const input = parse(DestroySandboxInput, raw, 'destroySandbox input');
    try {
      await (await (await providerOf(input)).attach(input.sandboxId)).destroy();
    } catch (error) {
      if (!(isGymError(error) && error.code === 'NOT_FOUND')) throw error;
    }
  }

  return {
    provisionSandbox: (input: ProvisionSandboxInput) => runActivity(() => provisionSandbox(input)),
    execInSandbox: (input: ExecInSandboxInput) => runActivity(() => execInSandbox(input)),
    destroySandbox: (input: DestroySandboxInput) => runActivity(() => destroySandbox(input)),
  };
}

export type SandboxActivities = ReturnType<typeof createSandboxActivities>;

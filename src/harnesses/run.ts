// One harness rollout in a sandbox: provision it (the task's repository or an empty folder, the harness's
// install shown read-only, only the gateway reachable), run the CLI headless under a deadline, grade a
// sandboxed task with its tests (in the same sandbox, or fresh ones it asks for), and destroy them all whatever happened.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { GymError } from '../errors';
import type { AnyEnvironment, SandboxPhase } from '../environments/types';
import type { Sandbox, SandboxProvider } from '../sandboxes/provider';
import type { SandboxLabels } from '../sandboxes/schema';
import type { ModelCallRecord } from '../schemas/records';
import type { VerifyResult } from '../schemas/verify';
import { requireInstalled } from './install';
import { harnessPrompt, harnessWork, type HarnessWork } from './task';
import { KEY_IN_FILE, type HarnessAdapter, type HarnessReport } from './types';

/** The run's own HOME inside the sandbox (the sandbox's private /tmp): state, sqlite and caches go there. */
export const HARNESS_HOME = '/tmp/gymflow-home';
const SYSTEM_PATH = '/usr/local/bin:/usr/bin:/bin';
/** Extra life the sandbox gets past the harness's deadline, for uploading and the tests. */
const SANDBOX_MARGIN_MS = 120_000;

export interface HarnessRolloutInput {
  harness: HarnessAdapter;
  provider: SandboxProvider;
  env: AnyEnvironment;
  task: any;
  labels: SandboxLabels;
  /**
   * What the sandbox is made from (`SandboxSpec.image`: for docker an image in the engine, for local a
   * root file system folder); absent, local shows the worker's own system folders and Node.
   */
  image?: string;
  /** The rollout-scoped gateway URL (`…/r/<attempt id>/v1`). */
  baseUrl: string;
  /** The gateway's token: set only in the harness process's environment (or a file inside the sandbox for cline). */
  apiKey: string;
  model: string;
  timeoutMs: number;
  /** The agent config's `system_prompt` (task.ts's harnessPrompt puts it where the harness takes it). */
  systemPrompt?: string;
  /** Names the task in errors (e.g. `task 3`); default `the task`. */
  label?: string;
  signal?: AbortSignal;
  /** Hears the sandbox's id once it exists (so a caller can name it in a heartbeat or reap it). */
  onSandbox?(id: string): void;
}

export interface HarnessRun {
  sandboxId: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  durationMs: number;
  stdoutTail: string;
  stderrTail: string;
  report: HarnessReport;
  /** Present when the harness finished cleanly on a sandboxed task and its tests were run. */
  verify?: VerifyResult;
}

function endpointOf(baseUrl: string): { host: string; port: number } {
  const url = new URL(baseUrl);
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)) };
}

const parentOf = (file: string) => file.slice(0, file.lastIndexOf('/')) || '/';

async function writeFiles(sandbox: Sandbox, files: { path: string; content: string }[], signal?: AbortSignal): Promise<void> {
  const dirs = [...new Set(files.map((f) => parentOf(f.path)))];
  if (dirs.length) {
    const made = await sandbox.exec({ command: ['mkdir', '-p', ...dirs], timeoutMs: 30_000 }, { signal });
    if (made.exitCode !== 0) throw new GymError('ENV_ERROR', `cannot create ${dirs.join(', ')} in sandbox ${sandbox.id}: ${made.stderr.trim()}`);
  }
  for (const file of files) await sandbox.writeFile(file.path, file.content);
}

/**
 * One empty host folder per scratch path, shown writable in the sandbox. World-writable: the sandbox's
 * user (docker's 1000:1000, the jail's) is not the worker's. Removed after the sandbox is gone.
 */
async function scratchMounts(paths: readonly string[]): Promise<{ mounts: { hostPath: string; path: string; writable: true }[]; remove(): Promise<void> }> {
  const mounts: { hostPath: string; path: string; writable: true }[] = [];
  const remove = () => Promise.all(mounts.map((m) => rm(m.hostPath, { recursive: true, force: true }))).then(() => undefined);
  try {
    for (const at of paths) {
      const hostPath = await mkdtemp(path.join(os.tmpdir(), 'gymflow-scratch-'));
      await chmod(hostPath, 0o777);
      mounts.push({ hostPath, path: at, writable: true });
    }
  } catch (e) {
    await remove();
    throw new GymError('SETUP_FAILED', `cannot make the scratch folders ${paths.join(', ')} for the sandbox: ${(e as Error).message}`);
  }
  return { mounts, remove };
}

/**
 * A sandboxed task's start in `sandbox`: the repository's files written into the workdir, then the task's
 * own setup for `phase` (the harness's sandbox, or a verifier's fresh one).
 */
export async function provisionTask(sandbox: Sandbox, work: Pick<HarnessWork, 'workdir' | 'files' | 'sandboxed'>, task: unknown, phase: SandboxPhase, signal?: AbortSignal): Promise<void> {
  await writeFiles(
    sandbox,
    Object.entries(work.files).map(([file, content]) => ({ path: `${work.workdir}/${file}`, content })),
    signal,
  );
  await work.sandboxed?.setup?.(task, sandbox, phase);
}

export async function runHarnessRollout(input: HarnessRolloutInput): Promise<HarnessRun> {
  const { harness, task } = input;
  const work = harnessWork(input.env, task, input.label ?? 'the task');
  // A Python harness runs on the worker's Python (its copy) and tmux: a sandbox made from an image has neither.
  if (harness.install.kind === 'pypi' && input.image !== undefined)
    throw new GymError('SETUP_FAILED', `harness ${harness.name} runs only in a local sandbox without --sandbox-image (it needs the worker's Python and tmux); ${input.image} was given`);
  // An image has no Node of the worker's: the harness brings the pinned one, mounted like its install.
  const install = requireInstalled(harness, { bringNode: input.image !== undefined });
  const workdir = work.workdir;
  const prompt = harnessPrompt(work, input.systemPrompt, harness);
  const invocation = harness.invocation({ workspace: workdir, home: HARNESS_HOME, ...prompt, baseUrl: input.baseUrl, model: input.model, timeoutMs: input.timeoutMs });
  const scratch = await scratchMounts(work.scratch ?? []);
  let sandbox: Sandbox;
  try {
    sandbox = await input.provider.create({
      ...(input.image !== undefined ? { image: input.image } : {}),
      workdir,
      network: { mode: 'allow', endpoints: [endpointOf(input.baseUrl)] },
      mounts: [...install.mounts.map((mount) => ({ ...mount, writable: false })), ...scratch.mounts],
      resources: { lifetimeMs: input.timeoutMs + SANDBOX_MARGIN_MS },
      labels: input.labels,
    });
  } catch (e) {
    await scratch.remove();
    throw e;
  }
  input.onSandbox?.(sandbox.id);
  const verifiers: { sandbox?: Sandbox; scratch: Awaited<ReturnType<typeof scratchMounts>> }[] = [];
  /** A verifier's sandbox: the harness's start again (image, repository, setup), empty scratch folders, no network. */
  const fresh = async (): Promise<Sandbox> => {
    const made: (typeof verifiers)[number] = { scratch: await scratchMounts(work.scratch ?? []) };
    verifiers.push(made);
    made.sandbox = await input.provider.create({
      ...(input.image !== undefined ? { image: input.image } : {}),
      workdir,
      network: { mode: 'none' },
      mounts: made.scratch.mounts,
      resources: { lifetimeMs: input.timeoutMs + SANDBOX_MARGIN_MS },
      labels: input.labels,
    });
    input.onSandbox?.(made.sandbox.id);
    await provisionTask(made.sandbox, work, task, 'verifier', input.signal);
    return made.sandbox;
  };
  try {
    await provisionTask(sandbox, work, task, 'agent', input.signal);
    // A file that must hold the key gets it only here, inside the sandbox; the invocation itself never does.
    await writeFiles(
      sandbox,
      invocation.files.map((f) => ({ path: f.path, content: f.content.split(KEY_IN_FILE).join(input.apiKey) })),
      input.signal,
    );
    const result = await sandbox.exec(
      {
        command: [install.command, ...invocation.args],
        cwd: workdir,
        env: { ...invocation.env, HOME: HARNESS_HOME, PATH: [...install.path, SYSTEM_PATH].join(':'), [invocation.keyEnv]: input.apiKey },
        timeoutMs: input.timeoutMs,
      },
      { signal: input.signal },
    );
    const run: HarnessRun = {
      sandboxId: sandbox.id,
      exitCode: result.exitCode,
      signal: result.signal,
      timedOut: result.timedOut,
      durationMs: result.durationMs,
      stdoutTail: result.stdout.slice(-8000),
      stderrTail: result.stderr.slice(-8000),
      report: harness.report(result.stdout),
    };
    if (result.exitCode === 0 && !result.timedOut && work.sandboxed) run.verify = await work.sandboxed.verify(task, sandbox, { fresh });
    return run;
  } finally {
    try {
      await Promise.all([sandbox.destroy(), ...verifiers.map((v) => v.sandbox?.destroy())]);
    } finally {
      await Promise.all([scratch.remove(), ...verifiers.map((v) => v.scratch.remove())]);
    }
  }
}

/**
 * Why a harness run failed, as a rollout failure (never a zero reward): past its deadline, stopped by
 * the gateway's caps, ended on a failed model call, or the harness itself exiting non-zero. Some
 * harnesses (pi) report a refused model call and exit 0, so the calls decide before the exit code does.
 */
export function harnessFailure(
  harness: HarnessAdapter,
  run: Pick<HarnessRun, 'timedOut' | 'exitCode' | 'signal' | 'stderrTail'>,
  calls: readonly ModelCallRecord[],
  timeoutMs: number,
): GymError | undefined {
  if (run.timedOut) return new GymError('TIMEOUT', `harness ${harness.name} ran past its ${timeoutMs} ms deadline and was killed (its ${calls.length} model calls are kept in model_calls/)`);
  const how = run.exitCode === null ? `was killed by ${run.signal ?? 'a signal'}` : `exited with status ${run.exitCode}`;
  const capped = calls.find((c) => c.error?.code === 'rollout_cap_exceeded');
  if (capped) return new GymError('CAP_EXCEEDED', `harness ${harness.name} was stopped by the rollout's cap and ${how}: ${capped.error!.message}`);
  const last = calls.at(-1);
  // A failed call followed by answered ones is one the harness retried: only ending on one is a failure.
  if (last?.error) return new GymError('MODEL_ERROR', `harness ${harness.name} ${how} after its last model call failed (${last.error.code}: ${last.error.message})`);
  if (run.exitCode === 0) return undefined;
  const failed = [...calls].reverse().find((c) => c.error);
  if (failed) return new GymError('MODEL_ERROR', `harness ${harness.name} ${how} after a failed model call (${failed.error!.code}: ${failed.error!.message})`);
  const tail = run.stderrTail.trim().split('\n').slice(-5).join('\n');
  return new GymError('ENV_ERROR', `harness ${harness.name} ${how}${tail ? `:\n${tail}` : ''}`);
}

// A local sandbox's detached commands: each runs under its own supervisor process (supervisor.mjs), which
// outlives the worker, so a retried activity on another worker finds the same command by id and waits on it.
import { spawn } from 'node:child_process';
import { open, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { GymError } from '../../errors';
import { OUTPUT_TAIL_BYTES, type CommandStatus } from '../schema';
import type { JailLaunch } from './bwrap';
import { MARKER } from './processes';
import { processStartTime } from './record';
import { checkCommandId } from '../detached';

const SUPERVISOR = fileURLToPath(new URL('./supervisor.mjs', import.meta.url));
const POLL_MS = 50;
/** A supervisor that has not said who it is this long after its folder was made never started. */
const START_GRACE_MS = 15_000;

const Status = z.object({ exitCode: z.number().int().nullable(), signal: z.string().nullable(), timedOut: z.boolean(), error: z.string().optional() });
const Supervisor = z.object({ pid: z.number().int(), startTime: z.number() });

const folder = (commandsDir: string, id: string) => join(commandsDir, checkCommandId(id));

/**
 * Starts the jail under a supervisor, unless a command with this id was already started (then it is
 * left alone: starting is idempotent, which is what lets a retried activity re-attach).
 */
export async function startDetached(commandsDir: string, id: string, sandboxId: string, launch: JailLaunch, deadlineAt: number, stdin: string | undefined): Promise<{ started: boolean }> {
  const dir = folder(commandsDir, id);
  try {
    await mkdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return { started: false };
    throw error;
  }
  await writeFile(join(dir, 'launch.json'), JSON.stringify({ ...launch, deadlineAt, stdin }), { mode: 0o600 });
  const child = spawn(process.execPath, [SUPERVISOR, dir], { detached: true, stdio: 'ignore', env: { [MARKER]: sandboxId } });
  child.unref();
  return { started: true };
}

async function readJson<T>(path: string, schema: z.ZodType<T>): Promise<T | undefined> {
  try {
    return schema.parse(JSON.parse(await readFile(path, 'utf8')));
  } catch {
    return undefined;
  }
}

const supervisorAlive = (who: z.infer<typeof Supervisor>): boolean => processStartTime(who.pid) === who.startTime;

async function tail(path: string): Promise<string> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch {
    return '';
  }
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, OUTPUT_TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    return buffer.toString('utf8');
  } finally {
    await handle.close();
  }
}

/** Where the command is; with `waitMs`, polls until it exits or that time passes. */
export async function detachedStatus(commandsDir: string, id: string, waitMs = 0): Promise<CommandStatus> {
  const dir = folder(commandsDir, id);
  const created = await stat(dir).catch(() => undefined);
  if (!created) throw new GymError('NOT_FOUND', `no command ${id} in this sandbox`);
  const until = Date.now() + waitMs;
  for (;;) {
    let status = await readJson(join(dir, 'status.json'), Status);
    if (!status) {
      const supervisor = await readJson(join(dir, 'supervisor.json'), Supervisor);
      const starting = !supervisor && Date.now() - created.mtimeMs < START_GRACE_MS;
      if (!starting && !(supervisor && supervisorAlive(supervisor))) {
        // It may have written its status just now; if not, it died without one (killed with its sandbox).
        status = (await readJson(join(dir, 'status.json'), Status)) ?? { exitCode: null, signal: 'SIGKILL', timedOut: false };
      }
    }
    if (status || Date.now() >= until) {
      const [stdoutTail, stderrTail] = await Promise.all([tail(join(dir, 'stdout')), tail(join(dir, 'stderr'))]);
      return {
        commandId: id,
        state: status ? 'exited' : 'running',
        exitCode: status?.exitCode ?? null,
        timedOut: status?.timedOut ?? false,
        stdoutTail,
        stderrTail: status?.error ? `${stderrTail}${status.error}\n` : stderrTail,
      };
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, Math.max(1, until - Date.now()))));
  }
}

/**
 * The command's supervisor. One started a moment ago may not have said who it is yet: it gets the start
 * grace to do so, so a kill right after a start is not lost. Undefined once the command has finished, or
 * when no supervisor ever came.
 */
async function startedSupervisor(dir: string): Promise<z.infer<typeof Supervisor> | undefined> {
  const created = await stat(dir).catch(() => undefined);
  if (!created) return undefined;
  for (;;) {
    const supervisor = await readJson(join(dir, 'supervisor.json'), Supervisor);
    if (supervisor) return supervisor;
    if ((await readJson(join(dir, 'status.json'), Status)) || Date.now() - created.mtimeMs >= START_GRACE_MS) return undefined;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Ends the command and everything it started; returns once its status is written (or its supervisor is gone). */
export async function killDetached(commandsDir: string, id: string): Promise<void> {
  const dir = folder(commandsDir, id);
  const supervisor = await startedSupervisor(dir);
  if (!supervisor || !supervisorAlive(supervisor)) return;
  process.kill(supervisor.pid, 'SIGTERM');
  const status = await detachedStatus(commandsDir, id, 10_000);
  // A supervisor that did not answer goes by force; its jail dies with it (bwrap --die-with-parent).
  if (status.state === 'running' && supervisorAlive(supervisor)) process.kill(supervisor.pid, 'SIGKILL');
}

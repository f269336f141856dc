// Runs the real `gym` command as a subprocess, the way a user does.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { waitFor } from './worker-process';

export const GYM = path.resolve(import.meta.dirname, '../../bin/gym.mjs');

export interface GymResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function gym(
  args: string[],
  env: Record<string, string | undefined> = {},
  opts: {
    timeoutMs?: number;
    /** Polled every 200 ms; call `interrupt` to send Ctrl-C. */ watch?: (interrupt: () => void) => void;
    /** Run as this user (and its group), e.g. so that root meets file permissions. */ uid?: number;
  } = {},
): Promise<GymResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [GYM, ...args], { env: { ...process.env, GYMFLOW_LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'], uid: opts.uid, gid: opts.uid });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
    const watcher = opts.watch ? setInterval(() => opts.watch!(() => child.kill('SIGINT')), 200) : undefined;
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => {
      clearTimeout(timer);
      clearInterval(watcher);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The command as a subprocess whose output can be watched while it runs. */
export function gymLive(args: string[], env: Record<string, string>, timeoutMs = 180_000) {
  const child = spawn(process.execPath, [GYM, ...args], { env: { ...process.env, GYMFLOW_LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => (clearTimeout(timer), resolve(code))));
  let code: number | null | undefined;
  void exited.then((c) => (code = c));
  return {
    pid: child.pid!,
    exited,
    stdout: () => stdout,
    stderr: () => stderr,
    /** Waits for `check`, failing at once (with the output) if the command ends first. */
    async until(check: () => boolean, what: string, ms = 180_000) {
      await waitFor(
        () => {
          if (code !== undefined && !check()) throw new Error(`gym exited (${code}) before ${what}:\n${stdout}\n${stderr.slice(-3000)}`);
          return check();
        },
        what,
        ms,
      );
    },
  };
}

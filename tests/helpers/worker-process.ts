// `gym worker start` as a real child process, so a test can SIGKILL it mid-run like a crash.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const GYM = path.resolve(import.meta.dirname, '../../bin/gym.mjs');

export interface WorkerProcess {
  child: ChildProcess;
  /** Throws (with the worker's output) when the process ended without being killed by the test. */
  assertAlive(): void;
  output(): string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** A worker for one run (its folder) or, with `taskQueue`, for a named pool; `flags` as `gym worker start` takes them. */
export function spawnWorker(env: Record<string, string>, target: { runDir: string } | { taskQueue: string }, flags: string[] = []): WorkerProcess {
  const args = [...('runDir' in target ? ['--run', target.runDir] : ['--task-queue', target.taskQueue]), ...flags];
  const child = spawn(process.execPath, [GYM, 'worker', 'start', ...args], {
    env: { ...process.env, GYMFLOW_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  let killed = false;
  return {
    child,
    output: () => out,
    assertAlive() {
      if (!killed && (child.exitCode !== null || child.signalCode !== null)) {
        throw new Error(`worker exited (${child.exitCode ?? child.signalCode}):\n${out}`);
      }
    },
    kill(signal = 'SIGKILL') {
      killed = true;
      return new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      });
    },
  };
}

/** Polls until `check` returns true; fails with `what` after the timeout. */
export async function waitFor(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

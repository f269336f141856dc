// A long-running `gym` command (`gym gateway serve`, `gym env serve`) as a real child process that a
// test can SIGKILL and start again on the same port, the way an operator's service dies and restarts.
import { spawn, type ChildProcess } from 'node:child_process';
import { GYM } from './gym-cli';
import { waitFor } from './worker-process';

export interface GymService {
  child: ChildProcess;
  output(): string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts `gym <args>` and resolves once its output matches `ready`; fails with its output if it exits first. */
export async function startGymService(args: string[], env: Record<string, string>, ready: RegExp): Promise<GymService> {
  const child = spawn(process.execPath, [GYM, ...args], { env: { ...process.env, GYMFLOW_LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const service: GymService = {
    child,
    output: () => out,
    kill: (signal = 'SIGKILL') =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      }),
  };
  try {
    await waitFor(
      () => {
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`gym ${args.join(' ')} exited (${child.exitCode ?? child.signalCode}):\n${out}`);
        return ready.test(out);
      },
      `gym ${args.slice(0, 2).join(' ')} to be ready`,
      300_000,
    );
  } catch (e) {
    // The caller never gets the service to stop, so a late starter must not outlive the test.
    await service.kill();
    throw e;
  }
  return service;
}

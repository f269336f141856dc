// `gym api serve` as a real child process: started with the given flags and environment, answered once it
// prints the address it serves on, and stopped with SIGTERM as a service manager would.
import { spawn, type ChildProcess } from 'node:child_process';
import { GYM } from './gym-cli';

export interface ApiProcess {
  child: ChildProcess;
  url: string;
  /** What it wrote to stderr (its log). */
  log(): string;
  stop(): Promise<void>;
}

/** `nodeArgs` go to node itself, before the gym script (the load bench's `--cpu-prof`). */
export async function spawnApiServe(args: string[], env: Record<string, string | undefined>, nodeArgs: string[] = []): Promise<ApiProcess> {
  const child = spawn(process.execPath, [...nodeArgs, GYM, 'api', 'serve', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      stdout += d;
      const m = /serving on (http:\/\/\S+)/.exec(stdout);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`gym api serve exited (${code}) before serving:\n${stdout}\n${stderr}`)));
  });
  return {
    child,
    url,
    log: () => stderr,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

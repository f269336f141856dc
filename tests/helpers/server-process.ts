// A server a test runs as a child process: spawned, asked until its probe says it is up (an exit or the deadline
// first is an error carrying its output), and stopped with SIGTERM, then SIGKILL if it has not gone in 5 s.
import { spawn, type ChildProcess } from 'node:child_process';

export interface ServerProcess {
  child: ChildProcess;
  /** The last 20,000 characters it wrote to stdout and stderr. */
  output(): string;
  stop(): Promise<void>;
}

export async function startServerProcess(opts: {
  /** What error messages call it. */
  name: string;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** Whether it is up; asked every pollMs until it is. */
  ready: () => Promise<boolean>;
  timeoutMs: number;
  pollMs?: number;
}): Promise<ServerProcess> {
  let output = '';
  const child = spawn(opts.command, opts.args, { env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const keep = (c: Buffer) => (output = (output + c.toString()).slice(-20_000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + opts.timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${opts.name} exited with ${child.exitCode} before it answered:\n${output}`);
    if (await opts.ready().catch(() => false)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${opts.name} did not answer within ${opts.timeoutMs / 1000} s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, opts.pollMs ?? 200));
  }
  return {
    child,
    output: () => output,
    async stop() {
      child.kill('SIGTERM');
      const killed = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(killed);
    },
  };
}

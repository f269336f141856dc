// Runs a program's unit tests in a local python3 subprocess (runner.py) with a memory limit, per-test
// alarms, and an overall deadline after which the whole process group is killed. Not a security
// sandbox: like NeMo Gym's harness it only disables destructive calls and bounds time and memory.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const RUNNER = fileURLToPath(new URL('./runner.py', import.meta.url));

export interface UnitTests {
  inputs: string[];
  outputs: string[];
  fn_name?: string | null;
}

export interface SandboxOptions {
  python: string;
  /** Per-test limit in whole seconds (Python's signal.alarm). */
  timeoutSecs: number;
  /** Address-space limit of the test process. */
  memoryBytes: number;
  /** Test processes allowed at once. */
  concurrency: number;
}

/** Per-test results as NeMo Gym reports them: true, false (call-based wrong answer), −1 (killed), −2, −3, −4. */
export type TestResult = boolean | number;

export interface TestRun {
  result: TestResult[];
  metadata: Record<string, unknown> | null;
}

class Gate {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly limit: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    try {
      return await work();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}

export function createSandbox(options: SandboxOptions): (code: string, tests: UnitTests) => Promise<TestRun> {
  const gate = new Gate(Math.max(1, options.concurrency));
  return (code, tests) => gate.run(() => runTests(code, tests, options));
}

/** NeMo Gym's overall deadline: (t + 1) seconds per test plus 5; past it every test counts −1. */
export function overallDeadlineMs(timeoutSecs: number, testCount: number): number {
  return ((timeoutSecs + 1) * testCount + 5) * 1000;
}

async function runTests(code: string, tests: UnitTests, options: SandboxOptions): Promise<TestRun> {
  const workDir = await mkdtemp(join(tmpdir(), 'gymflow-code-gen-'));
  try {
    const job = {
      code,
      inputs: tests.inputs,
      outputs: tests.outputs,
      fn_name: tests.fn_name ?? null,
      timeout: options.timeoutSecs,
      memory_bytes: options.memoryBytes,
    };
    const { report, stderr, killed } = await runRunner(job, workDir, options, overallDeadlineMs(options.timeoutSecs, tests.inputs.length));
    const lines = report.split('\n').filter((l) => l.trim() !== '');
    if (killed) return { result: tests.inputs.map(() => -1), metadata: null };
    if (lines.length === 0) {
      // The runner never got as far as running the program: a broken installation, not a wrong answer.
      throw new Error(`code_gen test runner failed before running the program (is ${options.python} installed?): ${stderr.slice(-2000)}`);
    }
    const final = lines.slice(1).map(parseReport).findLast((r) => Array.isArray(r?.result));
    // The program took the process down (os._exit, a fatal signal): NeMo Gym counts that like the deadline.
    if (!final) return { result: tests.inputs.map(() => -1), metadata: null };
    return { result: final.result!, metadata: final.metadata ?? null };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/** A report line; anything else on the channel (a program writing to fd 3) is ignored. */
function parseReport(line: string): Partial<TestRun> | undefined {
  try {
    return JSON.parse(line) as Partial<TestRun>;
  } catch {
    return undefined;
  }
}

function runRunner(
  job: object,
  cwd: string,
  options: SandboxOptions,
  deadlineMs: number,
): Promise<{ report: string; stderr: string; killed: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.python, ['-I', '-B', RUNNER], {
      cwd,
      // Its own process group, so the deadline kills whatever the program started too.
      detached: true,
      stdio: ['pipe', 'ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', HOME: cwd },
    });
    const report: Buffer[] = [];
    const stderr: Buffer[] = [];
    let stderrBytes = 0;
    let killed = false;
    const killGroup = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    // A descendant that left the group could hold the pipes open; stop waiting for them.
    const abandonPipes = () => {
      child.stdio[3]?.destroy();
      child.stderr?.destroy();
    };
    const timer = setTimeout(() => {
      killed = true;
      killGroup();
      abandonPipes();
    }, deadlineMs);
    child.stdio[3]!.on('data', (chunk: Buffer) => report.push(chunk));
    child.stderr!.on('data', (chunk: Buffer) => {
      if (stderrBytes < 65_536) stderr.push(chunk);
      stderrBytes += chunk.length;
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`cannot start ${options.python} for code_gen tests: ${error.message}`));
    });
    child.on('exit', () => {
      killGroup();
      setTimeout(abandonPipes, 1_000).unref();
    });
    child.on('close', () => {
      clearTimeout(timer);
      resolve({ report: Buffer.concat(report).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8'), killed });
    });
    child.stdin!.on('error', () => {
      // The runner may die before reading all of the job; its exit reports that.
    });
    child.stdin!.end(JSON.stringify(job));
  });
}

// Runs a program's unit tests: the program in a bubblewrap jail (executor.py), the grading outside it
// (grader.py), which alone holds the expected outputs, so no program can write its own verdict.
import { spawn } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SYSTEM_LIBRARIES, findOnPath, launchJail, type Jail } from '../../sandboxes/local/bwrap';

const EXECUTOR = fileURLToPath(new URL('./executor.py', import.meta.url));
const GRADER = fileURLToPath(new URL('./grader.py', import.meta.url));
const UNSAFE_HINT = 'give code_gen the setting unsafe_no_isolation=true (--env-option unsafe_no_isolation=true)';

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
  /** `none` runs the program without a jail: for machines without bubblewrap, and unsafe. */
  isolation: 'bwrap' | 'none';
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

interface Report {
  started: boolean;
  final?: Partial<TestRun>;
}

async function runTests(code: string, tests: UnitTests, options: SandboxOptions): Promise<TestRun> {
  // The job folder is readable by the jail's user; only the workspace in it is writable, and the
  // expected outputs never touch the disk.
  const dir = await mkdtemp(join(tmpdir(), 'gymflow-code-gen-'));
  try {
    await chmod(dir, 0o755);
    const workspace = join(dir, 'workspace');
    const executor = join(dir, 'executor.py');
    await mkdir(workspace);
    await copyFile(EXECUTOR, executor);
    const deadlineMs = overallDeadlineMs(options.timeoutSecs, tests.inputs.length);
    // The jail shows the interpreter at the path it is started by, which must be absolute.
    const python = options.python.includes('/') ? options.python : (findOnPath(options.python) ?? options.python);
    const jail = launchJail(
      {
        workspace,
        readOnly: [...SYSTEM_LIBRARIES, python, executor],
        env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8', HOME: workspace, TMPDIR: workspace },
        limits: {
          cpuSeconds: Math.ceil(deadlineMs / 1000) + 1,
          addressSpaceBytes: options.memoryBytes,
          processes: 256,
          fileSizeBytes: 256 * 1024 ** 2,
          openFiles: 256,
        },
        deadlineMs,
        isolation: options.isolation,
      },
      [python, '-I', '-B', executor],
      UNSAFE_HINT,
    );
    const job = { code, inputs: tests.inputs, outputs: tests.outputs, fn_name: tests.fn_name ?? null, timeout: options.timeoutSecs, memory_bytes: options.memoryBytes };
    const [{ report, stderr }, exit] = await Promise.all([grade(job, jail, options.python, deadlineMs), jail.done]);
    if (!report.started) {
      // The program never ran: a broken installation or jail, not a wrong answer.
      throw new Error(`code_gen test runner failed before running the program (is ${options.python} installed?): ${`${exit.stderr}\n${stderr}`.trim().slice(-2000)}`);
    }
    // Killed at the deadline, or the program took its process down (os._exit, a fatal signal): NeMo
    // Gym counts both as −1 for every test.
    if (exit.timedOut || !Array.isArray(report.final?.result)) return { result: tests.inputs.map(() => -1), metadata: null };
    return { result: report.final.result, metadata: report.final.metadata ?? null };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Runs grader.py against the jail: the job first on its stdin, then the jail's replies; its requests
 * go to the jail. Its report comes back on fd 3, which nothing in the jail can reach.
 */
function grade(job: object, jail: Jail, python: string, deadlineMs: number): Promise<{ report: Report; stderr: string }> {
  return new Promise((resolve, reject) => {
    const grader = spawn(python, ['-I', '-B', GRADER], {
      stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' },
    });
    const report: Report = { started: false };
    const stderr: Buffer[] = [];
    let pending = '';
    // The grader's own deadline, a little after the jail's: it cannot outlive the program it grades.
    const timer = setTimeout(() => grader.kill('SIGKILL'), deadlineMs + 5_000);
    grader.stdio[3]!.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
        const message = JSON.parse(pending.slice(0, nl)) as { started?: boolean } & Partial<TestRun>;
        pending = pending.slice(nl + 1);
        if (message.started) report.started = true;
        if (Array.isArray(message.result)) {
          report.final = message;
          // Graded: whatever the program left running goes now, not at the deadline.
          jail.kill();
        }
      }
    });
    grader.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk));
    // A jail that could not start leaves the grader waiting for replies that never come.
    jail.done.catch(() => grader.kill('SIGKILL'));
    grader.on('error', (error) => {
      clearTimeout(timer);
      jail.kill();
      reject(new Error(`cannot start ${python} for code_gen tests: ${error.message}`));
    });
    grader.on('close', () => {
      clearTimeout(timer);
      jail.kill();
      resolve({ report, stderr: Buffer.concat(stderr).toString('utf8').slice(-65_536) });
    });
    for (const stream of [grader.stdin!, grader.stdout!]) stream.on('error', () => jail.kill());
    grader.stdin!.write(`${JSON.stringify(job)}\n`);
    jail.stdout.pipe(grader.stdin!);
    grader.stdout!.pipe(jail.stdin);
  });
}

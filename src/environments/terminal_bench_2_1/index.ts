// Terminal-Bench 2.1 (NeMo Gym's terminal_bench_2_1 resources server): a harness works in a sandbox set
// up from the task's folder, then the task's own tests/test.sh runs in the same sandbox and its reward file decides.
import { z } from 'zod';
import { GymError } from '../../errors';
import { instructionOf } from '../../harnesses/task';
import { TaskRow } from '../../schemas/task';
import type { VerifyResult } from '../../schemas/verify';
import type { Sandbox } from '../../sandboxes/provider';
import { defineEnvironment } from '../define';
import { writeThroughShell } from '../sandboxed/shell';
import type { Environment } from '../types';
import { anyTerminalReward, terminalBenchReward, type TestOutcome } from './reward';
import { readTaskFolder, type TaskFolder } from './task-folder';

/** Where Terminal-Bench's tests are copied and where they write their verdict (fixed by the tasks' scripts). */
export const TESTS_DIR = '/tests';
export const VERIFIER_DIR = '/logs/verifier';
export const REWARD_FILE = `${VERIFIER_DIR}/reward.txt`;

/** The tail of the tests' output kept in the record (NeMo Gym keeps all of it; a record stays readable here). */
const OUTPUT_TAIL = 16_000;

/**
 * AnyTerminal's rows (responses_api_agents/anyterminal_agent) carry the task in
 * `responses_create_params.metadata`, its folder as `task_dir`: lifted to the top level, where NeMo Gym's
 * terminal_bench_2_1 rows have them, so both shapes are one task.
 */
function liftAnyTerminalRow(row: unknown): unknown {
  if (typeof row !== 'object' || row === null || Array.isArray(row)) return row;
  const r = row as Record<string, any>;
  const meta = r.responses_create_params?.metadata;
  if (r.task_folder !== undefined || typeof meta !== 'object' || meta === null || meta.task_dir === undefined) return row;
  return { task_name: meta.task_name, docker_image: meta.docker_image, task_folder: meta.task_dir, ...r };
}

/** A row as NeMo Gym ships it (or AnyTerminal, lifted): the three task fields, the folder not yet looked at. */
export const TerminalBench21Row = z.preprocess(
  liftAnyTerminalRow,
  TaskRow.extend({
    /** Terminal-Bench's task id, e.g. `terminal-bench/regex-log`; echoed in the verify result. */
    task_name: z.string().min(1),
    /** The task's image in NeMo Gym; here the run's `--sandbox-image` stands in for it (README). */
    docker_image: z.string().min(1),
    /** The task's folder in Harbor's layout: absolute, or relative to the project's root. */
    task_folder: z.string().min(1),
  }),
);

/** A row whose task folder is on this machine and readable: checked when the run's input is, so a bad folder stops the run before it starts. */
export const TerminalBench21Task = TerminalBench21Row.superRefine((row, ctx) => {
  try {
    readTaskFolder(row.task_folder);
  } catch (e) {
    ctx.addIssue({ code: 'custom', path: ['task_folder'], message: e instanceof Error ? e.message : String(e) });
  }
});
export type TerminalBench21Task = z.infer<typeof TerminalBench21Task>;

export const TerminalBench21Settings = z.strictObject({
  /** Seconds `bash /tests/test.sh` may run when the task's task.toml sets no [verifier] timeout_sec (NeMo Gym's config: 1800). */
  evaluation_timeout: z.number().int().positive().optional(),
  /**
   * `terminal_bench_2_1` (default): the reward file's number is the reward, as NeMo Gym's resources server
   * scores it. `anyterminal`: 1.0 when that number is above 0, else 0.0, with `resolved`, as NeMo Gym's
   * anyterminal_agent scores it.
   */
  reward_rule: z.enum(['terminal_bench_2_1', 'anyterminal']).optional(),
});

const DEFAULT_EVALUATION_TIMEOUT_S = 1800;

function folderOf(task: TerminalBench21Task): TaskFolder {
  return readTaskFolder(task.task_folder);
}

/** The task's tests/ into /tests, keeping the executable bit. */
async function copyTests(sandbox: Sandbox, folder: TaskFolder): Promise<void> {
  for (const file of folder.tests) await writeThroughShell(sandbox, `${TESTS_DIR}/${file.path}`, file.content, { executable: file.executable });
}

async function readRewardFile(sandbox: Sandbox): Promise<string | undefined> {
  const result = await sandbox.exec({ command: ['cat', REWARD_FILE], timeoutMs: 60_000 });
  return result.exitCode === 0 ? result.stdout : undefined;
}

function createTerminalBench21(settings: z.infer<typeof TerminalBench21Settings> = {}): Environment<TerminalBench21Task, null> {
  /** NeMo Gym's verify with the reused sandbox: tests in, `bash /tests/test.sh`, the reward file read. */
  async function verifyInSandbox(task: TerminalBench21Task, sandbox: Sandbox): Promise<VerifyResult> {
    const folder = folderOf(task);
    const timeoutS = folder.verifierTimeoutSec ?? settings.evaluation_timeout ?? DEFAULT_EVALUATION_TIMEOUT_S;
    const started = performance.now();
    let outcome: TestOutcome = { ran: false, timedOut: false };
    let testOutput = '';
    let verifyError: string | undefined;
    try {
      // The sandbox was given the harness's deadline: the tests get their own time on top.
      await sandbox.keepalive(timeoutS * 1000 + 60_000);
      await copyTests(sandbox, folder);
      const result = await sandbox.exec({ command: ['bash', `${TESTS_DIR}/test.sh`], cwd: folder.workdir, timeoutMs: Math.round(timeoutS * 1000) });
      testOutput = `${result.stderr}${result.stdout}`;
      outcome = { ran: true, timedOut: result.timedOut, rewardText: await readRewardFile(sandbox) };
    } catch (e) {
      verifyError = e instanceof Error ? e.message : String(e);
    }
    const verdict = settings.reward_rule === 'anyterminal' ? anyTerminalReward(outcome) : terminalBenchReward(outcome);
    return {
      ...verdict,
      task_name: task.task_name,
      verification_time_taken: (performance.now() - started) / 1000,
      test_output: testOutput.slice(-OUTPUT_TAIL),
      golden_patch_output: null,
      tests_timed_out: outcome.timedOut,
      ...(verifyError !== undefined ? { verify_error: verifyError } : {}),
    };
  }

  return defineEnvironment({
    name: 'terminal_bench_2_1',
    description: "Terminal-Bench 2.1: a harness works in a sandbox set up from the task's folder; the task's tests/test.sh, run there afterwards, decides the reward.",
    taskSchema: TerminalBench21Task,
    evaluationOnly: 'Terminal-Bench 2.1 is a benchmark: NeMo Gym ships it as benchmark and example data only, with no training split',
    configurable: { schema: TerminalBench21Settings, create: (options) => createTerminalBench21({ ...settings, ...options }) },
    sandboxed: {
      workdir: (task) => folderOf(task).workdir,
      scratch: [TESTS_DIR, VERIFIER_DIR],
      repository: (task) => folderOf(task).files,
      prompt: (task) => instructionOf(task.responses_create_params.input).instruction,
      verify: verifyInSandbox,
    },
    verify() {
      throw new GymError('BAD_TASK', 'terminal_bench_2_1 is graded by its tests in the sandbox the harness worked in: run it with --agent <harness> (gym eval run --help)');
    },
  });
}

export const terminalBench21 = createTerminalBench21();

// Repository repair in the SWE-bench shape, played by an external agent harness in a sandbox: the task
// is a small repository with a failing test; the hidden tests, run in the sandbox afterwards, decide the reward.
import { z } from 'zod';
import { GymError } from '../../errors';
import { TaskRow } from '../../schemas/task';
import type { VerifyResult } from '../../schemas/verify';
import type { Sandbox } from '../../sandboxes/provider';
import { defineEnvironment } from '../define';
import type { Environment } from '../types';

/** Where the repository is inside the sandbox: the harness's working directory. */
export const WORKDIR = '/workspace';

const RelativePath = z
  .string()
  .min(1)
  .refine((p) => !p.startsWith('/') && !p.split('/').includes('..'), 'a path inside the repository (relative, without ..)');
const Files = z.record(RelativePath, z.string());

export const SweRepairTask = TaskRow.extend({
  instance_id: z.string().min(1),
  /** `swe` (a repository and its failing test) or `terminal` (an instruction and a test script). */
  kind: z.enum(['swe', 'terminal']).default('swe'),
  /** The repository snapshot the harness starts from. */
  repo: Files,
  /** SWE-bench's names for the tests the fix must make pass and those it must keep passing. */
  FAIL_TO_PASS: z.array(z.string()).default([]),
  PASS_TO_PASS: z.array(z.string()).default([]),
  /** Never shown to the policy: copied in after the harness has finished, then `command` decides the reward. */
  hidden_tests: z.strictObject({ files: Files, command: z.array(z.string()).min(1), timeout_ms: z.number().int().positive().default(60_000) }),
  /** The reference fix (SWE-bench's gold patch, as whole files): what the mock model's oracle writes. */
  fix: Files,
});
export type SweRepairTask = z.infer<typeof SweRepairTask>;

/** The tail of the tests' output kept in the record: enough to see why they failed. */
const OUTPUT_TAIL = 4000;

function promptOf(task: SweRepairTask): string {
  const input = task.responses_create_params.input;
  if (typeof input === 'string') return input;
  const last = [...input].reverse().find((item) => (item as { role?: string }).role === 'user') as { content?: unknown } | undefined;
  const content = last?.content;
  const text = typeof content === 'string' ? content : Array.isArray(content) ? content.map((c: any) => c?.text ?? '').join('') : '';
  if (!text) throw new GymError('BAD_TASK', `task ${task.instance_id}: responses_create_params.input has no user message to give the harness as its prompt`);
  return text;
}

/** Copies the hidden tests over whatever the harness left, runs them, and scores 1 when they pass. */
async function verifyInSandbox(task: SweRepairTask, sandbox: Sandbox): Promise<VerifyResult> {
  for (const [file, content] of Object.entries(task.hidden_tests.files)) await sandbox.writeFile(`${WORKDIR}/${file}`, content);
  const result = await sandbox.exec({ command: task.hidden_tests.command, cwd: WORKDIR, timeoutMs: task.hidden_tests.timeout_ms });
  const passed = result.exitCode === 0 && !result.timedOut;
  const output = `${result.stdout}${result.stderr}`.slice(-OUTPUT_TAIL);
  return {
    reward: passed ? 1.0 : 0.0,
    instance_id: task.instance_id,
    tests_exit_code: result.exitCode,
    tests_timed_out: result.timedOut,
    tests_output: output,
    ...(passed ? {} : { failure_reason: result.timedOut ? 'tests_timed_out' : 'tests_failed' }),
  };
}

export const sweRepair: Environment<SweRepairTask, null> = defineEnvironment({
  name: 'swe_repair',
  description: 'Repair a small repository so its hidden tests pass; played by an external agent harness in a sandbox.',
  taskSchema: SweRepairTask,
  sandboxed: { workdir: WORKDIR, repository: (task) => task.repo, prompt: promptOf, verify: verifyInSandbox },
  verify() {
    throw new GymError('BAD_TASK', 'swe_repair is graded in the sandbox the harness worked in: run it with --agent <harness> (gym eval run --help)');
  },
});

// NeMo Gym's swebench verify: the model's patch taken from the harness's sandbox (`git diff` in the repository),
// applied in a fresh sandbox as SWE-bench's run_instance applies it, SWE-bench's eval script run there, its
// log graded; the reward is 1 when the task is resolved.
import { isGymError } from '../../errors';
import type { Sandbox } from '../../sandboxes/provider';
import type { VerifyResult } from '../../schemas/verify';
import { runShell, writeThroughShell } from '../sandboxed/shell';
import type { VerifySandboxes } from '../types';
import { END_TEST_OUTPUT, nemoGymEvalScriptEdits, REPO_DIR, START_TEST_OUTPUT, sweBenchEvalScript } from './eval-script';
import { gradeLog, type TestsReport } from './grading';
import { failToPass, passToPass, specOf, type SwebenchTask } from './task-data';

/** Where SWE-bench copies the patch (its DOCKER_PATCH) and Gymflow the eval script (SWE-bench's /eval.sh: the sandbox's root is read-only). */
const PATCH_FILE = '/tmp/patch.diff';
const EVAL_SCRIPT = '/tmp/eval.sh';
const OUTPUT_DIR = '/tmp/gymflow-eval';
/** The ways SWE-bench's run_instance tries to apply a patch, in order. */
export const GIT_APPLY_CMDS = ['git apply --verbose', 'git apply --verbose --reject', 'patch --batch --fuzz=5 -p1 -i'];
/** The tail of the test log kept in the record (NeMo Gym keeps all of it; a record stays readable here). */
const OUTPUT_TAIL = 16_000;

export interface SwebenchVerifySettings {
  /** Seconds eval.sh may run (NeMo Gym's config: 1800). */
  evaluationTimeoutS: number;
  /** Grade the row's own `patch` instead of the harness's work (NeMo Gym's is_verifying_golden_patch). */
  goldenPatch: boolean;
}

/** How SWE-bench's run_instance ended, as NeMo Gym reports it. */
export interface InstanceOutcome {
  completed: boolean;
  resolved: boolean;
  /** test_output.txt: the eval script's stdout then stderr (with the timeout line), or empty when it never ran. */
  testOutput: string;
  stage: 'applied' | 'apply_failed' | 'timed_out' | 'graded' | 'not_graded' | 'error';
  testsStatus?: TestsReport;
  error?: string;
}

/** NeMo Gym's patch capture: `git --no-pager diff` in the repository (tracked files' unstaged changes only). Empty when it fails. */
export async function capturePatch(sandbox: Sandbox): Promise<{ patch: string; error?: string }> {
  const result = await runShell(sandbox, `git --no-pager diff > /tmp/gymflow-model.patch`, { cwd: REPO_DIR, timeoutMs: 300_000 });
  if (result.exitCode !== 0) return { patch: '', error: `git diff in ${REPO_DIR} exited ${result.exitCode}: ${result.stderr.trim()}` };
  return { patch: (await sandbox.readFile('/tmp/gymflow-model.patch')).toString('utf8') };
}

/**
 * NeMo Gym's patch for SWE-bench Multilingual's rubocop tasks: their runner writes results to stdout and the
 * markers go to stderr, so the stdout is put between the markers. Raises (ValueError there) unless each marker is there once.
 */
export function rubocopInterleave(stdout: string, stderr: string, instanceId: string): string | undefined {
  if (!instanceId.includes('rubocop') || !stderr.includes(START_TEST_OUTPUT)) return undefined;
  const halves = stderr.split(START_TEST_OUTPUT);
  if (halves.length !== 2) throw new Error(`ValueError: the stderr holds ${halves.length - 1} start markers`);
  const rest = halves[1]!.split(END_TEST_OUTPUT);
  if (rest.length !== 2) throw new Error(`ValueError: the stderr holds ${rest.length - 1} end markers after the start`);
  return `${halves[0]}${START_TEST_OUTPUT}${stdout}${rest[0]}${END_TEST_OUTPUT}${rest[1]}`;
}

/** SWE-bench's run_instance (NeMo Gym's async copy of it) in `sandbox`, a fresh one at the base commit. */
export async function runInstance(task: SwebenchTask, sandbox: Sandbox, modelPatch: string, timeoutS: number): Promise<InstanceOutcome> {
  let testOutput = '';
  try {
    await writeThroughShell(sandbox, PATCH_FILE, modelPatch);
    let applied = false;
    for (const command of GIT_APPLY_CMDS) {
      if ((await runShell(sandbox, `${command} ${PATCH_FILE}`, { cwd: REPO_DIR, timeoutMs: 600_000 })).exitCode === 0) {
        applied = true;
        break;
      }
    }
    // jq-2681's image holds generated lexer files of another flex: only the sources are applied, the build regenerates the rest.
    if (!applied && task.instance_id === 'jqlang__jq-2681') {
      applied = (await runShell(sandbox, `git apply --include=src/lexer.l --include=src/parser.y ${PATCH_FILE}`, { cwd: REPO_DIR, timeoutMs: 600_000 })).exitCode === 0;
    }
    if (!applied) return { completed: false, resolved: false, testOutput: '', stage: 'apply_failed' };
    const script = nemoGymEvalScriptEdits(sweBenchEvalScript(task, specOf(task)), task.instance_id);
    await writeThroughShell(sandbox, EVAL_SCRIPT, script);
    await sandbox.keepalive(timeoutS * 1000 + 120_000);
    // The streams go to files: a long log is graded whole, not only the tail an exec keeps.
    const run = await runShell(sandbox, `mkdir -p ${OUTPUT_DIR} && /bin/bash ${EVAL_SCRIPT} > ${OUTPUT_DIR}/stdout 2> ${OUTPUT_DIR}/stderr`, { timeoutMs: timeoutS * 1000 });
    if (run.timedOut) {
      testOutput = `\n\nTimeout error: ${timeoutS} seconds exceeded.`;
      return { completed: false, resolved: false, testOutput, stage: 'timed_out' };
    }
    const [stdout, stderr] = await Promise.all(['stdout', 'stderr'].map(async (s) => (await sandbox.readFile(`${OUTPUT_DIR}/${s}`)).toString('utf8')));
    testOutput = rubocopInterleave(stdout!, stderr!, task.instance_id) ?? `${stdout}${stderr}`;
    const grade = gradeLog(specOf(task), { instance_id: task.instance_id, failToPass: failToPass(task), passToPass: passToPass(task) }, testOutput);
    return { completed: true, resolved: grade.resolved, testOutput, stage: grade.graded ? 'graded' : 'not_graded', ...(grade.testsStatus ? { testsStatus: grade.testsStatus } : {}) };
  } catch (e) {
    // run_instance logs any other failure (the sandbox's, a parser's) and reports the evaluation incomplete.
    return { completed: false, resolved: false, testOutput, stage: 'error', error: isGymError(e) ? e.message : `${(e as Error).name}: ${(e as Error).message}` };
  }
}

/** Why a reward is 0 (Gymflow's; NeMo Gym records none), or null when the task is resolved. */
export function failureReason(outcome: InstanceOutcome): string | null {
  if (outcome.resolved) return null;
  switch (outcome.stage) {
    case 'apply_failed':
      return 'patch_apply_failed';
    case 'timed_out':
      return 'tests_timed_out';
    case 'not_graded':
      return 'test_log_unreadable';
    case 'error':
      return 'evaluation_error';
    default:
      return 'tests_failed';
  }
}

export async function verifySwebench(task: SwebenchTask, agent: Sandbox, sandboxes: VerifySandboxes, settings: SwebenchVerifySettings): Promise<VerifyResult> {
  // As NeMo Gym: the verifier's sandbox first, then the patch from the agent's.
  const started = performance.now();
  const fresh = await sandboxes.fresh();
  const evalSandboxStart = (performance.now() - started) / 1000;
  const captured = settings.goldenPatch ? { patch: task.patch } : await capturePatch(agent);
  const verifying = performance.now();
  const outcome = await runInstance(task, fresh, captured.patch, settings.evaluationTimeoutS);
  return {
    reward: outcome.resolved ? 1.0 : 0.0,
    evaluation_completed: outcome.completed,
    resolved: outcome.resolved,
    eval_sandbox_start_time_taken: evalSandboxStart,
    patch_verification_time_taken: (performance.now() - verifying) / 1000,
    instance_id: task.instance_id,
    test_output: outcome.testOutput.slice(-OUTPUT_TAIL),
    model_patch: captured.patch || null,
    log_dir: '',
    failure_reason: failureReason(outcome),
    ...(outcome.testsStatus ? { tests_status: { FAIL_TO_PASS: outcome.testsStatus.FAIL_TO_PASS, PASS_TO_PASS: outcome.testsStatus.PASS_TO_PASS } } : {}),
    ...(outcome.error !== undefined ? { verify_error: outcome.error } : {}),
    ...('error' in captured && captured.error !== undefined ? { patch_capture_error: captured.error } : {}),
  };
}

// NeMo Gym's deepswe verify, DeepSWE v1.1's two-sandbox contract: the task's collect hook writes the agent's
// committed work as a binary diff in the harness's sandbox; a fresh sandbox gets the held-out tests and that
// patch, runs /tests/test.sh, and its /logs/verifier/reward.json (binary) is the reward.
import { createHash } from 'node:crypto';
import { isGymError } from '../../errors';
import { PyError } from '../../python/errors';
import { jsonLoads, type PyJson } from '../../python/json';
import { pyFloat, pyFloatRepr } from '../../python/number';
import { pyInt, pyRepr, truthy, typeName } from '../../python/values';
import type { Sandbox } from '../../sandboxes/provider';
import type { VerifyResult } from '../../schemas/verify';
import { fileExists, readAnywhere, runShell, writeThroughShell } from '../sandboxed/shell';
import type { VerifySandboxes } from '../types';
import type { DeepSweTask } from './task-store';

export const WORKDIR = '/app';
export const MODEL_PATCH = '/logs/artifacts/model.patch';
const REWARD_FILE = '/logs/verifier/reward.json';
const CTRF_FILE = '/logs/verifier/ctrf.json';
/** The tail of the verifier's output kept in the record (NeMo Gym keeps all of it). */
const OUTPUT_TAIL = 16_000;

/** NeMo Gym's VerifierResult, with its defaults. */
export interface VerifierResult {
  evaluation_completed: boolean;
  reward: number;
  apply_failed: boolean;
  verifier_exit_code: number | null;
  verifier_error: string | null;
  test_output: string | null;
  f2p_total: number;
  f2p_passed: number;
  p2p_total: number;
  p2p_passed: number;
  f2p: number;
  p2p: number;
  partial: number;
}

const INCOMPLETE: VerifierResult = {
  evaluation_completed: false,
  reward: 0,
  apply_failed: false,
  verifier_exit_code: null,
  verifier_error: null,
  test_output: null,
  f2p_total: 0,
  f2p_passed: 0,
  p2p_total: 0,
  p2p_passed: 0,
  f2p: 0,
  p2p: 0,
  partial: 0,
};

/** How /tests/test.sh went: what verify read back from the sandbox. */
export interface VerifierRun {
  timedOut: boolean;
  exitCode: number | null;
  /** stdout then stderr. */
  output: string;
  /** reward.json's bytes; undefined when test.sh wrote none. */
  rewardJson?: Buffer;
  ctrfWritten: boolean;
}

/** An exception of one of Python's built-in kinds that src/python's PyError does not name. */
function pyException(kind: 'RuntimeError' | 'TimeoutError' | 'UnicodeDecodeError', message: string): Error {
  return Object.assign(new Error(message), { name: kind });
}

/** The verifier's own failure (NeMo Gym: any exception in verify), as `<Type>: <message>`. */
export function errorText(e: unknown): string {
  if (e instanceof PyError) return `${e.kind}: ${e.message}`;
  if (isGymError(e)) return `${e.code}: ${e.message}`;
  return `${(e as Error).name}: ${(e as Error).message}`;
}

/** Python's float() on a json.loads value. */
function pyFloatOf(value: PyJson): number {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'number') return value;
  if (typeof value === 'string') {
    const parsed = pyFloat(value);
    if (parsed === null) throw new PyError('ValueError', `could not convert string to float: ${pyRepr(value)}`);
    return parsed;
  }
  throw new PyError('TypeError', `float() argument must be a string or a real number, not '${typeName(value, true)}'`);
}

/** `reward_data.get(key, default)`, raising as Python does when reward.json is not an object. */
function getter(data: PyJson): (key: string, fallback: PyJson) => PyJson {
  if (!(data instanceof Map)) throw new PyError('AttributeError', `'${typeName(data, true)}' object has no attribute 'get'`);
  return (key, fallback) => (data.has(key) ? data.get(key)! : fallback);
}

/** NeMo Gym's _run_verifier after test.sh ran: reward.json must exist, be JSON, hold a binary reward, and ctrf.json exist. Throws where it raises. */
export function verifierVerdict(run: VerifierRun, timeoutSec: number): VerifierResult {
  if (run.timedOut) return { ...INCOMPLETE, verifier_error: `Verifier timed out after ${pyG(timeoutSec)} seconds` };
  const failed = (error: string): VerifierResult => ({ ...INCOMPLETE, verifier_exit_code: run.exitCode, verifier_error: error, test_output: run.output });
  if (run.rewardJson === undefined) return failed(`Verifier did not produce ${REWARD_FILE}`);
  const text = run.rewardJson.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(run.rewardJson)) throw pyException('UnicodeDecodeError', "'utf-8' codec can't decode reward.json");
  let data: PyJson;
  try {
    data = jsonLoads(text);
  } catch (e) {
    if (e instanceof PyError && e.kind === 'JSONDecodeError') return failed(`Invalid verifier reward.json: ${e.message}`);
    throw e;
  }
  const get = getter(data);
  const reward = pyFloatOf(get('reward', 0));
  if (reward !== 0 && reward !== 1) return failed(`Verifier returned non-binary reward: ${pyFloatRepr(reward)}`);
  if (!run.ctrfWritten) return failed(`Verifier did not produce ${CTRF_FILE}`);
  const int = (key: string) => Number(pyInt(get(key, 0n)));
  return {
    evaluation_completed: true,
    reward,
    apply_failed: truthy(get('apply_failed', false)),
    verifier_exit_code: run.exitCode,
    verifier_error: null,
    test_output: run.output,
    f2p_total: int('f2p_total'),
    f2p_passed: int('f2p_passed'),
    p2p_total: int('p2p_total'),
    p2p_passed: int('p2p_passed'),
    f2p: pyFloatOf(get('f2p', 0)),
    p2p: pyFloatOf(get('p2p', 0)),
    partial: pyFloatOf(get('partial', 0)),
  };
}

/** Python's `f"{x:g}"`: up to six significant digits, trailing zeros dropped. */
function pyG(x: number): string {
  if (Number.isInteger(x) && Math.abs(x) < 1e6) return String(x);
  const exp = Math.floor(Math.log10(Math.abs(x)));
  if (exp < -4 || exp >= 6) {
    const [m, e] = x.toExponential(5).split('e') as [string, string];
    return `${m.replace(/\.?0+$/, '')}e${e.startsWith('-') ? '-' : '+'}${e.replace(/^[+-]/, '').padStart(2, '0')}`;
  }
  return String(Number(x.toPrecision(6)));
}

/** NeMo Gym's _collect_model_patch: the task's collect hook in the harness's sandbox, then the patch it wrote. */
export async function collectPatch(sandbox: Sandbox, task: DeepSweTask): Promise<Buffer> {
  const result = await runShell(sandbox, task.collect.command, { timeoutMs: Math.round(task.collect.timeout_sec * 1000) });
  if (result.timedOut) throw pyException('TimeoutError', '');
  if (result.exitCode !== 0) {
    const details = `${result.stderr}${result.stdout}`.trim();
    throw pyException('RuntimeError', `DeepSWE collect hook exited with code ${result.exitCode}: ${details.slice(-4000)}`);
  }
  return readAnywhere(sandbox, MODEL_PATCH);
}

/** NeMo Gym's _stage_verifier and _run_verifier in the fresh sandbox. */
export async function runVerifier(sandbox: Sandbox, task: DeepSweTask, modelPatch: Buffer): Promise<VerifierResult> {
  const made = await runShell(sandbox, 'mkdir -p /tests /logs/artifacts /logs/verifier');
  if (made.exitCode !== 0) throw pyException('RuntimeError', `Failed to create DeepSWE verifier directories: ${made.stderr}`);
  for (const [name, content] of Object.entries(task.verifierFiles)) await writeThroughShell(sandbox, `/tests/${name}`, content);
  await writeThroughShell(sandbox, MODEL_PATCH, modelPatch);
  const chmod = await runShell(sandbox, 'chmod 0755 /tests/test.sh /tests/grader.py');
  if (chmod.exitCode !== 0) throw pyException('RuntimeError', `Failed to make DeepSWE verifier executable: ${chmod.stderr}`);
  await sandbox.keepalive(task.verifierTimeoutSec * 1000 + 120_000);
  const result = await runShell(sandbox, 'bash /tests/test.sh', { cwd: WORKDIR, timeoutMs: Math.round(task.verifierTimeoutSec * 1000) });
  const rewardWritten = !result.timedOut && (await fileExists(sandbox, REWARD_FILE));
  const run: VerifierRun = {
    timedOut: result.timedOut,
    exitCode: result.exitCode,
    output: `${result.stdout}${result.stderr}`,
    ctrfWritten: !result.timedOut && (await fileExists(sandbox, CTRF_FILE)),
    ...(rewardWritten ? { rewardJson: await readAnywhere(sandbox, REWARD_FILE) } : {}),
  };
  return verifierVerdict(run, task.verifierTimeoutSec);
}

/** Why a reward is 0 (Gymflow's; NeMo Gym records none), or null when it is 1. */
export function failureReason(result: VerifierResult, patchError: string | undefined): string | null {
  if (result.reward > 0) return null;
  if (patchError !== undefined) return 'patch_collection_failed';
  if (!result.evaluation_completed) {
    const error = result.verifier_error ?? '';
    if (error.startsWith('Verifier timed out')) return 'verifier_timed_out';
    if (error.startsWith('Verifier did not produce /logs/verifier/reward.json')) return 'no_reward_file';
    if (error.startsWith('Invalid verifier reward.json')) return 'reward_not_json';
    if (error.startsWith('Verifier returned non-binary reward')) return 'reward_not_binary';
    if (error.startsWith('Verifier did not produce /logs/verifier/ctrf.json')) return 'no_ctrf_file';
    return 'verifier_error';
  }
  return result.apply_failed ? 'patch_apply_failed' : 'tests_failed';
}

export interface DeepsweVerifySettings {
  goldenPatch: boolean;
  includeModelPatch: boolean;
}

export async function verifyDeepswe(task: DeepSweTask, agent: Sandbox, sandboxes: VerifySandboxes, settings: DeepsweVerifySettings): Promise<VerifyResult> {
  let modelPatch: Buffer = Buffer.alloc(0);
  let patchError: string | undefined;
  let patchCollectionS = 0;
  if (settings.goldenPatch) modelPatch = task.solutionPatch;
  else {
    const started = performance.now();
    try {
      modelPatch = await collectPatch(agent, task);
    } catch (e) {
      patchError = errorText(e);
    }
    patchCollectionS = (performance.now() - started) / 1000;
  }
  let result: VerifierResult = { ...INCOMPLETE, verifier_error: patchError ?? null };
  let sandboxStartS = 0;
  let verificationS = 0;
  if (patchError === undefined) {
    try {
      let started = performance.now();
      const fresh = await sandboxes.fresh();
      sandboxStartS = (performance.now() - started) / 1000;
      started = performance.now();
      result = await runVerifier(fresh, task, modelPatch);
      verificationS = (performance.now() - started) / 1000;
    } catch (e) {
      result = { ...INCOMPLETE, verifier_error: errorText(e) };
    }
  }
  return {
    ...result,
    test_output: result.test_output === null ? null : result.test_output.slice(-OUTPUT_TAIL),
    task_id: task.taskId,
    sandbox_handle: agent.id,
    model_patch: settings.includeModelPatch ? modelPatch.toString('utf8') : null,
    model_patch_sha256: createHash('sha256').update(modelPatch).digest('hex'),
    model_patch_bytes: modelPatch.length,
    log_dir: '',
    patch_collection_time_s: patchCollectionS,
    sandbox_start_time_s: sandboxStartS,
    verification_time_s: verificationS,
    failure_reason: failureReason(result, patchError),
  };
}

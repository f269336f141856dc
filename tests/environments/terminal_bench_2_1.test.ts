// terminal_bench_2_1 against NeMo Gym 0.7.0: its rows (and AnyTerminal's) parse, task folders in Harbor's
// layout load or are refused naming why, the reward rule agrees with NeMo Gym's own verify run on a FAKE
// sandbox (terminal_bench_2_1.cases.py), a real jail grades the example tasks, and the recorded rollouts
// re-verify where their data allows it, the rest listed with the reason.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isGymError } from '../../src/errors';
import { getEnvironment, resolveEnvironment } from '../../src/environments/registry';
import { terminalBench21, TerminalBench21Row, TerminalBench21Task } from '../../src/environments/terminal_bench_2_1';
import { anyTerminalReward, pythonFloat, terminalBenchReward } from '../../src/environments/terminal_bench_2_1/reward';
import { readTaskFolder } from '../../src/environments/terminal_bench_2_1/task-folder';
import { reverifyEpisode } from '../../src/reverify/verify';
import type { Sandbox, SandboxProvider } from '../../src/sandboxes/provider';
import { sandboxProvider } from '../../src/sandboxes/registry';
import type { ExecRequest, ExecResult } from '../../src/sandboxes/schema';
import { NEMO_GYM_VENV_PYTHON } from '../../src/environments/remote/launch';
import { gymHere } from '../helpers/gym-here';
import { interopTitle, nemoGymVenv } from '../interop/nemo-gym-venv';
import { FIXTURES, readJsonl } from './nemo_fixtures';

const EXAMPLE = path.resolve(import.meta.dirname, '../../src/environments/terminal_bench_2_1/data/example.jsonl');
const NEMO = path.join(FIXTURES, 'terminal_bench_2_1');
const ANYTERMINAL = path.join(FIXTURES, 'anyterminal_agent');

function gymError(f: () => unknown): { code: string; message: string } {
  try {
    f();
  } catch (e) {
    if (isGymError(e)) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error('expected a GymError');
}

/** A task folder of the test's own in Harbor's layout. */
function taskFolder(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gf-tb-task-'));
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), content);
  }
  return dir;
}

const row = (folder: string) => ({ responses_create_params: { input: [{ role: 'user', content: 'do the task' }] }, task_name: 't/x', docker_image: 'img', task_folder: folder });

describe('terminal_bench_2_1 task rows', () => {
  it("parses NeMo Gym's five example rows, its three task fields required", () => {
    const rows = readJsonl(path.join(NEMO, 'example.jsonl'));
    expect(rows).toHaveLength(5);
    for (const r of rows) {
      const task = TerminalBench21Row.parse(r);
      expect(task.task_name).toMatch(/^terminal-bench\//);
      expect(task.task_folder).toMatch(/^benchmarks\/terminal_bench_2_1\/terminal-bench-2-1\/tasks\//);
    }
    const missing = TerminalBench21Row.safeParse({ ...rows[0], task_folder: undefined });
    expect(missing.success).toBe(false);
    expect(missing.error!.issues[0]!.path).toEqual(['task_folder']);
  });

  it("parses AnyTerminal's rows, lifting the task from responses_create_params.metadata (task_dir is the folder)", () => {
    const rows = readJsonl<any>(path.join(ANYTERMINAL, 'example.jsonl'));
    expect(rows).toHaveLength(5);
    for (const r of rows) {
      const task = TerminalBench21Row.parse(r);
      const meta = r.responses_create_params.metadata;
      expect(task).toMatchObject({ task_name: meta.task_name, docker_image: meta.docker_image, task_folder: meta.task_dir });
    }
  });

  it("refuses NeMo Gym's rows when the input is checked, naming the folder that is not on this machine", () => {
    const parsed = terminalBench21.taskSchema.safeParse(readJsonl(path.join(NEMO, 'example.jsonl'))[0]);
    expect(parsed.success).toBe(false);
    const issue = parsed.error!.issues[0]!;
    expect(issue.path).toEqual(['task_folder']);
    expect(issue.message).toContain('benchmarks/terminal_bench_2_1/terminal-bench-2-1/tasks/path-tracing');
    expect(issue.message).toContain('does not exist');
    const task = TerminalBench21Row.parse(readJsonl(path.join(NEMO, 'example.jsonl'))[0]);
    expect(gymError(() => terminalBench21.sandboxed!.repository(task as TerminalBench21Task)).code).toBe('BAD_TASK');
  });

  it('takes our AnyTerminal-shaped example rows, whose folders are here', () => {
    const rows = readJsonl(EXAMPLE.replace('example.jsonl', 'example_anyterminal.jsonl'));
    expect(rows.map((r) => terminalBench21.taskSchema.parse(r).task_name)).toEqual(['log-error-summary', 'fix-word-frequency']);
  });

  it('is listed as needing a sandbox and as evaluation-only, with its settings', () => {
    const env = getEnvironment('terminal_bench_2_1');
    expect(env.sandboxed).toBeDefined();
    expect(env.evaluationOnly).toMatch(/benchmark/);
    const configured = resolveEnvironment({ name: 'terminal_bench_2_1', options: { reward_rule: 'anyterminal', evaluation_timeout: 30 } } as any);
    expect(configured.sandboxed).toBeDefined();
  });
});

describe('terminal_bench_2_1 task folders', () => {
  it('loads the example tasks: workdir, the files the Dockerfile copies, the tests, the solution and the timeouts', () => {
    const [logs, words] = readJsonl(EXAMPLE).map((r) => TerminalBench21Task.parse(r));
    const a = readTaskFolder(logs!.task_folder);
    expect(a.workdir).toBe('/app');
    expect(Object.keys(a.files).sort()).toEqual(['logs/api.log', 'logs/billing.log', 'logs/worker.log']);
    expect(a.tests.map((t) => t.path).sort()).toEqual(['test.sh', 'test_outputs.py']);
    expect(a.tests.find((t) => t.path === 'test.sh')!.executable).toBe(true);
    expect(a.solution).toContain('summary.csv');
    expect(a).toMatchObject({ agentTimeoutSec: 600, verifierTimeoutSec: 120 });
    const b = readTaskFolder(words!.task_folder);
    expect(Object.keys(b.files).sort()).toEqual(['sample.txt', 'wordfreq.py']);
    expect(b.tests.map((t) => t.path).sort()).toEqual(['hidden.txt', 'test.sh', 'test_outputs.py']);
    // The harness is given the row's instruction, and the workdir of its task.
    expect(terminalBench21.sandboxed!.prompt(logs!)).toContain('/app/summary.csv');
  });

  it.each([
    ['a RUN line', { 'environment/Dockerfile': 'FROM x\nWORKDIR /app\nRUN apt-get install -y curl\n', 'tests/test.sh': 'true' }, /Dockerfile:3: RUN builds the image/],
    [
      'a copy outside the workdir',
      { 'environment/Dockerfile': 'WORKDIR /app\nCOPY a.txt /etc/a.txt\n', 'environment/a.txt': 'x', 'tests/test.sh': 'true' },
      /\/etc\/a\.txt is outside the workdir \/app/,
    ],
    ['a copy from a build stage', { 'environment/Dockerfile': 'WORKDIR /app\nCOPY --from=build /out/app ./\n', 'tests/test.sh': 'true' }, /--from copies out of another build stage/],
    ['a glob', { 'environment/Dockerfile': 'WORKDIR /app\nCOPY *.txt ./\n', 'tests/test.sh': 'true' }, /no globs or URLs/],
    ['a missing source', { 'environment/Dockerfile': 'WORKDIR /app\nCOPY gone.txt ./\n', 'tests/test.sh': 'true' }, /gone\.txt does not exist/],
    ['no tests/test.sh', { 'environment/Dockerfile': 'WORKDIR /app\n' }, /tests\/test\.sh is missing/],
    ['a bad task.toml', { 'task.toml': '[agent\ntimeout_sec = 1', 'tests/test.sh': 'true' }, /task\.toml is not TOML/],
    ['a negative timeout', { 'task.toml': '[verifier]\ntimeout_sec = -5\n', 'tests/test.sh': 'true' }, /task\.toml: verifier\.timeout_sec/],
  ])('refuses a task folder with %s, naming the file', (_what, files, message) => {
    const dir = taskFolder(files as Record<string, string>);
    try {
      const error = gymError(() => readTaskFolder(dir));
      expect(error.code).toBe('BAD_TASK');
      expect(error.message).toMatch(message);
      expect(error.message).toContain(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('copies folders, several sources into a folder, and JSON-form COPY, relative to the WORKDIR', () => {
    const dir = taskFolder({
      'environment/Dockerfile': 'FROM x\n# the app\nWORKDIR /srv\nWORKDIR app\nCOPY --chown=1:1 data ./data\nCOPY ["a.txt", "b.txt", "sub/"]\nCOPY a.txt \\\n  renamed.txt\n',
      'environment/data/x/y.txt': 'y',
      'environment/a.txt': 'a',
      'environment/b.txt': 'b',
      'tests/test.sh': 'true',
    });
    try {
      const folder = readTaskFolder(dir);
      expect(folder.workdir).toBe('/srv/app');
      expect(folder.files).toEqual({ 'data/x/y.txt': 'y', 'sub/a.txt': 'a', 'sub/b.txt': 'b', 'renamed.txt': 'a' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** FAKE: a sandbox answering the exec calls verify makes, for the differential cases (no container runs here). */
function fakeSandbox(c: { reward_text: string | null; stdout?: string; stderr?: string; exit_code?: number; exec_raises?: boolean }): Sandbox {
  const exec = async (request: ExecRequest): Promise<ExecResult> => {
    const base = { signal: null, timedOut: false, durationMs: 1 };
    const argv = request.command;
    if (argv[0] === 'sh') return { ...base, exitCode: 0, stdout: '', stderr: '' };
    if (argv[0] === 'bash') {
      if (c.exec_raises) throw new Error('sandbox gone');
      return { ...base, exitCode: c.exit_code ?? 0, stdout: c.stdout ?? '', stderr: c.stderr ?? '' };
    }
    if (argv[0] === 'cat') return c.reward_text === null ? { ...base, exitCode: 1, stdout: '', stderr: 'No such file' } : { ...base, exitCode: 0, stdout: c.reward_text, stderr: '' };
    throw new Error(`unexpected exec ${argv.join(' ')}`);
  };
  return { id: 'fake', exec, keepalive: async () => undefined } as unknown as Sandbox;
}

describe("terminal_bench_2_1's reward rule against NeMo Gym's verify", () => {
  const cases = readJsonl<any>(path.join(import.meta.dirname, 'terminal_bench_2_1.cases.jsonl'));
  const folder = taskFolder({ 'tests/test.sh': 'echo checks\n' });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it(`agrees with NeMo Gym's verify on ${cases.filter((c) => c.sandbox).length} sandbox outcomes (a non-finite reward is 0.0 here, by design)`, async () => {
    const task = TerminalBench21Task.parse(row(folder));
    const mismatches: string[] = [];
    let nonFinite = 0;
    for (const c of cases.filter((c) => c.sandbox)) {
      const got = (await terminalBench21.sandboxed!.verify(task, fakeSandbox(c.sandbox))) as any;
      if (typeof c.verdict.reward === 'string') {
        // NeMo Gym records float('nan') / float('inf') as the reward; a JSON record cannot hold it.
        nonFinite++;
        if (got.reward !== 0 || got.evaluation_completed !== c.verdict.evaluation_completed || got.failure_reason !== 'reward_not_finite') mismatches.push(`${c.name}: ${JSON.stringify(got)}`);
        continue;
      }
      const mine = { reward: got.reward, evaluation_completed: got.evaluation_completed, test_output: got.test_output };
      if (JSON.stringify(mine) !== JSON.stringify(c.verdict)) mismatches.push(`${c.name}: ${JSON.stringify(mine)} != ${JSON.stringify(c.verdict)}`);
    }
    expect(mismatches).toEqual([]);
    expect(nonFinite).toBeGreaterThan(3);
    expect(cases.filter((c) => c.sandbox && c.verdict.evaluation_completed === true).length).toBeGreaterThan(15);
    expect(cases.filter((c) => c.sandbox && c.verdict.evaluation_completed === false).length).toBeGreaterThan(15);
  });

  it(`reads ${cases.filter((c) => c.text !== undefined).length} generated reward texts as Python's float() does`, () => {
    const mismatches: string[] = [];
    for (const c of cases.filter((c) => c.text !== undefined)) {
      const value = pythonFloat(c.text);
      const got = value === undefined ? null : Number.isFinite(value) ? value : value > 0 ? 'inf' : value < 0 ? '-inf' : 'nan';
      if (got !== c.verdict.float && !(Object.is(got, 0) && c.verdict.float === 0)) mismatches.push(`${JSON.stringify(c.text)}: ${got} != ${c.verdict.float}`);
    }
    expect(mismatches).toEqual([]);
    expect(cases.filter((c) => c.text !== undefined && c.verdict.float !== null).length).toBeGreaterThan(40);
  });

  it('says why a reward is not positive', () => {
    expect(terminalBenchReward({ ran: false, timedOut: false })).toEqual({ reward: 0, evaluation_completed: false, failure_reason: 'tests_not_run' });
    expect(terminalBenchReward({ ran: true, timedOut: true })).toEqual({ reward: 0, evaluation_completed: false, failure_reason: 'tests_timed_out' });
    expect(terminalBenchReward({ ran: true, timedOut: false })).toEqual({ reward: 0, evaluation_completed: false, failure_reason: 'no_reward_file' });
    expect(terminalBenchReward({ ran: true, timedOut: false, rewardText: 'passed' })).toEqual({ reward: 0, evaluation_completed: false, failure_reason: 'reward_not_a_number' });
    expect(terminalBenchReward({ ran: true, timedOut: false, rewardText: '0\n' })).toEqual({ reward: 0, evaluation_completed: true, failure_reason: 'tests_failed' });
    // A test that timed out after writing its verdict still counts, as in NeMo Gym (it reads the file either way).
    expect(terminalBenchReward({ ran: true, timedOut: true, rewardText: '1' })).toEqual({ reward: 1, evaluation_completed: true, failure_reason: null });
  });

  it("scores by AnyTerminal's rule when asked: resolved above 0, reward 1.0 or 0.0", () => {
    expect(anyTerminalReward({ ran: true, timedOut: false, rewardText: '0.5' })).toMatchObject({ reward: 1, resolved: true });
    expect(anyTerminalReward({ ran: true, timedOut: false, rewardText: '0' })).toMatchObject({ reward: 0, resolved: false, failure_reason: 'tests_failed' });
    expect(anyTerminalReward({ ran: true, timedOut: false, rewardText: '-1' })).toMatchObject({ reward: 0, resolved: false });
    expect(anyTerminalReward({ ran: true, timedOut: false })).toMatchObject({ reward: 0, resolved: false, failure_reason: 'no_reward_file' });
  });
});

describe('terminal_bench_2_1 graded in a real local sandbox (bubblewrap)', () => {
  let provider: SandboxProvider;
  const made: string[] = [];
  beforeAll(async () => {
    provider = await sandboxProvider('local');
  });
  afterAll(() => {
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });

  /** A sandbox as the harness runner makes it: the task's files in its workdir, /tests and /logs/verifier writable scratch folders. */
  async function sandboxFor(task: TerminalBench21Task): Promise<Sandbox> {
    const folder = readTaskFolder(task.task_folder);
    const mounts = ['/tests', '/logs/verifier'].map((at) => {
      const hostPath = mkdtempSync(path.join(os.tmpdir(), 'gf-tb-scratch-'));
      chmodSync(hostPath, 0o777);
      made.push(hostPath);
      return { hostPath, path: at, writable: true };
    });
    const sandbox = await provider.create({ workdir: folder.workdir, mounts, labels: { run: 'tb-test', rollout: '0-0', attempt: 0, user: 'test' } });
    for (const [file, content] of Object.entries(terminalBench21.sandboxed!.repository(task))) await sandbox.writeFile(`${folder.workdir}/${file}`, content);
    return sandbox;
  }

  it.each([0, 1])(
    'example task %i: its solution earns 1.0 from its tests, the untouched start 0.0',
    async (i) => {
      const task = TerminalBench21Task.parse(readJsonl(EXAMPLE)[i]);
      for (const solve of [true, false]) {
        const sandbox = await sandboxFor(task);
        try {
          if (solve) {
            await sandbox.writeFile('/tmp/solve.sh', readTaskFolder(task.task_folder).solution!);
            expect((await sandbox.exec({ command: ['bash', '/tmp/solve.sh'], timeoutMs: 60_000 })).exitCode).toBe(0);
          }
          const result = (await terminalBench21.sandboxed!.verify(task, sandbox)) as any;
          expect(result).toMatchObject({ reward: solve ? 1 : 0, evaluation_completed: true, task_name: task.task_name, failure_reason: solve ? null : 'tests_failed', golden_patch_output: null });
          expect(result.test_output).toMatch(solve ? /\nOK\n$/ : /FAILED/);
        } finally {
          await sandbox.destroy();
        }
      }
    },
    120_000,
  );

  it("takes a fraction from the reward file, and kills tests past the task's verifier timeout", async () => {
    const dir = taskFolder({
      'task.toml': '[verifier]\ntimeout_sec = 2.0\n',
      'environment/Dockerfile': 'WORKDIR /app\n',
      'tests/test.sh': 'if [ -f /app/hang ]; then sleep 30; fi\necho 0.25 > /logs/verifier/reward.txt\n',
    });
    made.push(dir);
    const task = TerminalBench21Task.parse(row(dir));
    const sandbox = await sandboxFor(task);
    try {
      expect(await terminalBench21.sandboxed!.verify(task, sandbox)).toMatchObject({ reward: 0.25, evaluation_completed: true, failure_reason: null, tests_timed_out: false });
      await sandbox.writeFile('/app/hang', '');
      await sandbox.exec({ command: ['rm', '-f', '/logs/verifier/reward.txt'], timeoutMs: 10_000 });
      expect(await terminalBench21.sandboxed!.verify(task, sandbox)).toMatchObject({ reward: 0, evaluation_completed: false, failure_reason: 'tests_timed_out', tests_timed_out: true });
    } finally {
      await sandbox.destroy();
    }
  }, 120_000);
});

describe("NeMo Gym's recorded rollouts, re-verified where their data allows", () => {
  it('terminal_bench_2_1: the two whose reward file was never read re-verify to 0.0; three are not recomputable (listed)', () => {
    const rollouts = readJsonl<any>(path.join(NEMO, 'example_rollouts.jsonl'));
    expect(rollouts).toHaveLength(5);
    const notRecomputable: string[] = [];
    for (const r of rollouts) {
      if (r.evaluation_completed === false) {
        // Recorded: the test script timed out and reward.txt could not be read, which is all the rule needs.
        expect(r.test_output).toMatch(/timed out/);
        const verdict = terminalBenchReward({ ran: true, timedOut: true });
        expect({ reward: verdict.reward, evaluation_completed: verdict.evaluation_completed }).toEqual({ reward: r.reward, evaluation_completed: false });
      } else {
        // The reward is reward.txt's number, written by the task's tests inside alexgshaw/<task> (pulled from
        // Docker Hub, with pip/uv downloads): the record keeps neither the file nor the sandbox.
        notRecomputable.push(r.task_name);
      }
      // All five are golden-patch runs (solution/solve.sh, not a policy): the response is empty.
      expect(r.response.output).toEqual([]);
      expect(r.golden_patch_output).toBeTruthy();
    }
    expect(notRecomputable).toEqual(['terminal-bench/build-cython-ext', 'terminal-bench/build-pov-ray', 'terminal-bench/mcmc-sampling-stan']);
  });

  it("anyterminal_agent: each reward follows from its recorded resolved and mask_sample from its timeouts; the tests' verdicts are not recomputable (all ten listed)", () => {
    const notRecomputable: string[] = [];
    for (const file of ['example_rollouts_hermes.jsonl', 'example_rollouts_terminus_2.jsonl']) {
      for (const r of readJsonl<any>(path.join(ANYTERMINAL, file))) {
        expect(r.reward).toBe(r.resolved ? 1.0 : 0.0);
        expect(r.mask_sample).toBe(!!(r.agent_timed_out || r.container_timed_out || r.sandbox_failed));
        notRecomputable.push(`${file.replace(/^example_rollouts_|\.jsonl$/g, '')}:${r.responses_create_params.metadata.task_name}`);
      }
    }
    expect(notRecomputable).toEqual([
      'hermes:modernize-scientific-stack',
      'hermes:fix-git',
      'hermes:log-summary-date-ranges',
      'hermes:portfolio-optimization',
      'hermes:configure-git-webserver',
      'terminus_2:modernize-scientific-stack',
      'terminus_2:fix-git',
      'terminus_2:log-summary-date-ranges',
      'terminus_2:configure-git-webserver',
      'terminus_2:portfolio-optimization',
    ]);
  });

  it('reverify reports, rather than fakes, a verdict that only the sandbox can give', async () => {
    const [r] = readJsonl<any>(path.join(NEMO, 'example_rollouts.jsonl'));
    const task = TerminalBench21Row.parse(readJsonl(path.join(NEMO, 'example.jsonl'))[0]);
    const outcome = await reverifyEpisode(terminalBench21, task, r.response);
    expect(outcome.status).toBe('verify_error');
    expect((outcome as { message: string }).message).toMatch(/graded by its tests in the sandbox/);
  });
});

describe('gym eval run on terminal_bench_2_1 (dry runs)', () => {
  const out = () => path.join(os.tmpdir(), `gf-tb-dry-${process.pid}-${Math.random().toString(36).slice(2)}`);

  it('refuses it without a harness, and NeMo Gym rows whose folders are not here, naming the line and the folder', async () => {
    const noAgent = await gymHere(['eval', 'run', '--env', 'terminal_bench_2_1', '--model', 'mock', '--input', EXAMPLE, '--output', out(), '--dry-run']);
    expect(noAgent.code).not.toBe(0);
    expect(noAgent.stderr).toMatch(/played by an external harness in a sandbox: pass --agent <harness>/);
    const nemo = await gymHere(['eval', 'run', '--env', 'terminal_bench_2_1', '--agent', 'pi', '--model', 'mock', '--input', path.join(NEMO, 'example.jsonl'), '--output', out(), '--dry-run']);
    expect(nemo.code).not.toBe(0);
    expect(nemo.stderr).toMatch(/line 1: task_folder: task folder benchmarks\/terminal_bench_2_1\/terminal-bench-2-1\/tasks\/path-tracing .* does not exist/);
  }, 120_000);

  it("routes the openclaw_terminal_bench_2_1 bundle's rows to openclaw in docker, and asks for the image it leaves open", async () => {
    const args = ['eval', 'run', '--environment', 'openclaw_terminal_bench_2_1', '+agent_name=openclaw_terminal_bench_2_1_agent', '--input', EXAMPLE, '--model', 'mock', '--dry-run'];
    const image = '+openclaw_terminal_bench_2_1_agent.responses_api_agents.openclaw_agent.sandbox_image=gymflow-task:x';
    const ok = await gymHere([...args, image, '--output', out()]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/openclaw_terminal_bench_2_1_agent → terminal_bench_2_1\(evaluation_timeout=1800\): 2 tasks/);
    expect(ok.stdout).toMatch(/played by harness openclaw in docker/);
    const missing = await gymHere([...args, '--output', out()]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/openclaw_agent\.sandbox_image must be given/);
  }, 120_000);
});

/** NeMo Gym's own anyterminal_agent configurations, from its installed wheel. */
const ANYTERMINAL_CONFIGS = path.resolve(path.dirname(NEMO_GYM_VENV_PYTHON), '../lib/python3.11/site-packages/responses_api_agents/anyterminal_agent/configs');

describe.skipIf(!nemoGymVenv)(interopTitle("NeMo Gym's anyterminal_agent configurations (dry runs)"), () => {
  const ROWS = EXAMPLE.replace('example.jsonl', 'example_anyterminal.jsonl');
  const out = () => path.join(os.tmpdir(), `gf-tb-any-${process.pid}-${Math.random().toString(36).slice(2)}`);
  /** `gym eval run --dry-run` of one of NeMo Gym's configurations over the AnyTerminal rows. */
  const dryRun = (agent: string, overrides: string[] = []) =>
    gymHere(['eval', 'run', '--config', path.join(ANYTERMINAL_CONFIGS, `${agent}.yaml`), `+agent_name=${agent}`, ...overrides, '--input', ROWS, '--model', 'mock', '--output', out(), '--dry-run']);

  it("anyterminal_openclaw plays its rows with the openclaw harness on terminal_bench_2_1, by AnyTerminal's rule and test timeout", async () => {
    const result = await dryRun('anyterminal_openclaw', ['++anyterminal_openclaw.responses_api_agents.anyterminal_agent.sandbox_image=gymflow-task:x']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('anyterminal_openclaw → terminal_bench_2_1(evaluation_timeout=300,reward_rule="anyterminal"): 2 tasks');
    expect(result.stdout).toMatch(/played by harness openclaw in docker \(anyterminal_openclaw\)/);
  }, 120_000);

  it('anyterminal_hermes is refused, naming the agent Gymflow has no harness for', async () => {
    const result = await dryRun('anyterminal_hermes');
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/runs responses_api_agents\.hermes_agent\.app in the task's container, which Gymflow has no harness for/);
  }, 120_000);
});

// swebench against NeMo Gym 0.7.0 and SWE-bench 4.1.0: NeMo Gym's rows (Verified and Multilingual) parse and
// bad ones are refused naming the field; the eval scripts, log parsers and NeMo Gym's verify agree with their
// own code on edge cases (swebench.cases.py, run on FAKE sandboxes); a real jail grades the example tasks in a
// fresh sandbox; the recorded rollouts are listed with why they cannot be recomputed.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getEnvironment, resolveEnvironment } from '../../src/environments/registry';
import { swebench, SwebenchRow, SwebenchTask } from '../../src/environments/swebench';
import { sweBenchEvalScript, nemoGymEvalScriptEdits, type EvalInstance } from '../../src/environments/swebench/eval-script';
import { LOG_PARSERS } from '../../src/environments/swebench/log-parsers';
import { lookupSpec } from '../../src/environments/swebench/specs';
import { verifySwebench } from '../../src/environments/swebench/verify';
import { provisionTask } from '../../src/harnesses/run';
import { reverifyEpisode } from '../../src/reverify/verify';
import type { Sandbox, SandboxProvider } from '../../src/sandboxes/provider';
import { sandboxProvider } from '../../src/sandboxes/registry';
import type { ExecRequest, ExecResult } from '../../src/sandboxes/schema';
import { gymHere } from '../helpers/gym-here';
import { FIXTURES, readJsonl, writeJsonl } from './nemo_fixtures';

const EXAMPLE = path.resolve(import.meta.dirname, '../../src/environments/swebench/data/example.jsonl');
const NEMO = path.join(FIXTURES, 'swebench');
const cases = readJsonl<any>(path.join(import.meta.dirname, 'swebench.cases.jsonl'));

function issues(row: unknown): { path: string; message: string }[] {
  const parsed = SwebenchTask.safeParse(row);
  return parsed.success ? [] : parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
}

describe('swebench task rows', () => {
  const rows = readJsonl<any>(path.join(NEMO, 'example.jsonl'));

  it("takes NeMo Gym's five SWE-bench Verified example rows unchanged", () => {
    expect(rows).toHaveLength(5);
    for (const row of rows) {
      expect(issues(row)).toEqual([]);
      expect(SwebenchTask.parse(row)).toMatchObject({ repo: 'astropy/astropy', subset: 'verified', instance_id: row.instance_id });
    }
  });

  it('takes Multilingual rows: the same fields, environment_setup_commit and difficulty empty, a version per instance', () => {
    const multilingual = { ...rows[0], repo: 'jqlang/jq', instance_id: 'jqlang__jq-2681', version: '2681', environment_setup_commit: '', difficulty: '', subset: 'multilingual' };
    expect(issues(multilingual)).toEqual([]);
  });

  it.each([
    ['a missing field', { patch: undefined }, 'patch', /expected string/],
    ['a number for a string', { version: 4.3 }, 'version', /expected string/],
    ['FAIL_TO_PASS that is not JSON', { FAIL_TO_PASS: 'tests/test_x.py::test_a' }, 'FAIL_TO_PASS', /is not JSON .*JSON-encoded list of test names/],
    ['PASS_TO_PASS that is a JSON string', { PASS_TO_PASS: '"tests/test_x.py::test_a"' }, 'PASS_TO_PASS', /JSON-encoded list of test names \(strings\)/],
    ['a repository SWE-bench has no spec for', { repo: 'someone/else' }, 'repo', /no test spec for repository someone\/else/],
    ['a version SWE-bench has no spec for', { version: '99.9' }, 'version', /astropy\/astropy at version 99\.9 \(its versions: .*4\.3/],
    ['a repository SWE-bench cannot test', { repo: 'dbt-labs/dbt-core', version: '0.13' }, 'repo', /no test command/],
    [
      'a test patch unidiff cannot read',
      { test_patch: 'diff --git a/t.py b/t.py\n--- a/t.py\n+++ b/t.py\n@@ -1,3 +1,3 @@\n-a\n+b\n' },
      'test_patch',
      /not a diff SWE-bench can read \(Hunk is shorter than expected\)/,
    ],
    ['a repository folder that is not here', { repository_folder: 'no/such/folder' }, 'repository_folder', /no\/such\/folder: .*\/no\/such\/folder is not a folder on this machine/],
  ])('refuses a row with %s, naming the field', (_what, change, field, message) => {
    const found = issues({ ...rows[0], ...change });
    expect(found.map((i) => i.path)).toContain(field);
    expect(found.find((i) => i.path === field)!.message).toMatch(message);
  });

  it('takes our example rows: NeMo Gym rows of a Gymflow repository, which they carry as repository_folder', () => {
    const ours = readJsonl<any>(EXAMPLE);
    expect(ours.map((r) => SwebenchTask.parse(r).instance_id)).toEqual(['gymflow__textkit-1', 'gymflow__textkit-2']);
    expect(Object.keys(swebench.sandboxed!.repository(SwebenchTask.parse(ours[0])))).toContain('textkit/words.py');
    // NeMo Gym's own rows carry no folder: the image holds their repository.
    expect(swebench.sandboxed!.repository(SwebenchTask.parse(rows[0]))).toEqual({});
  });

  it('is listed as needing a sandbox and as evaluation-only, with its settings', () => {
    const env = getEnvironment('swebench');
    expect(env.sandboxed).toBeDefined();
    expect(env.evaluationOnly).toMatch(/benchmarks/);
    expect(resolveEnvironment({ name: 'swebench', options: { apply_anti_cheating: false, evaluation_timeout: 30 } } as any).sandboxed).toBeDefined();
    expect(() => resolveEnvironment({ name: 'swebench', options: { evaluation_timeout: 'soon' } } as any)).toThrow(/setting evaluation_timeout/);
  });
});

describe("SWE-bench's eval scripts (make_eval_script_list, with NeMo Gym's edits)", () => {
  const scripts = cases.filter((c) => c.kind === 'eval_script');

  it(`are written the same for all ${scripts.filter((c) => c.script && !c.name).length} repository versions of SWE-bench's table`, () => {
    const mismatches: string[] = [];
    for (const c of scripts.filter((c) => c.script)) {
      const spec = lookupSpec(c.instance.repo, c.instance.version);
      if (!spec) {
        mismatches.push(`${c.instance.repo} ${c.instance.version}: not in the table`);
        continue;
      }
      const mine = nemoGymEvalScriptEdits(sweBenchEvalScript(c.instance as EvalInstance, spec), c.instance.instance_id);
      if (mine !== c.script) mismatches.push(`${c.instance.repo} ${c.instance.version} (${c.instance.instance_id})`);
    }
    expect(mismatches).toEqual([]);
    // The special cases were among them: NeMo Gym's per-instance edits, wp-calypso's own test commands.
    const all = scripts.map((c) => c.script ?? '').join('\n');
    for (const edited of [
      '-Dgit.commit.id.skip=true',
      '--init-script /root/.gradle/init.d/maven_central_mirror.gradle',
      'after 5000;',
      '--client.mocha.timeout=60000',
      "npm run test-client --verbose 'client/state'",
      'cd test/e2e',
    ]) {
      expect(all).toContain(edited);
    }
  });

  it('refuses the test patches SWE-bench cannot read, and only those', () => {
    const refused = scripts.filter((c) => c.name);
    expect(refused.length).toBeGreaterThanOrEqual(5);
    for (const c of refused)
      expect({ name: c.name, refused: issues({ ...readJsonl<any>(path.join(NEMO, 'example.jsonl'))[0], test_patch: c.instance.test_patch }).some((i) => i.path === 'test_patch') }).toEqual({
        name: c.name,
        refused: !!c.error,
      });
  });
});

describe("SWE-bench's log parsers", () => {
  const logs: string[] = cases.find((c) => c.kind === 'logs').logs;
  const parses = cases.filter((c) => c.kind === 'parse');

  it(`read ${parses.length} logs (${Object.keys(LOG_PARSERS).length} parsers) into the same statuses, and fail where they fail`, () => {
    const mismatches: string[] = [];
    for (const c of parses) {
      let got: unknown;
      try {
        got = Object.fromEntries(LOG_PARSERS[c.parser]!(logs[c.log]!, c.instance_id));
      } catch (e) {
        got = { error: (e as Error).name };
      }
      const want = c.error !== undefined ? { error: c.error === 'ParseError' ? 'ValueError' : c.error } : c.statuses;
      if (JSON.stringify(got) !== JSON.stringify(want)) mismatches.push(`${c.parser} on log ${c.log} ${JSON.stringify(logs[c.log]!.slice(0, 80))}: ${JSON.stringify(got)} != ${JSON.stringify(want)}`);
    }
    expect(mismatches.slice(0, 10)).toEqual([]);
    expect(Object.keys(LOG_PARSERS).sort()).toEqual([...new Set(parses.map((c) => c.parser))].sort());
    // Not vacuous: most parsers read something from these logs, and some fail on them.
    expect(parses.filter((c) => c.statuses && Object.keys(c.statuses).length > 0).length).toBeGreaterThan(500);
    expect(parses.filter((c) => c.error).length).toBeGreaterThan(50);
  });
});

/** FAKE sandboxes answering what swebench's verify runs, as each case's fake containers answered NeMo Gym's. */
function fakeSandboxes(c: any): { agent: Sandbox; fresh: Sandbox; written: Map<string, string>; applies: string[] } {
  const written = new Map<string, string>();
  const applies: string[] = [];
  const result = (exitCode: number, extra: Partial<ExecResult> = {}): ExecResult => ({ exitCode, signal: null, timedOut: false, stdout: '', stderr: '', durationMs: 1, ...extra });
  const agent = {
    id: 'fake-agent',
    exec: async (r: ExecRequest) => {
      if (!r.command[2]!.startsWith('git --no-pager diff')) throw new Error(`unexpected agent exec ${r.command.join(' ')}`);
      return result(c.sandbox.agent_raises ? 128 : 0, c.sandbox.agent_raises ? { stderr: 'fatal: gone' } : {});
    },
    readFile: async () => Buffer.from(c.sandbox.model_patch ?? 'diff --git a/core.py b/core.py\n--- a/core.py\n+++ b/core.py\n@@ -1 +1 @@\n-a\n+b\n'),
  } as unknown as Sandbox;
  const fresh = {
    id: 'fake-verifier',
    keepalive: async () => undefined,
    exec: async (r: ExecRequest) => {
      const line = r.command[2]!;
      const write = /^mkdir -p '[^']*' && base64 -d > '([^']+)'$/.exec(line);
      if (write) {
        written.set(write[1]!, Buffer.from(r.stdin!, 'base64').toString('utf8'));
        return result(0);
      }
      if (line.startsWith('git apply') || line.startsWith('patch ')) {
        const codes: number[] = c.sandbox.apply ?? [0];
        applies.push(line);
        return result(codes[applies.length - 1] ?? 1);
      }
      if (line.includes('/bin/bash /tmp/eval.sh')) {
        if (c.sandbox.timeout) return result(-1, { exitCode: null, timedOut: true });
        if (c.sandbox.exec_raises) throw new Error('sandbox gone');
        written.set('/tmp/gymflow-eval/stdout', c.sandbox.stdout ?? '');
        written.set('/tmp/gymflow-eval/stderr', c.sandbox.stderr ?? '');
        return result(c.sandbox.exit_code ?? 0);
      }
      throw new Error(`unexpected verifier exec ${line}`);
    },
    readFile: async (file: string) => Buffer.from(written.get(file)!),
  } as unknown as Sandbox;
  return { agent, fresh, written, applies };
}

describe("swebench's verify against NeMo Gym's (SWE-bench's run_instance and get_eval_report), on FAKE sandboxes", () => {
  const verifies = cases.filter((c) => c.kind === 'verify');

  it(`agrees on ${verifies.length} outcomes: the response, the patch and eval script it copies in, and the apply commands it tries`, async () => {
    const mismatches: string[] = [];
    for (const c of verifies) {
      const task = SwebenchTask.parse(c.row);
      const fake = fakeSandboxes(c);
      const got = (await verifySwebench(task, fake.agent, { fresh: async () => fake.fresh }, { evaluationTimeoutS: 60, goldenPatch: c.golden })) as any;
      const mine = {
        verdict: { evaluation_completed: got.evaluation_completed, resolved: got.resolved, reward: got.reward, model_patch: got.model_patch, test_output: got.test_output },
        uploads: {
          ...(fake.written.has('/tmp/patch.diff') ? { '/tmp/patch.diff': fake.written.get('/tmp/patch.diff') } : {}),
          ...(fake.written.has('/tmp/eval.sh') ? { '/eval.sh': fake.written.get('/tmp/eval.sh') } : {}),
        },
        applies: fake.applies,
      };
      const want = { verdict: c.verdict, uploads: c.uploads, applies: c.applies };
      if (JSON.stringify(mine) !== JSON.stringify(want)) mismatches.push(`${c.name}: ${JSON.stringify(mine).slice(0, 400)} != ${JSON.stringify(want).slice(0, 400)}`);
    }
    expect(mismatches).toEqual([]);
    expect(verifies.filter((c) => c.verdict.resolved).length).toBeGreaterThan(8);
    expect(verifies.filter((c) => !c.verdict.evaluation_completed).length).toBeGreaterThan(4);
  });

  it('says why a reward is 0', async () => {
    const reasons = new Map<string, string | null>();
    for (const c of verifies) {
      const fake = fakeSandboxes(c);
      const got = await verifySwebench(SwebenchTask.parse(c.row), fake.agent, { fresh: async () => fake.fresh }, { evaluationTimeoutS: 60, goldenPatch: c.golden });
      reasons.set(c.name, got.failure_reason ?? null);
    }
    expect(reasons.get('flask resolved')).toBeNull();
    expect(reasons.get('flask: one F2P fails')).toBe('tests_failed');
    expect(reasons.get('flask: no apply command works')).toBe('patch_apply_failed');
    expect(reasons.get('flask: tests time out')).toBe('tests_timed_out');
    expect(reasons.get('flask: no markers')).toBe('test_log_unreadable');
    expect(reasons.get('rubocop: two start markers')).toBe('evaluation_error');
  });
});

describe("swebench graded in real local sandboxes (bubblewrap): the harness's, then a fresh one for the tests", () => {
  let provider: SandboxProvider;
  const made: Sandbox[] = [];
  const labels = { run: 'swebench-test', rollout: '0-0', attempt: 0, user: 'test' };
  beforeAll(async () => {
    provider = await sandboxProvider('local');
  });
  afterAll(async () => {
    await Promise.all(made.map((s) => s.destroy()));
  });

  async function taskSandbox(task: SwebenchTask, phase: 'agent' | 'verifier', env = swebench): Promise<Sandbox> {
    const sandbox = await provider.create({ workdir: '/testbed', labels });
    made.push(sandbox);
    await provisionTask(sandbox, { workdir: '/testbed', files: env.sandboxed!.repository(task), sandboxed: env.sandboxed }, task, phase);
    return sandbox;
  }
  const run = (s: Sandbox, line: string) => s.exec({ command: ['sh', '-c', line], cwd: '/testbed', timeoutMs: 60_000 });

  it.each([0, 1])(
    'example task %i: its reference fix resolves it, the untouched repository does not, each tested at the base commit',
    async (i) => {
      const task = SwebenchTask.parse(readJsonl(EXAMPLE)[i]);
      for (const solve of [true, false]) {
        const agent = await taskSandbox(task, 'agent');
        // The folder's files committed as the row's base commit; NeMo Gym's scrub left one branch.
        expect((await run(agent, 'git rev-parse HEAD && git branch --list')).stdout).toBe(`${task.base_commit}\n* _nel_work\n`);
        if (solve) {
          await agent.writeFile('/tmp/fix.patch', task.patch);
          expect((await run(agent, 'git apply /tmp/fix.patch')).exitCode).toBe(0);
        }
        // Something the tests would trip on if verify graded the harness's own sandbox.
        await agent.writeFile('/testbed/tests/test_planted.py', 'import unittest\n\nclass Planted(unittest.TestCase):\n    def test_x(self):\n        self.fail()\n');
        const result = (await swebench.sandboxed!.verify(task, agent, { fresh: () => taskSandbox(task, 'verifier') })) as any;
        expect(result).toMatchObject({ reward: solve ? 1 : 0, evaluation_completed: true, resolved: solve, instance_id: task.instance_id, failure_reason: solve ? null : 'tests_failed', log_dir: '' });
        expect(result.model_patch).toBe(solve ? task.patch : null);
        // unittest's verbose lines, graded by SWE-bench's django parser; the planted test is not among them.
        expect(result.test_output).toMatch(solve ? /test_\w+ \(tests\.test_\w+\.\w+Test\.test_\w+\) \.\.\. ok/ : /\.\.\. FAIL/);
        expect(result.test_output).not.toContain('test_planted');
        expect(result.tests_status.FAIL_TO_PASS[solve ? 'success' : 'failure']).toEqual(JSON.parse(task.FAIL_TO_PASS));
      }
    },
    120_000,
  );

  it('grades the golden patch when told to, and keeps the history when anti-cheating is off', async () => {
    const task = SwebenchTask.parse(readJsonl(EXAMPLE)[0]);
    const golden = resolveEnvironment({ name: 'swebench', options: { is_verifying_golden_patch: true, apply_anti_cheating: false } } as any);
    const agent = await taskSandbox(task, 'agent', golden);
    expect((await run(agent, 'git branch --show-current')).stdout).toBe('main\n');
    expect(await golden.sandboxed!.verify(task, agent, { fresh: () => taskSandbox(task, 'verifier', golden) })).toMatchObject({ reward: 1, resolved: true, model_patch: task.patch });
  }, 120_000);

  it('refuses a row whose folder does not commit to its base commit, and a sandbox with no repository, saying what is needed', async () => {
    const task = SwebenchTask.parse({ ...readJsonl<any>(EXAMPLE)[0], base_commit: '0123456789abcdef0123456789abcdef01234567' });
    await expect(taskSandbox(task, 'agent')).rejects.toThrow(/is at d8cd9a12.*not the task's base commit 0123456789abcdef.*the row and its folder disagree/);
    const nemo = SwebenchTask.parse(readJsonl(path.join(NEMO, 'example.jsonl'))[0]);
    await expect(taskSandbox(nemo, 'agent')).rejects.toThrow(/no git repository in \/testbed: .*swebench\/sweb\.eval\.x86_64\.astropy_1776_astropy-12907:latest.*--sandbox-image/);
  }, 120_000);
});

describe("NeMo Gym's recorded rollouts", () => {
  it('each reward is its recorded resolved; their test logs and images are not here, so none is recomputable (all five listed)', () => {
    const rollouts = readJsonl<any>(path.join(NEMO, 'example_rollouts.jsonl'));
    expect(rollouts).toHaveLength(5);
    const notRecomputable: string[] = [];
    for (const r of rollouts) {
      expect(r.reward).toBe(r.resolved ? 1 : 0);
      if (!r.evaluation_completed) expect(r.resolved).toBe(false);
      // The record keeps neither test_output nor the task row (Multilingual rows, while the example rows are Verified).
      expect(r.test_output).toBeUndefined();
      notRecomputable.push(r.instance_id);
    }
    expect(notRecomputable).toEqual(['jqlang__jq-2681', 'tokio-rs__tokio-4384', 'reactivex__rxjava-7597', 'apache__lucene-13704', 'axios__axios-4738']);
  });

  it('reverify reports, rather than fakes, a verdict only the sandboxes can give', async () => {
    const [r] = readJsonl<any>(path.join(NEMO, 'example_rollouts.jsonl'));
    const outcome = await reverifyEpisode(swebench, SwebenchRow.parse(readJsonl(path.join(NEMO, 'example.jsonl'))[0]), r.response);
    expect(outcome.status).toBe('verify_error');
    expect((outcome as { message: string }).message).toMatch(/graded by SWE-bench's tests in a sandbox/);
  });
});

describe('gym eval run on swebench (dry runs)', () => {
  const out = () => path.join(os.tmpdir(), `gf-swe-dry-${process.pid}-${Math.random().toString(36).slice(2)}`);
  let bad: string;
  beforeAll(() => {
    bad = mkdtempSync(path.join(os.tmpdir(), 'gf-swe-bad-'));
  });
  afterAll(() => rmSync(bad, { recursive: true, force: true }));

  it('refuses it without a harness, and a bad row naming its line and field', async () => {
    const noAgent = await gymHere(['eval', 'run', '--env', 'swebench', '--model', 'mock', '--input', EXAMPLE, '--output', out(), '--dry-run']);
    expect(noAgent.code).not.toBe(0);
    expect(noAgent.stderr).toMatch(/played by an external harness in a sandbox: pass --agent <harness>/);
    const rows = readJsonl<any>(EXAMPLE);
    const file = path.join(bad, 'rows.jsonl');
    writeJsonl(file, [rows[0], { ...rows[1], FAIL_TO_PASS: 'test_x' }]);
    const refused = await gymHere(['eval', 'run', '--env', 'swebench', '--agent', 'opencode', '--model', 'mock', '--input', file, '--output', out(), '--dry-run']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/line 2: FAIL_TO_PASS: is not JSON/);
  }, 120_000);

  it("routes the opencode_swebench bundle's rows to opencode in docker, with its settings, and asks for the image it leaves open", async () => {
    const args = ['eval', 'run', '--environment', 'opencode_swebench', '+agent_name=opencode_swebench_agent', '--input', EXAMPLE, '--model', 'mock', '--dry-run'];
    const ok = await gymHere([...args, '+opencode_swebench_agent.responses_api_agents.opencode_sandboxed_agent.sandbox_image=gymflow-task:x', '--output', out()]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/opencode_swebench_agent → swebench\(apply_anti_cheating=true,evaluation_timeout=1800\): 2 tasks/);
    expect(ok.stdout).toMatch(/played by harness opencode in docker/);
    const missing = await gymHere([...args, '--output', out()]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/opencode_sandboxed_agent\.sandbox_image must be given/);
  }, 120_000);
});

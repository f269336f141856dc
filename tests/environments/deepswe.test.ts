// deepswe against NeMo Gym 0.7.0: its rows parse and point into a task store, checked as its DeepSWETaskStore
// checks one (deepswe.cases.py, on changed copies of an example task); verify agrees with NeMo Gym's own on
// FAKE sandboxes; a real jail grades the example tasks in a fresh sandbox; the recorded rollouts are listed.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deepswe, DeepsweRow } from '../../src/environments/deepswe';
import { taskOf } from '../../src/environments/deepswe/task-data';
import { readTask, taskStore } from '../../src/environments/deepswe/task-store';
import { verifyDeepswe, verifierVerdict } from '../../src/environments/deepswe/verify';
import { getEnvironment, resolveEnvironment } from '../../src/environments/registry';
import { provisionTask } from '../../src/harnesses/run';
import { reverifyEpisode } from '../../src/reverify/verify';
import type { Sandbox, SandboxProvider } from '../../src/sandboxes/provider';
import { sandboxProvider } from '../../src/sandboxes/registry';
import type { ExecRequest, ExecResult } from '../../src/sandboxes/schema';
import { gymHere } from '../helpers/gym-here';
import { FIXTURES, readJsonl } from './nemo_fixtures';

const EXAMPLE = path.resolve(import.meta.dirname, '../../src/environments/deepswe/data/example.jsonl');
const TASKS = path.resolve(import.meta.dirname, '../../src/environments/deepswe/data/tasks');
const NEMO = path.join(FIXTURES, 'deepswe');
const cases = readJsonl<any>(path.join(import.meta.dirname, 'deepswe.cases.jsonl'));
const store = () => taskStore(TASKS);

function issues(row: unknown, env = deepswe): { path: string; message: string }[] {
  const parsed = env.taskSchema.safeParse(row);
  return parsed.success ? [] : parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
}

describe('deepswe task rows', () => {
  const nemoRows = readJsonl<any>(path.join(NEMO, 'example.jsonl'));
  const ours = readJsonl<any>(EXAMPLE);

  it("parses NeMo Gym's five example rows (task_id, its pinned image, the instruction), and refuses them when the input is checked: their task store is not here", () => {
    expect(nemoRows).toHaveLength(5);
    for (const row of nemoRows) {
      expect(DeepsweRow.parse(row)).toMatchObject({ task_id: row.verifier_metadata.task_id, subset: 'deepswe-v1.1' });
      expect(issues(row)).toEqual([{ path: 'task_id', message: expect.stringMatching(new RegExp(`unknown DeepSWE task id "${row.task_id}"`)) }]);
    }
    const elsewhere = resolveEnvironment({ name: 'deepswe', options: { tasks_dir: 'resources_servers/deepswe/data/cache/tasks' } } as any);
    expect(issues(nemoRows[0], elsewhere)[0]!.message).toMatch(
      /tasks_dir resources_servers\/deepswe\/data\/cache\/tasks .* is not a folder on this machine: NeMo Gym's rows name tasks of its prepared task store/,
    );
  });

  it('takes our example rows, written as NeMo Gym writes its rows, with the task id in either place', () => {
    expect(ours.map((r) => issues(r))).toEqual([[], []]);
    expect(issues({ ...ours[0], task_id: undefined })).toEqual([]);
    expect(issues({ ...ours[0], verifier_metadata: undefined })).toEqual([]);
  });

  it.each([
    ['no task id anywhere', { task_id: undefined, verifier_metadata: {} }, 'task_id', /must give task_id or verifier_metadata\.task_id/],
    ['two different task ids', { verifier_metadata: { task_id: 'ledger-csv-export' } }, 'verifier_metadata.task_id', /conflicts with task_id/],
    [
      'an image other than the pinned one',
      { image: 'gymflow-example/ledger:latest' },
      'image',
      /does not match the image task ledger-running-balance pins: gymflow-example\/ledger:ledger-running-balance-v1\.1/,
    ],
    ['no image', { image: undefined }, 'image', /expected string/],
    ['a number for a task id', { task_id: 7 }, 'task_id', /expected string/],
  ])('refuses a row with %s, naming the field', (_what, change, field, message) => {
    const found = issues({ ...ours[0], ...change });
    expect(found.map((i) => i.path)).toContain(field);
    expect(found.find((i) => i.path === field)!.message).toMatch(message);
  });

  it('is listed as needing a sandbox and as evaluation-only, with its settings', () => {
    const env = getEnvironment('deepswe');
    expect(env.sandboxed?.scratch).toEqual(['/tests', '/logs']);
    expect(env.evaluationOnly).toMatch(/benchmark/);
    expect(issues(ours[0], resolveEnvironment({ name: 'deepswe', options: { expected_task_count: 113 } } as any))[0]!.message).toMatch(/expected 113 tasks \(expected_task_count\), found 2/);
    expect(() => resolveEnvironment({ name: 'deepswe', options: { task_cpu_multiplier: 2 } } as any)).toThrow(/task_cpu_multiplier/);
  });
});

describe("deepswe's task store against NeMo Gym's DeepSWETaskStore", () => {
  const stores = cases.filter((c) => c.kind === 'store');
  const made: string[] = [];
  afterAll(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it(`loads and refuses the same ${stores.length} changed copies of an example task`, () => {
    const mismatches: string[] = [];
    for (const c of stores) {
      const root = mkdtempSync(path.join(os.tmpdir(), 'gf-deepswe-store-'));
      made.push(root);
      const dir = path.join(root, 'ledger-running-balance');
      for (const [file, data] of Object.entries<string>(c.files)) {
        mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
        writeFileSync(path.join(dir, file), Buffer.from(data, 'base64'));
      }
      for (const [link, target] of Object.entries<string>(c.links)) symlinkSync(path.join(dir, target), path.join(dir, link));
      let loaded: boolean;
      let message = '';
      try {
        taskStore(root, 1);
        loaded = true;
      } catch (e) {
        loaded = false;
        message = (e as Error).message;
      }
      if (loaded !== c.loaded) mismatches.push(`${c.name}: ${loaded ? 'loaded' : `refused (${message})`}, NeMo Gym ${c.loaded ? 'loaded it' : `refused it (${c.error})`}`);
      else if (!loaded) expect(message).toContain(dir);
    }
    expect(mismatches).toEqual([]);
    expect(stores.filter((c) => !c.loaded).length).toBeGreaterThan(20);
  });

  it('reads the example tasks: the pinned image, the base commit, the instruction without its canary line, the held-out files', () => {
    const task = readTask(path.join(TASKS, 'ledger-running-balance'));
    expect(task).toMatchObject({ taskId: 'ledger-running-balance', image: 'gymflow-example/ledger:ledger-running-balance-v1.1', verifierTimeoutSec: 300 });
    expect(task.baseCommit).toMatch(/^[0-9a-f]{40}$/);
    expect(task.instruction).toMatch(/^Add running balances/);
    expect(Object.keys(task.verifierFiles).sort()).toEqual(['config.json', 'grader.py', 'test.patch', 'test.sh']);
    expect(Object.keys(task.repository!)).toContain('ledger/core.py');
  });
});

/** FAKE sandboxes answering what deepswe's verify runs, as each case's fake containers answered NeMo Gym's. */
function fakeSandboxes(c: any): { agent: Sandbox; fresh: Sandbox; written: Map<string, Buffer> } {
  const written = new Map<string, Buffer>();
  const result = (exitCode: number | null, extra: Partial<ExecResult> = {}): ExecResult => ({ exitCode, signal: null, timedOut: false, stdout: '', stderr: '', durationMs: 1, ...extra });
  const agent = {
    id: 'agent-1',
    exec: async (r: ExecRequest) => {
      if (r.command[2]!.startsWith('cp ')) return result(0);
      return c.collect_timeout ? result(null, { timedOut: true }) : result(c.collect_exit ?? 0, { stdout: c.collect_stdout ?? '', stderr: c.collect_stderr ?? '' });
    },
    readFile: async () =>
      c.model_patch !== undefined
        ? Buffer.from(c.model_patch, 'base64')
        : Buffer.from('diff --git a/ledger/core.py b/ledger/core.py\n--- a/ledger/core.py\n+++ b/ledger/core.py\n@@ -1 +1 @@\n-a\n+b\n'),
  } as unknown as Sandbox;
  const fresh = {
    id: 'verifier-1',
    keepalive: async () => undefined,
    exec: async (r: ExecRequest) => {
      const line = r.command[2]!;
      const write = /^mkdir -p '[^']*' && base64 -d > '([^']+)'$/.exec(line);
      if (write) {
        written.set(write[1]!, Buffer.from(r.stdin!, 'base64'));
        return result(0);
      }
      if (line.startsWith('mkdir -p') || line.startsWith('chmod') || line.startsWith('cp ')) return result(0);
      if (line === 'bash /tests/test.sh') {
        if (c.timeout) return result(null, { timedOut: true });
        if (c.exec_raises) throw Object.assign(new Error('sandbox gone'), { name: 'RuntimeError' });
        return result(c.exit_code ?? 0, { stdout: c.stdout ?? 'ran\n', stderr: c.stderr ?? '' });
      }
      const test = /^test -f '\/logs\/verifier\/(.+)'$/.exec(line);
      if (test) return result(test[1] === 'reward.json' ? (c.reward_json !== undefined ? 0 : 1) : c.no_ctrf ? 1 : 0);
      throw new Error(`unexpected verifier exec ${line}`);
    },
    readFile: async () => Buffer.from(c.reward_json),
  } as unknown as Sandbox;
  return { agent, fresh, written };
}

describe("deepswe's verify against NeMo Gym's, on FAKE sandboxes", () => {
  const verifies = cases.filter((c) => c.kind === 'verify');
  const task = () => taskOf(DeepsweRow.parse(readJsonl(EXAMPLE)[0]), store());

  it(`agrees on ${verifies.length} outcomes: the response, and the held-out files and patch it copies in`, async () => {
    const mismatches: string[] = [];
    for (const c of verifies) {
      const fake = fakeSandboxes(c.case);
      const got = (await verifyDeepswe(task(), fake.agent, { fresh: async () => fake.fresh }, { goldenPatch: c.case.golden === true, includeModelPatch: c.case.include_patch !== false })) as any;
      const mine = Object.fromEntries(Object.keys(c.verdict).map((k) => [k, typeof got[k] === 'number' && Number.isNaN(got[k]) ? 'nan' : got[k]]));
      if (JSON.stringify(mine) !== JSON.stringify(c.verdict)) mismatches.push(`${c.name}: ${JSON.stringify(mine)} != ${JSON.stringify(c.verdict)}`);
      const uploads = Object.fromEntries([...fake.written].map(([file, data]) => [file, data.toString('base64')]));
      if (JSON.stringify(uploads) !== JSON.stringify(c.uploads)) mismatches.push(`${c.name}: uploads ${Object.keys(uploads).join(', ')} != ${Object.keys(c.uploads).join(', ')}`);
    }
    expect(mismatches).toEqual([]);
    expect(verifies.filter((c) => c.verdict.reward === 1).length).toBeGreaterThan(8);
    expect(verifies.filter((c) => !c.verdict.evaluation_completed).length).toBeGreaterThan(10);
  });

  it('says why a reward is 0', async () => {
    const reasons = new Map<string, unknown>();
    for (const c of verifies) {
      const fake = fakeSandboxes(c.case);
      reasons.set(c.name, (await verifyDeepswe(task(), fake.agent, { fresh: async () => fake.fresh }, { goldenPatch: false, includeModelPatch: true })).failure_reason);
    }
    expect(
      Object.fromEntries(
        ['resolved', 'failing tests', 'the patch did not apply', 'reward 0.5', 'reward.json broken', 'no ctrf.json', 'test.sh times out', 'the collect hook fails', 'reward.json a list'].map((n) => [
          n,
          reasons.get(n),
        ]),
      ),
    ).toEqual({
      resolved: null,
      'failing tests': 'tests_failed',
      'the patch did not apply': 'patch_apply_failed',
      'reward 0.5': 'reward_not_binary',
      'reward.json broken': 'reward_not_json',
      'no ctrf.json': 'no_ctrf_file',
      'test.sh times out': 'verifier_timed_out',
      'the collect hook fails': 'patch_collection_failed',
      'reward.json a list': 'verifier_error',
    });
    expect(verifierVerdict({ timedOut: false, exitCode: 0, output: '', ctrfWritten: true }, 300).verifier_error).toBe('Verifier did not produce /logs/verifier/reward.json');
  });
});

describe("deepswe graded in real local sandboxes (bubblewrap): the harness's, then a fresh one for the task's verifier", () => {
  let provider: SandboxProvider;
  const made: Sandbox[] = [];
  const scratch: string[] = [];
  const labels = { run: 'deepswe-test', rollout: '0-0', attempt: 0, user: 'test' };
  beforeAll(async () => {
    provider = await sandboxProvider('local');
  });
  afterAll(async () => {
    await Promise.all(made.map((s) => s.destroy()));
    for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
  });

  /** A sandbox as the harness runner makes one: /app with the task's files and setup, /tests and /logs empty and writable. */
  async function taskSandbox(row: any, phase: 'agent' | 'verifier', env = deepswe): Promise<Sandbox> {
    const mounts = ['/tests', '/logs'].map((at) => {
      const hostPath = mkdtempSync(path.join(os.tmpdir(), 'gf-deepswe-scratch-'));
      chmodSync(hostPath, 0o777);
      scratch.push(hostPath);
      return { hostPath, path: at, writable: true };
    });
    const sandbox = await provider.create({ workdir: '/app', mounts, labels });
    made.push(sandbox);
    await provisionTask(sandbox, { workdir: '/app', files: env.sandboxed!.repository(row), sandboxed: env.sandboxed }, row, phase);
    return sandbox;
  }
  const run = (s: Sandbox, line: string) => s.exec({ command: ['sh', '-c', line], cwd: '/app', timeoutMs: 60_000, env: { HOME: '/tmp' } });

  it.each([0, 1])(
    'example task %i: its committed solution earns 1.0, uncommitted work and an untouched repository 0.0',
    async (i) => {
      const row = DeepsweRow.parse(readJsonl(EXAMPLE)[i]);
      const task = taskOf(row, store());
      for (const play of ['commit', 'uncommitted', 'nothing'] as const) {
        const agent = await taskSandbox(row, 'agent');
        expect((await run(agent, 'git rev-parse HEAD')).stdout.trim()).toBe(task.baseCommit);
        if (play !== 'nothing') {
          await agent.writeFile('/tmp/fix.patch', task.solutionPatch);
          expect((await run(agent, `git apply /tmp/fix.patch${play === 'commit' ? " && git checkout -q -b fix && git add -A && git commit -q -m 'fix'" : ''}`)).exitCode).toBe(0);
        }
        const result = (await deepswe.sandboxed!.verify(row, agent, { fresh: () => taskSandbox(row, 'verifier') })) as any;
        const solved = play === 'commit';
        expect(result).toMatchObject({
          reward: solved ? 1 : 0,
          evaluation_completed: true,
          apply_failed: false,
          task_id: task.taskId,
          f2p_total: 3,
          p2p_total: 2,
          p2p_passed: 2,
          f2p_passed: solved ? 3 : 0,
          failure_reason: solved ? null : 'tests_failed',
          log_dir: '',
        });
        expect(result.model_patch_bytes).toBe(solved ? result.model_patch.length : 0);
        expect(result.test_output).toMatch(solved ? /reward 1\.0: fail-to-pass 3\/3, pass-to-pass 2\/2/ : /reward 0\.0: fail-to-pass 0\/3/);
      }
    },
    180_000,
  );

  it('grades the golden patch when told to', async () => {
    const row = DeepsweRow.parse(readJsonl(EXAMPLE)[1]);
    const golden = resolveEnvironment({ name: 'deepswe', options: { is_verifying_golden_patch: true, include_model_patch_in_response: false } } as any);
    const agent = await taskSandbox(row, 'agent', golden);
    expect(await golden.sandboxed!.verify(row, agent, { fresh: () => taskSandbox(row, 'verifier', golden) })).toMatchObject({
      reward: 1,
      evaluation_completed: true,
      model_patch: null,
      model_patch_bytes: taskOf(row, store()).solutionPatch.length,
    });
  }, 120_000);
});

describe("NeMo Gym's recorded rollouts", () => {
  it('each binary reward follows from its recorded counts (1.0 only when every test passed); none is recomputable (all five listed)', () => {
    const rollouts = readJsonl<any>(path.join(NEMO, 'example_rollouts.jsonl'));
    expect(rollouts).toHaveLength(5);
    const notRecomputable: string[] = [];
    for (const r of rollouts) {
      expect(r.reward).toBe(r.f2p_passed === r.f2p_total && r.p2p_passed === r.p2p_total ? 1 : 0);
      expect(r.partial).toBeCloseTo((r.f2p_passed + r.p2p_passed) / (r.f2p_total + r.p2p_total), 12);
      // The patch was left out (include_model_patch_in_response off) and the grader's files are in its private task store.
      expect(r.model_patch).toBeNull();
      notRecomputable.push(r.task_id);
    }
    expect(notRecomputable).toEqual([
      'ts-pattern-match-each',
      'claude-code-by-agents-recursive-delegation',
      'anko-typed-variable-bindings',
      'igel-persist-feature-schema',
      'onedump-dump-encryption-pipeline',
    ]);
  });

  it('reverify reports, rather than fakes, a verdict only the sandboxes can give', async () => {
    const outcome = await reverifyEpisode(deepswe, DeepsweRow.parse(readJsonl(EXAMPLE)[0]), { id: 'r', object: 'response', output: [] } as any);
    expect(outcome.status).toBe('verify_error');
    expect((outcome as { message: string }).message).toMatch(/graded by the task's verifier in a sandbox/);
  });
});

describe('gym eval run on deepswe (dry runs)', () => {
  const out = () => path.join(os.tmpdir(), `gf-deepswe-dry-${process.pid}-${Math.random().toString(36).slice(2)}`);

  it("refuses NeMo Gym's rows, whose store is not here, naming the line and field; routes the opencode_deepswe bundle's rows to opencode", async () => {
    const nemo = await gymHere(['eval', 'run', '--env', 'deepswe', '--agent', 'opencode', '--model', 'mock', '--input', path.join(NEMO, 'example.jsonl'), '--output', out(), '--dry-run']);
    expect(nemo.code).not.toBe(0);
    expect(nemo.stderr).toMatch(/line 1: task_id: unknown DeepSWE task id "abs-module-cache-flags"/);
    const bundle = await gymHere([
      'eval',
      'run',
      '--environment',
      'opencode_deepswe',
      '+agent_name=opencode_deepswe_agent',
      '+opencode_deepswe_agent.responses_api_agents.opencode_sandboxed_agent.sandbox_image=gymflow-task:x',
      '--input',
      EXAMPLE,
      '--model',
      'mock',
      '--output',
      out(),
      '--dry-run',
    ]);
    expect(bundle.stderr).toBe('');
    expect(bundle.stdout).toMatch(/opencode_deepswe_agent → deepswe\(include_model_patch_in_response=true,tasks_dir="src\/environments\/deepswe\/data\/tasks"\): 2 tasks/);
    expect(bundle.stdout).toMatch(/played by harness opencode in docker/);
  }, 120_000);
});

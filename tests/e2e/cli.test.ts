// The `gym` command as a user runs it: clear errors (and nothing started) for bad flags, missing
// files, malformed rows and unreachable servers; a full eval with metrics; status, list and resume,
// including a run interrupted with Ctrl-C and resumed to exactly one record per rollout.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { defaultRunId } from '../../src/runs/manifest';
import { renderReport } from '../../src/report/html';
import { readRun } from '../../src/report/read-run';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectPlausibleDiagnostics } from '../helpers/diagnostics';
import { gym } from '../helpers/gym-cli';
import { spawnWorker, waitFor } from '../helpers/worker-process';
import { tempDir } from '../helpers/run';
import { reservePort } from '../helpers/ports';
import { startTestServer, type TestServer } from '../helpers/temporal-server';

const EXAMPLE = path.resolve(import.meta.dirname, '../fixtures/nemo-gym/example_multi_step/example.jsonl');
const exampleRows = () => readFileSync(EXAMPLE, 'utf8').split('\n').filter(Boolean);

describe('gym eval run refuses bad input before starting anything', () => {
  let home: string;
  let out: string;
  let env: Record<string, string | undefined>;
  beforeAll(async () => {
    home = await tempDir('gymflow-home-');
    out = path.join(await tempDir(), 'run');
    // No TEMPORAL_ADDRESS: a command that got as far as connecting would start the embedded server in `home`.
    env = { GYMFLOW_HOME: home, TEMPORAL_ADDRESS: undefined };
  });

  const nothingStarted = () => {
    expect(existsSync(path.join(out, 'manifest.json'))).toBe(false);
    expect(readdirSync(home)).toEqual([]);
  };

  it('names the line and field of malformed rows', async () => {
    const rows = exampleRows();
    const broken = JSON.parse(rows[2]!);
    delete broken.expected_synonym_values;
    broken.minefield_label_value = 'hot';
    const input = path.join(home, '..', `bad-${Date.now()}.jsonl`);
    await writeFile(input, [rows[0], '{"responses_create_params": ', JSON.stringify(broken)].join('\n') + '\n');
    const r = await gym(['eval', 'run', '--env', 'example_multi_step', '--model', 'mock', '--input', input, '--output', out], env);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/line 2: not valid JSON/);
    expect(r.stderr).toMatch(/line 3: expected_synonym_values: /);
    expect(r.stderr).toMatch(/line 3: minefield_label_value: /);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    nothingStarted();
  });

  it('names a misspelt flag, an unknown environment and a missing file', async () => {
    const typo = await gym(['eval', 'run', '--env', 'example_multi_step', '--model', 'mock', '--input', EXAMPLE, '--output', out, '--concurency', '3'], env);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/--concurency/);
    const unknownEnv = await gym(['eval', 'run', '--env', 'nope', '--model', 'mock', '--input', EXAMPLE, '--output', out], env);
    expect(unknownEnv.code).toBe(2);
    expect(unknownEnv.stderr).toMatch(/unknown environment "nope"/);
    const remote = await gym(['eval', 'run', '--env', 'remote', '--model', 'mock', '--input', EXAMPLE, '--output', out], env);
    expect(remote.code).toBe(2);
    expect(remote.stderr).toMatch(/--env remote needs --remote-url/);
    const missing = await gym(['eval', 'run', '--env', 'example_multi_step', '--model', 'mock', '--input', '/no/such.jsonl', '--output', out], env);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toMatch(/\/no\/such\.jsonl/);
    const badNumber = await gym(['eval', 'run', '--env', 'example_multi_step', '--model', 'mock', '--input', EXAMPLE, '--output', out, '--num-repeats', '0'], env);
    expect(badNumber.code).toBe(2);
    expect(badNumber.stderr).toMatch(/--num-repeats must be an integer ≥ 1/);
    nothingStarted();
  });

  it('says so when the configured Temporal server is unreachable', async () => {
    const port = await reservePort();
    const r = await gym(['eval', 'run', '--env', 'example_multi_step', '--model', 'mock', '--input', EXAMPLE, '--output', out], { ...env, TEMPORAL_ADDRESS: `127.0.0.1:${port}` });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(new RegExp(`no Temporal server answers at 127.0.0.1:${port}`));
    nothingStarted();
  });
});

describe('gym eval against a running server', () => {
  let server: TestServer;
  let env: Record<string, string>;
  beforeAll(async () => {
    server = await startTestServer();
    env = { TEMPORAL_ADDRESS: server.address, GYMFLOW_HOME: server.dir };
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('runs an eval to its metrics, then shows it in status and list', async () => {
    const out = path.join(await tempDir(), 'cli-run');
    const r = await gym(['eval', 'run', '--env', 'example_multi_step', '--model', 'mock', '--input', EXAMPLE, '--output', out, '--limit', '3', '--num-repeats', '2', '--mock-accuracy', '0.5', '--mock-latency-ms', '20'], env);
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/rollouts: 6\/6 recorded, 0 failed \(coverage 100.0%\) over 3 tasks/);
    expect(r.stdout).toMatch(/mean reward: \d\.\d{4}/);
    expect(r.stdout).toMatch(/pass@1=\d\.\d{4}\s+pass@2=\d\.\d{4}/);
    const metrics = JSON.parse(readFileSync(path.join(out, 'metrics.json'), 'utf8'));
    const rows = readFileSync(path.join(out, 'rollouts.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    expect(rows).toHaveLength(6);
    expect(metrics.mean_reward).toBeCloseTo(rows.reduce((a, x) => a + x.reward, 0) / 6);
    expectPlausibleDiagnostics(out, { environment: 'example_multi_step', modelLatencyMs: 20 });
    // The report reads a real run's files: every rollout, each one's model time from its diagnostics.
    const report = await readRun(out);
    expect(report.rollouts.map((x) => x.id).sort()).toEqual(rows.map((x) => x._ng_rollout_id).sort());
    expect(report.latencySource).toBe('diagnostics');
    for (const x of report.rollouts) expect(x.series.latency_model_ms).toEqual(expect.any(Number));
    expect(renderReport(report)).toContain(`<dd data-key="mean_reward">${metrics.mean_reward.toFixed(4)}</dd>`);

    const status = await gym(['eval', 'status', out], env);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/completed/);
    expect(status.stdout).toMatch(/rollouts: 6\/6 recorded/);

    const list = await gym(['eval', 'list', '--json'], env);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout).map((x: { run: string }) => x.run)).toContain(defaultRunId(out));

    // A different configuration into the same folder is refused.
    const clash = await gym(['eval', 'run', '--env', 'example_multi_step', '--model', 'mock', '--input', EXAMPLE, '--output', out, '--limit', '4'], env);
    expect(clash.code).toBe(6);
    expect(clash.stderr).toMatch(/different configuration/);
  });

  it('keeps a run interrupted with Ctrl-C and resumes it to exactly one record per rollout', async () => {
    const out = path.join(await tempDir(), 'cli-resume');
    const args = ['eval', 'run', '--env', 'example_multi_step', '--model', 'mock', '--input', EXAMPLE, '--output', out, '--num-repeats', '6', '--concurrency', '2', '--mock-latency-ms', '400'];
    let interrupted = false;
    const first = await gym(args, env, {
      watch: (kill) => {
        const file = path.join(out, 'rollouts.jsonl');
        if (!interrupted && existsSync(file) && readFileSync(file, 'utf8').split('\n').filter(Boolean).length >= 3) {
          interrupted = true;
          kill();
        }
      },
    });
    expect(first.code).toBe(130);
    expect(first.stdout).toMatch(/gym eval resume/);
    const before = readFileSync(path.join(out, 'rollouts.jsonl'), 'utf8').split('\n').filter(Boolean).length;
    expect(before).toBeLessThan(30);

    const status = await gym(['eval', 'status', out], env);
    expect(status.stdout).toMatch(/running/);

    const resumed = await gym(['eval', 'resume', out, '--concurrency', '6'], env);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(/rollouts: 30\/30 recorded/);
    const ids = readFileSync(path.join(out, 'rollouts.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)._ng_rollout_id);
    expect(new Set(ids).size).toBe(30);
    expect(ids).toHaveLength(30);
  }, 480_000); // a dozen `gym` subprocesses: each start takes seconds on a loaded machine

  it('pauses, unpauses, re-sizes and cancels a detached run', async () => {
    const out = path.join(await tempDir(), 'cli-control');
    const args = ['eval', 'run', '--env', 'example_multi_step', '--model', 'mock', '--input', EXAMPLE, '--output', out, '--num-repeats', '2', '--detach'];
    expect((await gym(args, env)).code).toBe(0);
    expect((await gym(['eval', 'pause', out], env)).stdout).toMatch(/pause: sent/);
    const worker = spawnWorker(env, { runDir: out });
    const workers = [worker];
    try {
      const status = async () => JSON.parse((await gym(['eval', 'status', out, '--json'], env)).stdout);
      await waitFor(async () => (await status()).progress?.paused === true, 'the paused run to answer its progress query', 60_000);
      expect((await status()).progress.done).toBe(0);
      expect((await gym(['eval', 'concurrency', out, '5'], env)).code).toBe(0);
      expect((await gym(['eval', 'unpause', out], env)).code).toBe(0);
      await waitFor(async () => (await status()).status === 'COMPLETED', 'the run to complete', 120_000);
      expect(readFileSync(path.join(out, 'rollouts.jsonl'), 'utf8').split('\n').filter(Boolean)).toHaveLength(10);

      const second = path.join(await tempDir(), 'cli-cancel');
      await gym(['eval', 'run', '--env', 'example_multi_step', '--model', 'mock', '--input', EXAMPLE, '--output', second, '--detach', '--num-repeats', '4', '--mock-latency-ms', '5000'], env);
      // Each run has its own task queue: the cancellation is carried out by a worker for this run.
      workers.push(spawnWorker(env, { runDir: second }));
      expect((await gym(['eval', 'cancel', second, '--abandon'], env)).code).toBe(0);
      await waitFor(async () => /cancelled/.test((await gym(['eval', 'status', second], env)).stdout), 'the cancelled status', 60_000);
      expect((await gym(['eval', 'status', second], env)).stdout).toMatch(/gym eval resume/);
      const notRunning = await gym(['eval', 'pause', second], env);
      expect(notRunning.code).toBe(6);
      expect(notRunning.stderr).toMatch(/not running/);
    } finally {
      await Promise.all(workers.map((w) => w.kill()));
    }
  }, 480_000); // a dozen `gym` subprocesses: each start takes seconds on a loaded machine
});

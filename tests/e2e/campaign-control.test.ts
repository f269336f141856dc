// Failure routing and campaign control through the `gym` command, on a real Temporal dev server:
// retry-failures plays a finished run's sidecar again as new attempts (and survives its process being
// interrupted), --count-as-zero changes the metrics only, a graceful cancel finishes the rollouts in
// flight and records the run as cancelled, and resume continues a cancelled and then a terminated run
// to exactly one line per rollout. The model that fails is a fake OpenAI upstream (HTTP 500). Runs, retries and
// resumes are real `gym` subprocesses; refusals and status reads run the command in this process.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkGate } from '../../src/cli/gate';
import type { RunMemo } from '../../src/runs/client';
import { defaultRunId } from '../../src/runs/manifest';
import { runWorkflowId } from '../../workflows/definitions';
import { startFakeOpenAIUpstream, type FakeOpenAIUpstream } from '../gateway/fake_openai_upstream';
import { GYM, gym } from '../helpers/gym-cli';
import { gymHere } from '../helpers/gym-here';
import { tempDir } from '../helpers/run';
import { startTestServer, type TestServer } from '../helpers/temporal-server';
import { spawnWorker, waitFor } from '../helpers/worker-process';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/nemo-gym');
// Also read while the run writes: a line is only complete once its newline is there.
const lines = (file: string) =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .slice(0, -1)
        .map((l) => JSON.parse(l))
    : [];
const json = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

let server: TestServer;
let upstream: FakeOpenAIUpstream;
let env: Record<string, string>;
beforeAll(async () => {
  server = await startTestServer();
  upstream = await startFakeOpenAIUpstream();
  env = { TEMPORAL_ADDRESS: server.address, GYMFLOW_HOME: server.dir, GYMFLOW_TEST_KEY: 'sk-test' };
});
afterAll(async () => {
  await upstream?.close();
  await server?.stop();
});

describe('gym eval retry-failures', () => {
  it('plays only sidecar rollouts again as new attempts, updating the files once, and is resumable when interrupted', async () => {
    const out = path.join(await tempDir(), 'retry');
    upstream.failWith(500, 'the upstream is overloaded');
    const run = await gym(
      [
        'eval',
        'run',
        '--env',
        'example_single_tool_call',
        '--input',
        path.join(FIXTURES, 'example_single_tool_call/example.jsonl'),
        '--output',
        out,
        '--limit',
        '2',
        '--num-repeats',
        '2',
        '--max-attempts',
        '1',
        '--count-as-zero',
        'model_error',
        '--model',
        'openai',
        '--model-name',
        'gpt-test',
        '--model-url',
        upstream.url,
        '--api-key-env',
        'GYMFLOW_TEST_KEY',
      ],
      env,
    );
    // Counted as zero, the failures are in the score (coverage 1) but stay in the sidecar only.
    expect(run.code).toBe(0);
    const first = json(path.join(out, 'metrics.json'));
    expect(first).toMatchObject({ rollouts_recorded: 0, rollouts_failed: 4, rollouts_counted_as_zero: 4, coverage: 1, mean_reward: 0, count_as_zero: ['model_error'] });
    expect(lines(path.join(out, 'rollouts.jsonl'))).toEqual([]);
    const sidecar = lines(path.join(out, 'failures.jsonl'));
    expect(sidecar.map((f) => [f._ng_failure_class, f._ng_failure_terminal, f._ng_attempt_index])).toEqual(Array(4).fill(['model_error', false, 0]));

    // The gate's last word points at the retry (in-process: the same code `gym eval gate` runs).
    const said: string[] = [];
    await checkGate(out, { maxFailedFraction: 1 }, (l) => void said.push(l));
    expect(said.at(-1)).toBe(`4 rollouts in failures.jsonl: play them again with \`gym eval retry-failures ${out}\``);

    const badClass = await gymHere(['eval', 'retry-failures', out, '--class', 'model_eror'], env);
    expect(badClass.code).toBe(2);
    expect(badClass.stderr).toMatch(/--class: unknown failure class "model_eror"; the classes are model_error, /);

    // Still failing: each stays in the sidecar once, with its new attempt index.
    const again = await gym(['eval', 'retry-failures', out, '--class', 'model_error'], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/retrying 4 sidecar rollouts \(4 model_error\)/);
    const after = lines(path.join(out, 'failures.jsonl'));
    expect(after.map((f) => f._ng_rollout_id).sort()).toEqual(sidecar.map((f) => f._ng_rollout_id).sort());
    expect(after.every((f) => f._ng_attempt_index === 1)).toBe(true);

    // Healthy now. The retry's process is stopped before it plays anything (it runs no worker);
    // the retry stays a running execution of the run, and resume carries it out.
    upstream.recover();
    const client = await server.client();
    const handle = client.workflow.getHandle(runWorkflowId(defaultRunId(out)));
    const child = spawn(process.execPath, [GYM, 'eval', 'retry-failures', out, '--no-worker'], { env: { ...process.env, GYMFLOW_LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'ignore'] });
    let printed = '';
    child.stdout.on('data', (d) => (printed += d));
    const exited = new Promise<[number | null, string | null]>((resolve) => child.on('close', (code, signal) => resolve([code, signal])));
    await waitFor(async () => {
      const d = await handle.describe();
      return /retrying 4 sidecar rollouts/.test(printed) && d.status.name === 'RUNNING' && !!(d.memo as RunMemo | undefined)?.retry;
    }, 'the retry to start');
    child.kill('SIGINT');
    // Ctrl-C ends a follower that runs no worker too (it used to wait for the result for ever); a
    // signal just before its handler is installed ends it as well. Bounded, so a follower that ignores
    // Ctrl-C fails here with what it printed instead of running out the test's time.
    const ended = await Promise.race([exited, new Promise<'still running'>((r) => setTimeout(() => r('still running'), 60_000).unref())]);
    if (ended === 'still running') child.kill('SIGKILL');
    expect(ended, `the follower after Ctrl-C; it printed:\n${printed}`).not.toBe('still running');
    expect([
      [130, null],
      [null, 'SIGINT'],
    ]).toContainEqual(ended);
    const resumed = await gym(['eval', 'resume', out], env);
    expect(resumed.code).toBe(0);
    const recorded = lines(path.join(out, 'rollouts.jsonl'));
    expect(recorded.map((r) => r._ng_rollout_id).sort()).toEqual(sidecar.map((f) => f._ng_rollout_id).sort());
    expect(recorded.every((r) => r._ng_attempt_index === 2)).toBe(true);
    expect(lines(path.join(out, 'failures.jsonl'))).toEqual([]);
    expect(json(path.join(out, 'metrics.json'))).toMatchObject({ status: 'completed', rollouts_recorded: 4, rollouts_failed: 0, rollouts_counted_as_zero: 0, coverage: 1 });
    expect(json(path.join(out, 'quality_summary.json')).run.verdicts.unhealthy).toBe(0);
    // The first attempts' journals are kept aside for the audit.
    expect(existsSync(path.join(out, 'work', 'attempts'))).toBe(true);
    const none = await gymHere(['eval', 'retry-failures', out, '--class', 'timeout'], env);
    expect(none.code).toBe(0);
    expect(none.stdout).toMatch(/nothing to retry: failures.jsonl holds no rollouts of class timeout/);
  }, 480_000); // six `gym` subprocesses: each start takes seconds on a loaded machine
});

describe('gym eval cancel and resume', () => {
  it('cancels gracefully as "cancelled" with the rest missing, then resumes it; a terminated run resumes too', async () => {
    const out = path.join(await tempDir(), 'cancel');
    const total = 30;
    const args = [
      'eval',
      'run',
      '--env',
      'example_multi_step',
      '--model',
      'mock',
      '--input',
      path.join(FIXTURES, 'example_multi_step/example.jsonl'),
      '--output',
      out,
      '--num-repeats',
      '6',
      '--concurrency',
      '2',
      '--mock-latency-ms',
      '200',
      '--detach',
    ];
    expect((await gym(args, env)).code).toBe(0);
    const rollouts = () => lines(path.join(out, 'rollouts.jsonl'));
    const worker = spawnWorker(env, { runDir: out });
    try {
      await waitFor(() => rollouts().length >= 2, 'the first records');
      const cancel = await gym(['eval', 'cancel', out], env);
      expect(cancel.code).toBe(0);
      expect(cancel.stdout).toMatch(/those in flight finish/);
      await waitFor(() => existsSync(path.join(out, 'metrics.json')), 'the cancelled run to finalize');
      const metrics = json(path.join(out, 'metrics.json'));
      expect(metrics.status).toBe('cancelled');
      expect(metrics.rollouts_recorded).toBe(rollouts().length);
      expect(metrics.rollouts_missing).toBe(total - metrics.rollouts_recorded - metrics.rollouts_failed);
      expect(metrics.rollouts_missing).toBeGreaterThan(0);
      expect(json(path.join(out, 'manifest.json')).status).toBe('cancelled');
      // Finished, not abandoned: no rollout was left part-way.
      expect(existsSync(path.join(out, 'work')) ? readdirSync(path.join(out, 'work')).filter((f) => f.endsWith('.jsonl')) : []).toEqual([]);
      // The workflow closes a moment after its files are final.
      let status = '';
      await waitFor(async () => /: cancelled/.test((status = (await gymHere(['eval', 'status', out], env)).stdout)), 'the status to say cancelled', 60_000);
      expect(status).toMatch(/gym eval resume/);

      // Resumed and then terminated mid-way (the workflow, not the process).
      const client = await server.client();
      const handle = client.workflow.getHandle(runWorkflowId(defaultRunId(out)));
      const cancelledCount = rollouts().length;
      const follower = spawn(process.execPath, [GYM, 'eval', 'resume', out, '--no-worker'], { env: { ...process.env, GYMFLOW_LOG_LEVEL: 'warn', ...env }, stdio: 'ignore' });
      const followed = new Promise((resolve) => follower.on('close', resolve));
      await waitFor(() => rollouts().length >= cancelledCount + 2, 'records after the resume');
      await handle.terminate('the operator stopped it');
      expect(await followed).not.toBe(0);
      expect((await handle.describe()).status.name).toBe('TERMINATED');
    } finally {
      await worker.kill();
    }
    expect(rollouts().length).toBeLessThan(total);
    const resumed = await gym(['eval', 'resume', out], env);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(new RegExp(`rollouts: ${total}/${total} recorded`));
    const ids = rollouts().map((r) => r._ng_rollout_id);
    expect(ids).toHaveLength(total);
    expect(new Set(ids).size).toBe(total);
    expect(json(path.join(out, 'metrics.json')).status).toBe('completed');
  }, 480_000);
});

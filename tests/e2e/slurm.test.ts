// `gym eval submit` against a real single-node Slurm (slurmctld + slurmd started here): the job starts
// the vLLM replicas — a FAKE `vllm` on PATH, speaking vLLM's wire format — and a worker, and the run
// finishes; stopped mid-run by the time-limit signal or requeued, the run still ends exactly once per rollout.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gym } from '../helpers/gym-cli';
import { useGymServer } from '../helpers/gym-server';
import { tempDir } from '../helpers/run';
import { releasePort, reservePort } from '../helpers/ports';
import { expectFaultInvariants, expectValidResultLines } from '../helpers/fault-invariants';
import { startSlurmCluster, type SlurmCluster } from '../helpers/slurm-cluster';

const MCQA = path.resolve(import.meta.dirname, '../../src/environments/mcqa/data/example.jsonl');
const TASKS = readFileSync(MCQA, 'utf8').split('\n').filter(Boolean).length;
const FAKE_VLLM_DIR = path.resolve(import.meta.dirname, '../helpers/fake-vllm');
const FINISHED = new Set(['COMPLETED', 'FAILED', 'CANCELLED', 'TIMEOUT', 'NODE_FAIL', 'PREEMPTED', 'OUT_OF_MEMORY', 'BOOT_FAIL', 'DEADLINE']);

describe('gym eval submit on a real single-node Slurm', () => {
  const temporal = useGymServer();
  let cluster: SlurmCluster | undefined;
  const ports: number[] = [];

  beforeAll(async () => {
    cluster = await startSlurmCluster();
  }, 150_000);
  afterAll(async () => {
    await cluster?.stop();
    for (const p of ports) releasePort(p);
  }, 150_000);

  /** The environment `gym eval submit` is run in: the job inherits it (sbatch exports it all). */
  const submitEnv = () => ({ ...temporal, ...cluster!.env, PATH: `${FAKE_VLLM_DIR}:${process.env.PATH}` });

  async function submit(out: string, extra: string[]): Promise<string> {
    const port = await reservePort();
    ports.push(port);
    const args = ['eval', 'submit', '--env', 'mcqa', '--model', 'vllm', '--model-name', 'fake-model', '--input', MCQA, '--output', out];
    const result = await gym([...args, '--gpus-per-replica', '0', '--vllm-port', String(port), '--time', '30', '--vllm-startup-timeout', '120', ...extra], submitEnv());
    expect(result.code, result.stderr).toBe(0);
    const id = /submitted Slurm job (\d+)/.exec(result.stdout)?.[1];
    expect(id, result.stdout).toBeDefined();
    return id!;
  }

  const jobOutput = (out: string, id: string) => {
    const file = path.join(out, 'slurm', `job-${id}.out`);
    return existsSync(file) ? readFileSync(file, 'utf8') : `(no ${file})`;
  };
  const slurmFiles = (out: string) => {
    const dir = path.join(out, 'slurm');
    if (!existsSync(dir)) return '(no slurm folder)';
    return readdirSync(dir)
      .filter((f) => f.endsWith('.log') || f.endsWith('.out'))
      .map((f) => `--- ${f}\n${readFileSync(path.join(dir, f), 'utf8').split('\n').slice(-20).join('\n')}`)
      .join('\n');
  };
  const recorded = (out: string) => {
    const file = path.join(out, 'rollouts.jsonl');
    return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0;
  };

  /** Polls until `check` holds; a bound far above the normal time, failing with what the job wrote. */
  async function waitFor(what: string, ms: number, out: string, check: () => Promise<boolean> | boolean): Promise<void> {
    const deadline = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms / 1000} s\n${slurmFiles(out)}\n${cluster!.logs()}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  async function finalState(out: string, id: string): Promise<string> {
    let state: string | undefined;
    await waitFor(`job ${id} ending`, 150_000, out, async () => FINISHED.has((state = await cluster!.jobState(id)) ?? ''));
    return state!;
  }

  it('runs the eval in a job that starts the vLLM replica and a worker', async () => {
    const out = path.join(await tempDir(), 'slurm-run');
    const id = await submit(out, ['--num-repeats', '2', '--workers', '2']);
    expect(await finalState(out, id), jobOutput(out, id)).toBe('COMPLETED');

    const { records } = await expectFaultInvariants(out, { tasks: TASKS, repeats: 2, env: 'mcqa' });
    expect(records).toHaveLength(TASKS * 2);
    const output = jobOutput(out, id);
    expect(output).toMatch(/1 replica\(s\) published/);
    expect(output).toMatch(/rollouts: 10\/10 recorded/);
    // The replica was started with vLLM's command line, and the run's calls reached it through the endpoint file.
    const vllmLog = readFileSync(path.join(out, 'slurm', `vllm-${id}-localhost-0.log`), 'utf8');
    expect(vllmLog).toMatch(/fake vllm serving fake-model .*--served-model-name fake-model --host 0\.0\.0\.0 --port \d+/);
    const manifest = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8'));
    expect(manifest.config.model).toMatchObject({ backend: 'vllm', model: 'fake-model', endpoint_file: path.join(out, 'slurm', 'endpoints') });
    // vLLM's token ids came back from the fake replica on every recorded rollout.
    expect(records.every((r) => JSON.stringify(r).includes('generation_token_ids'))).toBe(true);
    // Both workers ran; the endpoint file is withdrawn once the job is done.
    expect(readdirSync(path.join(out, 'slurm')).filter((f) => f.startsWith(`worker-${id}-`))).toHaveLength(2);
    expect(existsSync(path.join(out, 'slurm', 'endpoints'))).toBe(false);
  }, 240_000);

  it('queues a successor on the time-limit signal, and the successor resumes the run to exactly once per rollout', async () => {
    const out = path.join(await tempDir(), 'slurm-successor');
    const repeats = 6;
    const first = await submit(out, ['--num-repeats', String(repeats), '--concurrency', '2', '--job-env', 'FAKE_VLLM_LATENCY_MS=300', '--max-jobs', '3']);
    await waitFor('a few rollouts recorded by the first job', 150_000, out, () => recorded(out) >= 3);
    // What Slurm sends the batch shell --signal-lead seconds before the time limit (--signal=B:USR1@S).
    await cluster!.command('scancel', ['--signal=USR1', '--batch', first]);
    const atSignal = recorded(out);
    expect(atSignal).toBeLessThan(TASKS * repeats);

    expect(await finalState(out, first), jobOutput(out, first)).toBe('COMPLETED');
    expectValidResultLines(out);
    const chain = readFileSync(path.join(out, 'slurm', 'jobs'), 'utf8')
      .split('\n')
      .filter(Boolean);
    expect(chain[0]).toBe(first);
    expect(chain, jobOutput(out, first)).toHaveLength(2);
    const successor = chain[1]!;
    expect(jobOutput(out, first)).toMatch(new RegExp(`queued successor job ${successor}`));

    expect(await finalState(out, successor), jobOutput(out, successor)).toBe('COMPLETED');
    expect(jobOutput(out, successor)).toMatch(/job \d+ \(number 2 of at most 3/);
    const { records } = await expectFaultInvariants(out, { tasks: TASKS, repeats, env: 'mcqa' });
    expect(records).toHaveLength(TASKS * repeats);
    // The successor finished the run, so it queued no third job.
    expect(
      readFileSync(path.join(out, 'slurm', 'jobs'), 'utf8')
        .split('\n')
        .filter(Boolean),
    ).toEqual([first, successor]);
  }, 300_000);

  it('resumes the run when the job is requeued (as a preemption with PreemptMode=REQUEUE does)', async () => {
    const out = path.join(await tempDir(), 'slurm-requeue');
    const repeats = 6;
    const id = await submit(out, ['--num-repeats', String(repeats), '--concurrency', '2', '--job-env', 'FAKE_VLLM_LATENCY_MS=300']);
    await waitFor('a few rollouts recorded before the requeue', 150_000, out, () => recorded(out) >= 3);
    await cluster!.command('scontrol', ['requeue', id]);
    expect(recorded(out)).toBeLessThan(TASKS * repeats);
    // Slurm holds a requeued job back for a while (its BeginTime); the test moves that up rather than wait.
    await waitFor(`job ${id} pending again`, 60_000, out, async () => (await cluster!.jobState(id)) === 'PENDING');
    await cluster!.command('scontrol', ['update', `JobId=${id}`, 'StartTime=now']);
    await waitFor(`job ${id} running again`, 150_000, out, () => /restart 1\)/.test(jobOutput(out, id)));
    expect(await finalState(out, id), jobOutput(out, id)).toBe('COMPLETED');
    const { records } = await expectFaultInvariants(out, { tasks: TASKS, repeats, env: 'mcqa' });
    expect(records).toHaveLength(TASKS * repeats);
    // A requeue is the same job again, not a successor.
    expect(
      readFileSync(path.join(out, 'slurm', 'jobs'), 'utf8')
        .split('\n')
        .filter(Boolean),
    ).toEqual([id]);
  }, 300_000);

  it('refuses a bad flag as a command, naming it, before anything is prepared (the other refusals: tests/unit/eval-submit-flags.test.ts)', async () => {
    const out = path.join(await tempDir(), 'slurm-refused');
    const r = await gym(['eval', 'submit', '--env', 'mcqa', '--model-name', 'm', '--input', MCQA, '--output', out, '--time', 'soon'], submitEnv());
    expect(r.code, r.stdout).toBe(2);
    expect(r.stderr).toMatch(/--time "soon": a Slurm time/);
    // Nothing was prepared or submitted (the folder itself is made when the output is checked, as gym eval run does).
    expect(existsSync(path.join(out, 'manifest.json'))).toBe(false);
    expect(existsSync(path.join(out, 'slurm'))).toBe(false);
  }, 120_000);

  it('refuses a second chain on a run while a job of the first is still in Slurm', async () => {
    const out = path.join(await tempDir(), 'slurm-twice');
    // Held, the job stays queued for as long as the test needs it to.
    const held = await submit(out, ['--sbatch-arg=--hold']);
    expect((await cluster!.jobs()).get(held)).toBe('PENDING');
    const again = await gym(['eval', 'submit', '--env', 'mcqa', '--model-name', 'fake-model', '--input', MCQA, '--output', out], submitEnv());
    expect(again.code, again.stdout).toBe(6);
    expect(again.stderr).toContain(`Slurm job ${held} of this run is still queued or running`);
    await cluster!.command('scancel', [held]);
    await waitFor(`job ${held} gone from the queue`, 60_000, out, async () => !(await cluster!.jobs()).has(held));
    // Once it is gone, the run can be submitted again (it resumes: the folder holds it).
    const next = await submit(out, ['--sbatch-arg=--hold']);
    expect(
      readFileSync(path.join(out, 'slurm', 'jobs'), 'utf8')
        .split('\n')
        .filter(Boolean),
    ).toEqual([held, next]);
    await cluster!.command('scancel', [next]);
  }, 120_000);
});

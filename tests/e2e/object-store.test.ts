// `gym eval run --store s3://…` end to end, against a real Temporal dev server and a real S3-compatible server
// (moto's): the run's work done by a worker of a shared pool through the object store only (no journal in the
// run folder), that worker SIGKILLed mid-run and another taking over, every rollout recorded exactly once, the
// canonical files both in --output and in the bucket, and no credential in the histories, logs or records.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ObjectStore } from '../../src/store/object/client';
import { gym, gymLive } from '../helpers/gym-cli';
import { useGymServer } from '../helpers/gym-server';
import { createBucket, startMotoServer, TEST_ACCESS_KEY, TEST_SECRET_KEY, type MotoServer } from '../helpers/moto-server';
import { releasePort, reservePort } from '../helpers/ports';
import { tempDir } from '../helpers/run';
import { spawnWorker, waitFor, type WorkerProcess } from '../helpers/worker-process';

const EXAMPLE = path.resolve(import.meta.dirname, '../fixtures/nemo-gym/example_multi_step/example.jsonl');
const TASKS = 5;
const REPEATS = 3;
const BUCKET = 'gym-e2e';

const jsonl = (text: string | undefined) =>
  (text ?? '')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** Every file under a folder, with its text. */
function filesUnder(dir: string): { file: string; text: string }[] {
  const out: { file: string; text: string }[] = [];
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) out.push(...filesUnder(file));
    else out.push({ file, text: readFileSync(file, 'utf8') });
  }
  return out;
}

describe('gym eval run --store s3://', () => {
  const temporal = useGymServer();
  let moto: MotoServer;
  const workers: WorkerProcess[] = [];
  beforeAll(async () => {
    moto = await startMotoServer();
    await createBucket(moto, BUCKET);
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.kill()));
    await moto?.stop();
  });

  it('records every rollout exactly once through the object store, across a killed worker, with no credential anywhere', async () => {
    const env = { ...temporal, ...moto.env };
    const out = path.join(await tempDir(), 'store-run');
    const pool = `s3-pool-${process.pid}`;
    const worker = () => {
      const w = spawnWorker(env, { taskQueue: pool });
      workers.push(w);
      return w;
    };
    const first = worker();
    const runId = `store-run-${process.pid}`;
    const run = new ObjectStore(`s3://${BUCKET}/campaign/${runId}`, moto.env);
    const cli = gymLive(
      [
        'eval',
        'run',
        '--env',
        'example_multi_step',
        '--model',
        'mock',
        '--input',
        EXAMPLE,
        '--output',
        out,
        '--num-repeats',
        String(REPEATS),
        '--concurrency',
        '4',
        '--mock-latency-ms',
        '150',
        '--run-id',
        runId,
        '--store',
        `s3://${BUCKET}/campaign`,
        '--task-queue',
        pool,
        '--no-worker',
      ],
      env,
    );
    // Killed once some rollouts are recorded and others are mid-way: the next worker resumes them from their journals in the bucket.
    await waitFor(async () => (first.assertAlive(), (await run.list('results/rollouts')).length >= 4), '4 result objects', 300_000);
    expect((await run.list('work')).length).toBeGreaterThan(0);
    await first.kill('SIGKILL');
    const second = worker();
    const code = await cli.exited;
    expect(code, cli.stdout() + cli.stderr() + second.output()).toBe(0);
    expect(cli.stdout()).toMatch(new RegExp(`rollouts: ${TASKS * REPEATS}/${TASKS * REPEATS} recorded`));

    // Exactly once, in the run folder and in the bucket alike.
    const local = jsonl(readFileSync(path.join(out, 'rollouts.jsonl'), 'utf8'));
    const ids = local.map((r) => r._ng_rollout_id as string);
    expect(ids).toHaveLength(TASKS * REPEATS);
    expect(new Set(ids).size).toBe(TASKS * REPEATS);
    expect(jsonl(readFileSync(path.join(out, 'failures.jsonl'), 'utf8'))).toEqual([]);
    expect(await run.get('rollouts.jsonl')).toBe(readFileSync(path.join(out, 'rollouts.jsonl'), 'utf8'));
    for (const name of ['failures.jsonl', 'metrics.json', 'task_metrics.jsonl', 'manifest.json', 'tasks.jsonl']) expect(await run.exists(name), name).toBe(true);
    expect(JSON.parse((await run.get('metrics.json'))!).rollouts_recorded).toBe(TASKS * REPEATS);
    expect((await run.list('results/rollouts')).sort()).toEqual(ids.map((id) => `results/rollouts/${id}.json`).sort());
    // The workers journaled in the bucket, not in the run folder; recorded rollouts' journals are gone.
    expect(readdirSync(out)).not.toContain('work');
    expect(await run.list('work')).toEqual([]);

    // The folder's commands work on the local copy.
    const report = await gym(['eval', 'report', out], env);
    expect(report.code, report.stderr).toBe(0);
    const history = await gym(['eval', 'history', out], env);
    expect(history.code, history.stderr).toBe(0);

    // What the workflows were told of each rollout is what its record says, the killed worker's writes included.
    const summary = JSON.parse(readFileSync(path.join(out, 'histories', 'summary.json'), 'utf8')) as {
      rollouts: { rollout_id: string; outcome: string; reward?: number; stored: { reward?: number } }[];
    };
    expect(summary.rollouts).toHaveLength(TASKS * REPEATS);
    for (const r of summary.rollouts) expect([r.rollout_id, r.outcome, r.reward]).toEqual([r.rollout_id, 'recorded', r.stored.reward]);

    // Only the s3:// URL travels: no key in the histories, the outputs, the run folder or the bucket.
    const texts = [cli.stdout(), cli.stderr(), first.output(), second.output(), report.stdout, report.stderr, history.stdout, history.stderr, ...filesUnder(out).map((f) => f.text)];
    for (const name of await run.list('')) texts.push((await run.get(name)) ?? '');
    // History payloads are base64 JSON: decoded, they name the store's URL, and nothing secret.
    const payloads = filesUnder(path.join(out, 'histories'))
      .flatMap((f) => [...f.text.matchAll(/"data":\s*"([A-Za-z0-9+/=]+)"/g)].map((m) => Buffer.from(m[1]!, 'base64').toString('utf8')))
      .join('\n');
    expect(payloads).toContain(`s3://${BUCKET}/campaign/${runId}`);
    texts.push(payloads);
    for (const text of texts) {
      expect(text).not.toContain(TEST_SECRET_KEY);
      expect(text).not.toContain(TEST_ACCESS_KEY);
    }
  }, 600_000);

  it('refuses a missing bucket and an unreachable endpoint before the run starts, naming --store, without a stack trace', async () => {
    const base = ['eval', 'run', '--env', 'example_multi_step', '--model', 'mock', '--input', EXAMPLE, '--limit', '1'];
    const missing = await gym([...base, '--output', path.join(await tempDir(), 'no-bucket'), '--store', 's3://no-such-bucket/runs'], { ...temporal, ...moto.env });
    expect(missing.code).toBe(4);
    expect(missing.stderr).toMatch(/--store s3:\/\/no-such-bucket\/runs\/.*does not exist/);
    const port = await reservePort();
    try {
      const down = await gym([...base, '--output', path.join(await tempDir(), 'no-endpoint'), '--store', `s3://${BUCKET}/runs`], {
        ...temporal,
        ...moto.env,
        AWS_ENDPOINT_URL: `http://127.0.0.1:${port}`,
      });
      expect(down.code).toBe(5);
      expect(down.stderr).toMatch(/cannot be reached.*AWS_ENDPOINT_URL/);
      for (const r of [missing, down]) {
        expect(r.stderr).not.toMatch(/\n\s+at /);
        expect(r.stderr).not.toContain(TEST_SECRET_KEY);
      }
    } finally {
      releasePort(port);
    }
  }, 240_000);
});

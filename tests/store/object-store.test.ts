// The run store's object store backend against a real S3-compatible server (moto's): conditional writes
// that leave each rollout's result to its first writer, across processes; the journal; the finalizer's
// canonical files; and the clear errors for a missing bucket, refused credentials and an unreachable endpoint.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isGymError, type GymError } from '../../src/errors';
import type { FailureRecord, RolloutRecord } from '../../src/schemas/records';
import { ObjectStore, objectStoreError, storeSettings } from '../../src/store/object/client';
import { latestAttempts, pullRun, pushRun } from '../../src/store/object/finalize';
import { ObjectJournal } from '../../src/store/object/journal';
import { ObjectRunFiles } from '../../src/store/object/run-objects';
import { parseStoreUrl, runStoreUrl } from '../../src/store/object/s3-url';
import { createBucket, startMotoServer, TEST_SECRET_KEY, type MotoServer } from '../helpers/moto-server';
import { reservePort, releasePort } from '../helpers/ports';
import { tempDir } from '../helpers/run';

const CHILD = path.join(import.meta.dirname, 'object-writer-child.ts');
const ROOT = path.resolve(import.meta.dirname, '../..');

const rollout = (id: string, reward: number) => ({ _ng_task_index: Number(id.split('-')[0]), _ng_rollout_index: Number(id.split('-')[1]), reward, _ng_rollout_id: id }) as unknown as RolloutRecord;
const failure = (id: string, attempt: number) =>
  ({
    _ng_task_index: Number(id.split('-')[0]),
    _ng_rollout_index: Number(id.split('-')[1]),
    _ng_failure_class: 'model_error',
    message: `attempt ${attempt}`,
    _ng_attempt_index: attempt,
    _ng_rollout_id: id,
  }) as unknown as FailureRecord;

async function caught(p: Promise<unknown>): Promise<GymError> {
  try {
    await p;
  } catch (e) {
    if (isGymError(e)) return e;
    throw e;
  }
  throw new Error('expected an error');
}

describe('store URLs and settings', () => {
  it('parses s3://bucket/prefix and names each run under its id', () => {
    expect(parseStoreUrl('s3://runs-bucket/team/evals/')).toEqual({ bucket: 'runs-bucket', prefix: 'team/evals' });
    expect(parseStoreUrl('s3://runs-bucket')).toEqual({ bucket: 'runs-bucket', prefix: '' });
    expect(runStoreUrl('s3://runs-bucket/team/', 'run-1')).toBe('s3://runs-bucket/team/run-1');
    expect(runStoreUrl('s3://runs-bucket', 'run-1')).toBe('s3://runs-bucket/run-1');
    for (const bad of ['s3://', 's3://Bad_Bucket/x', 'https://bucket/x', 's3://bucket/a/../b', 's3://bucket/a//b']) {
      const e = (() => {
        try {
          parseStoreUrl(bad);
        } catch (err) {
          return err as GymError;
        }
      })();
      expect(e?.code, bad).toBe('BAD_FLAG');
    }
  });

  it('takes endpoint, region and path-style from the AWS environment variables', () => {
    expect(storeSettings({})).toEqual({ endpoint: undefined, region: 'us-east-1', forcePathStyle: false });
    expect(storeSettings({ AWS_ENDPOINT_URL: 'http://minio:9000', AWS_REGION: 'eu-west-1' })).toEqual({ endpoint: 'http://minio:9000', region: 'eu-west-1', forcePathStyle: true });
    expect(storeSettings({ AWS_ENDPOINT_URL: 'http://x', AWS_S3_FORCE_PATH_STYLE: 'false' }).forcePathStyle).toBe(false);
    expect(storeSettings({ AWS_S3_FORCE_PATH_STYLE: 'true' }).forcePathStyle).toBe(true);
  });

  it('names no user or password of an endpoint in its errors', () => {
    const e = objectStoreError(
      { name: 'InvalidAccessKeyId', $metadata: { httpStatusCode: 403 } },
      's3://b1b/x',
      { endpoint: 'http://user:pa55word@store:9000', region: 'r', forcePathStyle: true },
      'read x',
    );
    expect(e.code).toBe('SETUP_FAILED');
    expect(e.message).not.toContain('pa55word');
    expect(e.message).toContain('AWS_ACCESS_KEY_ID');
  });

  it('keeps the latest attempt of each sidecar rollout', () => {
    expect(latestAttempts(['0-0/a0000.json', '0-0/a0002.json', '0-0/a0001.json', '1-0/a0000.json']).sort()).toEqual(['0-0/a0002.json', '1-0/a0000.json']);
  });
});

describe('the object store backend against moto', () => {
  let moto: MotoServer;
  const before: Record<string, string | undefined> = {};
  beforeAll(async () => {
    moto = await startMotoServer();
    for (const name of Object.keys(moto.env)) before[name] = process.env[name];
    Object.assign(process.env, moto.env);
    await createBucket(moto, 'gym-runs');
  });
  afterAll(async () => {
    // This file shares its process with other store tests: the AWS settings go as they came.
    for (const [name, value] of Object.entries(before)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await moto?.stop();
  });

  it('supports conditional writes: the first writer of a key wins, a second gets false', async () => {
    const store = new ObjectStore('s3://gym-runs/cond');
    expect(await store.putIfAbsent('k.json', 'one')).toBe(true);
    expect(await store.putIfAbsent('k.json', 'two')).toBe(false);
    expect(await store.get('k.json')).toBe('one');
  });

  it('records each rollout once: a second record of it is refused and the first one stands', async () => {
    const files = new ObjectRunFiles('s3://gym-runs/once');
    expect(await files.appendRollout(rollout('3-1', 1))).toBe(true);
    expect(await files.appendRollout(rollout('3-1', 0))).toBe(false);
    expect(await files.findRollout('3-1')).toEqual({ reward: 1 });
    expect(await files.findRollout('3-2')).toBeUndefined();
    // A recorded rollout takes no sidecar record.
    expect(await files.appendFailure(failure('3-1', 0))).toBe(false);
  });

  it('lets exactly one of two writer processes racing on the same rollouts win each', async () => {
    const store = 's3://gym-runs/race';
    const ids = Array.from({ length: 60 }, (_, i) => `${i}-0`);
    const writer = (reward: number) =>
      new Promise<string[]>((resolve, reject) => {
        const proc = spawn(process.execPath, ['--import', 'tsx', CHILD, JSON.stringify({ store, reward, ids, inFlight: 8 })], {
          cwd: ROOT,
          env: { ...process.env, ...moto.env },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        let err = '';
        proc.stdout.on('data', (d) => (out += d));
        proc.stderr.on('data', (d) => (err += d));
        proc.on('close', (code) => (code === 0 ? resolve((JSON.parse(out) as { won: string[] }).won) : reject(new Error(`writer exited ${code}: ${err}`))));
      });
    const [a, b] = await Promise.all([writer(1), writer(0)]);
    expect([...a, ...b].sort()).toEqual([...ids].sort());
    expect(a.filter((id) => b.includes(id))).toEqual([]);
    const files = new ObjectRunFiles(store);
    for (const id of ids) expect(await files.findRollout(id)).toEqual({ reward: a.includes(id) ? 1 : 0 });
  }, 120_000);

  it('journals entries as objects, never overwriting another writer, and sets an attempt aside', async () => {
    const store = new ObjectStore('s3://gym-runs/journal');
    const one = new ObjectJournal(store, '0-0');
    const other = new ObjectJournal(store, '0-0');
    await one.append({ kind: 'failed_try', step: 0 });
    // The second writer has not read the journal: its first number is taken, so it writes the next.
    await other.append({ kind: 'failed_try', step: 1 });
    await one.append({ kind: 'failed_try', step: 2 });
    expect((await new ObjectJournal(store, '0-0').read()).map((e) => (e as { step: number }).step)).toEqual([0, 1, 2]);
    await one.setAside(0);
    expect(await one.read()).toEqual([]);
    expect(await store.list('work/attempts/0-0-a0')).toHaveLength(3);
    await other.append({ kind: 'failed_try', step: 5 });
    await other.remove();
    expect(await store.list('work/0-0')).toEqual([]);
  });

  it('turns the result objects into canonical files in a run folder and back into the store', async () => {
    const files = new ObjectRunFiles('s3://gym-runs/final');
    await files.store.put('tasks.jsonl', '{"_ng_task_index":0}\n{"_ng_task_index":1}\n{"_ng_task_index":2}\n');
    await files.writeJson('manifest.json', { run_id: 'final' });
    expect(await files.taskCount()).toBe(3);
    expect(await files.readTask(2)).toEqual({ _ng_task_index: 2 });
    await files.appendRollout(rollout('0-0', 1));
    await files.appendFailure(failure('1-0', 0));
    await files.appendFailure(failure('1-0', 1));
    // Failed first, recorded on a retry: the record wins.
    await files.appendFailure(failure('2-0', 0));
    await files.appendRollout(rollout('2-0', 0.5));
    await files.callLog().append({ call_id: 'c1', rollout_id: '0-0' });
    // An entry a stalled try appended after 0-0's journal was removed; 1-0's journal (a sidecar record only) and an attempt set aside stay.
    await files.journal('0-0').append({ kind: 'failed_try', step: 1 });
    await files.journal('1-0').append({ kind: 'failed_try', step: 1 });
    await files.store.put('work/attempts/2-0-a0/000000.json', '{"kind":"failed_try","step":1}');
    const dir = path.join(await tempDir(), 'final');
    await pullRun(files, dir);
    expect((await files.store.list('work')).sort()).toEqual(['work/1-0/000000.json', 'work/attempts/2-0-a0/000000.json']);
    const lines = (name: string) =>
      readFileSync(path.join(dir, name), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(
      lines('rollouts.jsonl')
        .map((r) => [r._ng_rollout_id, r.reward])
        .sort(),
    ).toEqual([
      ['0-0', 1],
      ['2-0', 0.5],
    ]);
    expect(lines('failures.jsonl').map((r) => [r._ng_rollout_id, r._ng_attempt_index])).toEqual([['1-0', 1]]);
    expect(readFileSync(path.join(dir, 'tasks.jsonl'), 'utf8').split('\n').filter(Boolean)).toHaveLength(3);
    // Pulled again (a resumed run's second finalize): still each id once.
    await pullRun(files, dir);
    expect(lines('rollouts.jsonl')).toHaveLength(2);
    const pushed = await pushRun(files, dir);
    expect(pushed).toEqual(expect.arrayContaining(['rollouts.jsonl', 'failures.jsonl', 'manifest.json', 'tasks.jsonl']));
    expect(pushed.some((n) => n.startsWith('results.'))).toBe(false);
    expect((await files.store.get('rollouts.jsonl'))?.split('\n').filter(Boolean)).toHaveLength(2);
  });

  it('names the bucket that does not exist', async () => {
    const e = await caught(new ObjectStore('s3://no-such-bucket/x').check());
    expect(e.code).toBe('NOT_FOUND');
    expect(e.message).toContain('--store s3://no-such-bucket/x');
    const read = await caught(new ObjectRunFiles('s3://no-such-bucket/x').appendRollout(rollout('0-0', 1)));
    expect(read.code).toBe('NOT_FOUND');
  });

  it('says an endpoint cannot be reached, naming AWS_ENDPOINT_URL', async () => {
    const port = await reservePort();
    try {
      const e = await caught(new ObjectStore('s3://gym-runs/x', { ...moto.env, AWS_ENDPOINT_URL: `http://127.0.0.1:${port}` }).check());
      expect(e.code).toBe('UNREACHABLE');
      expect(e.message).toContain('AWS_ENDPOINT_URL');
      expect(e.message).toContain(`127.0.0.1:${port}`);
    } finally {
      releasePort(port);
    }
  }, 60_000);
});

describe('a store that checks credentials', () => {
  let moto: MotoServer;
  beforeAll(async () => {
    moto = await startMotoServer({ auth: true });
  });
  afterAll(async () => {
    await moto?.stop();
  });

  it('says the credentials were refused, without the secret', async () => {
    const e = await caught(new ObjectStore('s3://gym-runs/x', moto.env).put('k', 'v'));
    expect(e.code).toBe('SETUP_FAILED');
    // The server's refusal, not a missing key on this side.
    expect(e.message).toMatch(/\((InvalidAccessKeyId|SignatureDoesNotMatch|AccessDenied)\)/);
    expect(e.message).toMatch(/AWS_ACCESS_KEY_ID/);
    expect(e.message).not.toContain(TEST_SECRET_KEY);
  });
});

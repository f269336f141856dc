// The trigger API's request ledger on a real folder: claims of one burst group-committed and each answered only
// once on disk (a real SIGKILL mid-burst loses none that was answered), one id claimed concurrently held by one
// entry, starts and releases read back after a restart, a write cut short by a crash left out, an older version's
// per-id files folded in, and one process per folder.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { GymError } from '../../src/errors';
import { LEDGER_FILE, RequestLedger, type LedgerEntry } from '../../src/api/request-ledger';
import { tempDir } from '../helpers/run';

const run = promisify(execFile);
const CLAIMER = path.resolve(import.meta.dirname, '../helpers/ledger-claimer.ts');

function entry(id: string, runId = id): LedgerEntry {
  return {
    request_id: id,
    body_sha256: `sha-of-${runId}`,
    request: { env: 'mcqa', model: 'mock', input: '/tasks.jsonl', run_id: runId },
    run_id: runId,
    workflow_id: `gymflow-run-${runId}`,
    run_dir: `/runs/${runId}`,
    created_at: new Date().toISOString(),
  };
}

const lines = (dir: string) => readFileSync(path.join(dir, LEDGER_FILE), 'utf8').split('\n').filter(Boolean);

async function refusal(p: Promise<unknown>): Promise<GymError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(GymError);
  return e as GymError;
}

describe('RequestLedger', () => {
  it('claims a burst of ids, each once, and holds one id claimed concurrently by one entry', async () => {
    const dir = await tempDir('gymflow-ledger-');
    const ledger = await RequestLedger.open(dir);
    const ids = Array.from({ length: 100 }, (_, i) => `id-${i}`);
    // The same id three times within the burst, with different runs: the first claim holds it.
    const answers = await Promise.all([
      ...ids.map((id) => ledger.claim(entry(id))),
      ledger.claim(entry('twice', 'first')),
      ledger.claim(entry('twice', 'second')),
      ledger.claim(entry('twice', 'third')),
    ]);
    expect(answers.slice(0, 100).every((a) => a.claimed)).toBe(true);
    const twice = answers.slice(100);
    expect(twice.map((a) => a.claimed)).toEqual([true, false, false]);
    expect(twice.map((a) => a.entry.run_id)).toEqual(['first', 'first', 'first']);
    expect(ledger.read('twice')?.run_id).toBe('first');
    // Claimed again later: held.
    expect(await ledger.claim(entry('id-7', 'other'))).toMatchObject({ claimed: false, entry: { run_id: 'id-7' } });
    expect(lines(dir)).toHaveLength(101);
    await ledger.close();
  });

  it('reads back what it recorded after a restart: claims, starts and releases, with one line per entry', async () => {
    const dir = await tempDir('gymflow-ledger-');
    let ledger = await RequestLedger.open(dir);
    await Promise.all(['a', 'b', 'c'].map((id) => ledger.claim(entry(id))));
    await ledger.markStarted(entry('a'));
    await ledger.release('c');
    expect(ledger.read('c')).toBeUndefined();
    expect(lines(dir)).toHaveLength(5);
    await ledger.close();

    ledger = await RequestLedger.open(dir);
    expect(ledger.read('a')?.started_at).toBeDefined();
    expect(ledger.read('b')).toMatchObject({ run_id: 'b' });
    expect(ledger.read('b')?.started_at).toBeUndefined();
    expect(ledger.read('c')).toBeUndefined();
    expect(ledger.unstarted().map((e) => e.request_id)).toEqual(['b']);
    // Rewritten with one claim per entry (the start folded in).
    expect(lines(dir)).toHaveLength(2);
    // A released id can be claimed anew, and that claim is what a restart sees.
    expect((await ledger.claim(entry('c', 'c-again'))).claimed).toBe(true);
    await ledger.close();
    ledger = await RequestLedger.open(dir);
    expect(ledger.read('c')?.run_id).toBe('c-again');
    await ledger.close();
  });

  it('loses no claim it answered when the process is killed mid-burst', async () => {
    const dir = await tempDir('gymflow-ledger-');
    // The claimer kills itself with SIGKILL once 60 of its 300 claims are answered.
    const died = await run(process.execPath, ['--import', 'tsx', CLAIMER, dir, '300', '60'], { timeout: 60_000 }).then(
      () => undefined,
      (e: { signal?: string; stdout: string }) => e,
    );
    expect(died?.signal).toBe('SIGKILL');
    const answered = died!.stdout.split('\n').filter(Boolean);
    expect(answered.length).toBeGreaterThanOrEqual(60);
    // Its lock names a process that is gone: the next one takes it over.
    const ledger = await RequestLedger.open(dir);
    for (const id of answered) expect(ledger.read(id), id).toMatchObject({ request_id: id, run_id: id });
    expect(ledger.unstarted().length).toBeGreaterThanOrEqual(answered.length);
    await ledger.close();
  });

  it('leaves out a last line a crash cut short, and keeps writing after it', async () => {
    const dir = await tempDir('gymflow-ledger-');
    let ledger = await RequestLedger.open(dir);
    await ledger.claim(entry('kept'));
    await ledger.close();
    // A write cut short: half of a claim, no newline. It was never answered.
    const whole = JSON.stringify({ claim: entry('cut') });
    appendFileSync(path.join(dir, LEDGER_FILE), whole.slice(0, whole.length / 2));
    ledger = await RequestLedger.open(dir);
    expect(ledger.read('kept')).toBeDefined();
    expect(ledger.read('cut')).toBeUndefined();
    expect((await ledger.claim(entry('after'))).claimed).toBe(true);
    await ledger.close();
    ledger = await RequestLedger.open(dir);
    expect(['kept', 'cut', 'after'].map((id) => ledger.read(id) !== undefined)).toEqual([true, false, true]);
    await ledger.close();
  });

  it('refuses a ledger with a broken line before its last, naming the line', async () => {
    const dir = await tempDir('gymflow-ledger-');
    writeFileSync(path.join(dir, LEDGER_FILE), `${JSON.stringify({ claim: entry('a') })}\nnot json\n${JSON.stringify({ claim: entry('b') })}\n`);
    const e = await refusal(RequestLedger.open(dir));
    expect(e.message).toMatch(/ledger\.jsonl line 2 is not a ledger record/);
    // The refusal gave the lock back.
    writeFileSync(path.join(dir, LEDGER_FILE), '');
    await (await RequestLedger.open(dir)).close();
  });

  it("folds in the earlier version's per-id files and removes them", async () => {
    const dir = await tempDir('gymflow-ledger-');
    const old = path.join(dir, `${createHash('sha256').update('from-before').digest('hex')}.json`);
    writeFileSync(old, JSON.stringify({ ...entry('from-before'), started_at: '2026-12-01T00:00:00.000Z' }, null, 2));
    let ledger = await RequestLedger.open(dir);
    expect(ledger.read('from-before')).toMatchObject({ run_id: 'from-before', started_at: '2026-12-01T00:00:00.000Z' });
    expect(existsSync(old)).toBe(false);
    await ledger.close();
    ledger = await RequestLedger.open(dir);
    expect(ledger.read('from-before')?.run_id).toBe('from-before');
    await ledger.close();
  });

  it('is held by one process at a time: a live holder is refused, a gone one taken over', async () => {
    const dir = await tempDir('gymflow-ledger-');
    const ledger = await RequestLedger.open(dir);
    const e = await refusal(RequestLedger.open(dir));
    expect(e.code).toBe('CONFLICT');
    expect(e.message).toMatch(new RegExp(`in use by process ${process.pid} \\(this one\\); give each gym api serve its own --state-dir`));
    await ledger.close();
    // The process that started this one is alive.
    writeFileSync(path.join(dir, 'ledger.lock'), `${process.ppid}\n`);
    expect((await refusal(RequestLedger.open(dir))).message).toContain(`in use by process ${process.ppid};`);
    // A pid no process has (above the kernel's default pid_max).
    writeFileSync(path.join(dir, 'ledger.lock'), '4999999\n');
    await (await RequestLedger.open(dir)).close();
    expect(existsSync(path.join(dir, 'ledger.lock'))).toBe(false);
  });
});

// Exactly-once results across real processes: concurrent writers with overlapping ids, writers
// SIGKILLed mid-stream, a writer SIGSTOPped with the lock held, a folder deleted under a live
// process, and a full disk (a real 64 KiB tmpfs). Every check reads the raw files.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isGymError } from '../../src/errors';
import type { RolloutRecord } from '../../src/schemas/records';
import { writeFileAtomic } from '../../src/store/jsonl';
import { ResultsLog } from '../../src/store/results-log';
import { tempDir } from '../helpers/run';

const CHILD = path.join(import.meta.dirname, 'writer-child.ts');
const ROOT = path.resolve(import.meta.dirname, '../..');

const idsUpTo = (n: number) => Array.from({ length: n }, (_, i) => `${i % 50}-${Math.floor(i / 50)}`);
function shuffled<T>(xs: T[], seed: number): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const j = seed % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

interface Child {
  proc: ChildProcess;
  writer: string;
  lines: string[];
  /** Ids it was told it wrote, as rollouts and as sidecar records. */
  claimed: { rollouts: string[]; failures: string[] };
  exited: Promise<number | null>;
  waitFor(pred: () => boolean, what: string): Promise<void>;
}

const children: Child[] = [];
afterAll(() => {
  for (const c of children) if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGKILL');
});

function startWriter(args: { dir: string; writer: string; ids: string[]; salt?: number; batch?: number; inFlight?: number; leaseMs?: number; pauseAt?: 'before-write' | 'after-write' }): Child {
  const proc = spawn(process.execPath, ['--import', 'tsx', CHILD, JSON.stringify({ batch: 5, inFlight: 3, salt: 0, ...args })], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const child: Child = {
    proc,
    writer: args.writer,
    lines: [],
    claimed: { rollouts: [], failures: [] },
    exited: new Promise((resolve) => proc.on('exit', (code) => resolve(code))),
    async waitFor(pred, what) {
      for (let i = 0; !pred(); i++) {
        if (proc.exitCode !== null || proc.signalCode !== null) {
          if (pred()) return;
          throw new Error(`${args.writer} exited before ${what}: ${child.lines.join('\n')}${stderr}`);
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
  let stderr = '';
  let buffered = '';
  proc.stdout!.on('data', (d: Buffer) => {
    buffered += d.toString();
    const parts = buffered.split('\n');
    buffered = parts.pop()!;
    for (const line of parts) {
      child.lines.push(line);
      if (!line.startsWith('WROTE ')) continue;
      const wrote = JSON.parse(line.slice(6)) as Child['claimed'];
      child.claimed.rollouts.push(...wrote.rollouts);
      child.claimed.failures.push(...wrote.failures);
    }
  });
  proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  children.push(child);
  return child;
}

async function finish(child: Child): Promise<void> {
  const code = await child.exited;
  expect(child.lines.at(-1), `${child.writer}: ${child.lines.join('\n')}`).toBe('DONE');
  expect(code).toBe(0);
}

/** The raw files: every line whole and parseable, each rollout id at most once across both files. */
function readRaw(dir: string): Map<string, { file: string; writer: string }> {
  const byId = new Map<string, { file: string; writer: string }>();
  for (const file of ['rollouts.jsonl', 'failures.jsonl']) {
    const p = path.join(dir, file);
    if (!existsSync(p)) continue;
    const text = readFileSync(p, 'utf8');
    if (text) expect(text.endsWith('\n'), `${file} ends in a torn line`).toBe(true);
    for (const [i, line] of text.split('\n').slice(0, -1).entries()) {
      const row = JSON.parse(line) as { _ng_rollout_id: string; writer?: string; message?: string };
      const seen = byId.get(row._ng_rollout_id);
      expect(seen, `${row._ng_rollout_id} again at ${file}:${i + 1} (first in ${seen?.file})`).toBeUndefined();
      byId.set(row._ng_rollout_id, { file, writer: (row.writer ?? row.message)! });
    }
  }
  return byId;
}

/**
 * Every id acknowledged as written is in the files, written by its claimer: a rollout in rollouts.jsonl,
 * a sidecar record in failures.jsonl unless a rollout has replaced it since. No id is acknowledged twice
 * to the same file.
 */
function expectClaimsHold(byId: Map<string, { file: string; writer: string }>, writers: Child[]) {
  const claimer = { rollouts: new Map<string, string>(), failures: new Map<string, string>() };
  for (const w of writers) {
    for (const kind of ['rollouts', 'failures'] as const) {
      for (const id of w.claimed[kind]) {
        expect(claimer[kind].get(id), `${id} acknowledged as one of the ${kind} to ${claimer[kind].get(id)} and ${w.writer}`).toBeUndefined();
        claimer[kind].set(id, w.writer);
        const at = byId.get(id);
        if (kind === 'failures' && at?.file === 'rollouts.jsonl') continue;
        expect(at, `${id} acknowledged to ${w.writer}`).toEqual({ file: `${kind}.jsonl`, writer: w.writer });
      }
    }
  }
}

const allClaims = (writers: Child[]) => [...new Set(writers.flatMap((w) => [...w.claimed.rollouts, ...w.claimed.failures]))].sort();

describe('results log across processes', () => {
  it('writes each id once when several processes append overlapping ids at the same time', async () => {
    const dir = await tempDir();
    const ids = idsUpTo(300);
    const writers = [1, 2, 3, 4].map((n) => startWriter({ dir, writer: `w${n}`, ids: shuffled(ids, n), salt: n, batch: 1 + n * 3 }));
    for (const w of writers) await finish(w);
    const byId = readRaw(dir);
    expect([...byId.keys()].sort()).toEqual([...ids].sort());
    expectClaimsHold(byId, writers);
    // Every id was acknowledged to someone: with nobody stopped, no write is lost to a rotation.
    expect(allClaims(writers)).toEqual([...ids].sort());
  });

  it('stays exactly once when writers are SIGKILLed mid-stream and a torn line is left behind', async () => {
    const dir = await tempDir();
    const ids = idsUpTo(600);
    const survivors: Child[] = [];
    for (let round = 0; round < 4; round++) {
      const writers = [0, 1, 2].map((n) => startWriter({ dir, writer: `r${round}w${n}`, ids: shuffled(ids, round * 10 + n), salt: round + n, batch: 3, inFlight: 4 }));
      const victims = writers.slice(0, 2);
      await Promise.all(
        victims.map(async (v, i) => {
          const after = v.lines.length + 2 + ((round * 7 + i * 5) % 9);
          await v.waitFor(() => v.lines.length >= after, `${after} appends`);
          v.proc.kill('SIGKILL');
          await v.exited;
        }),
      );
      await finish(writers[2]!);
      survivors.push(writers[2]!);
      // A writer killed in the middle of a line leaves half of it: the next writer must cut it.
      appendFileSync(path.join(dir, 'rollouts.jsonl'), '{"_ng_task_index":7,"_ng_rollout_index":99,"_ng_rollo');
    }
    const last = startWriter({ dir, writer: 'last', ids });
    await finish(last);
    const byId = readRaw(dir);
    expect([...byId.keys()].sort()).toEqual([...ids].sort());
    expectClaimsHold(byId, [...survivors, last]);
    // Only the results files remain: no lock, no marker, no temp or moved file.
    expect(readdirSync(dir).sort()).toEqual(['failures.jsonl', 'rollouts.jsonl']);
  });

  for (const pauseAt of ['before-write', 'after-write'] as const) {
    it(`fences a writer SIGSTOPped ${pauseAt === 'before-write' ? 'just before' : 'just after'} its write while another breaks its lease and finishes`, async () => {
      const dir = await tempDir();
      const ids = idsUpTo(120);
      const stopped = startWriter({ dir, writer: 'stopped', ids, batch: 10, inFlight: 1, leaseMs: 400, pauseAt });
      await stopped.waitFor(() => stopped.lines.includes('PAUSED'), 'pausing');
      await waitUntil(() => procState(stopped.proc.pid!) === 'T', 'the writer to be stopped');
      const other = startWriter({ dir, writer: 'other', ids, batch: 7, leaseMs: 400 });
      await finish(other);
      const before = readRaw(dir);
      expect([...before.keys()].sort()).toEqual([...ids].sort());
      stopped.proc.kill('SIGCONT');
      await finish(stopped);
      const byId = readRaw(dir);
      expect(byId).toEqual(before);
      expectClaimsHold(byId, [stopped, other]);
      // Its first batch went to the moved-away file (before-write) or was kept by the rotation
      // (after-write); either way it saw that and claimed nothing, as the other had written the rest.
      expect(allClaims([stopped])).toEqual([]);
      const keptFromStopped = [...byId.values()].filter((v) => v.writer === 'stopped').length;
      expect(keptFromStopped).toBe(pauseAt === 'after-write' ? 10 : 0);
    });
  }
});

function procState(pid: number): string | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

async function waitUntil(pred: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const rolloutRecord = (id: string, extra: Record<string, unknown> = {}): RolloutRecord => {
  const [t, r] = id.split('-').map(Number);
  return { _ng_task_index: t!, _ng_rollout_index: r!, _ng_rollout_id: id, responses_create_params: {}, response: { id: 'resp', output: [] }, reward: 1, _gf_model_call_ids: [], ...extra };
};

describe('results log in one process', () => {
  it('sees the new, empty files after its folder is deleted and re-created', async () => {
    const dir = await tempDir();
    const log = new ResultsLog(dir, { flushDelayMs: 0 });
    const ids = idsUpTo(40);
    expect(await log.appendRollouts(ids.map((id) => rolloutRecord(id)))).toEqual(ids);
    expect(await log.lookup('3-0')).toEqual({ kind: 'rollout', reward: 1 });
    rmSync(dir, { recursive: true });
    mkdirSync(dir);
    // Before this process looks again, another fills the new folder with other ids, past the old
    // file's length (ext4 may even give the new file the old one's inode number).
    const other = startWriter({ dir, writer: 'other', ids: idsUpTo(200).slice(100) });
    await finish(other);
    expect(await log.lookup('3-0')).toBeUndefined();
    expect(await log.lookup('10-2')).toEqual({ kind: 'rollout', reward: 0.5 });
    expect(await log.appendRollouts(ids.map((id) => rolloutRecord(id)))).toEqual(ids);
    const byId = readRaw(dir);
    expect(byId.size).toBe(140);
    for (const id of ids) expect(byId.get(id)?.file).toBe('rollouts.jsonl');
  });

  it('lets a rollout replace the sidecar record of the same id, never the other way round', async () => {
    const dir = await tempDir();
    const log = new ResultsLog(dir, { flushDelayMs: 0 });
    const failure = (id: string) => ({
      _ng_task_index: 0,
      _ng_rollout_index: Number(id.split('-')[1]),
      _ng_rollout_id: id,
      _ng_failure_class: 'timeout' as const,
      message: 'slow',
      stage: 'model',
      attempt: 3,
      failed_at: 'now',
    });
    // Queued together: the rollout wins.
    const [a, b] = await Promise.all([log.appendFailures([failure('0-0')]), log.appendRollouts([rolloutRecord('0-0')])]);
    expect([a, b]).toEqual([[], ['0-0']]);
    // On disk: a failed rollout recorded later (a resumed run) replaces its sidecar line.
    expect(await log.appendFailures([failure('0-1'), failure('0-2')])).toEqual(['0-1', '0-2']);
    expect(await log.lookup('0-1')).toEqual({ kind: 'failure', failureClass: 'timeout' });
    expect(await log.appendRollouts([rolloutRecord('0-1')])).toEqual(['0-1']);
    expect(await log.appendFailures([failure('0-0'), failure('0-1')])).toEqual([]);
    const byId = readRaw(dir);
    expect([...byId].map(([id, v]) => [id, v.file])).toEqual([
      ['0-0', 'rollouts.jsonl'],
      ['0-1', 'rollouts.jsonl'],
      ['0-2', 'failures.jsonl'],
    ]);
    expect(await log.lookup('0-1')).toEqual({ kind: 'rollout', reward: 1 });
  });

  it("replaces a sidecar line with a later attempt's, once, and never with an earlier or the same attempt", async () => {
    const dir = await tempDir();
    const log = new ResultsLog(dir, { flushDelayMs: 0 });
    const failure = (id: string, attemptIndex: number | undefined, message: string) => ({
      _ng_task_index: 0,
      _ng_rollout_index: Number(id.split('-')[1]),
      _ng_rollout_id: id,
      _ng_failure_class: 'timeout' as const,
      message,
      stage: 'model',
      attempt: 3,
      failed_at: 'now',
      ...(attemptIndex === undefined ? {} : { _ng_attempt_index: attemptIndex }),
    });
    // A line without an attempt index (an older sidecar) is attempt 0.
    expect(await log.appendFailures([failure('0-0', undefined, 'first'), failure('0-1', 0, 'first')])).toEqual(['0-0', '0-1']);
    expect(await log.appendFailures([failure('0-0', 1, 'retried'), failure('0-1', 0, 'again')])).toEqual(['0-0']);
    // The same retry answered twice (its activity retried) writes nothing the second time.
    expect(await log.appendFailures([failure('0-0', 1, 'retried twice')])).toEqual([]);
    expect(await log.appendFailures([failure('0-0', 2, 'retried again')])).toEqual(['0-0']);
    // A fresh process reads the attempt index back from the file.
    const fresh = new ResultsLog(dir, { flushDelayMs: 1 });
    expect(await fresh.appendFailures([failure('0-0', 2, 'stale')])).toEqual([]);
    const lines = readFileSync(path.join(dir, 'failures.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l._ng_rollout_id, l._ng_attempt_index, l.message])).toEqual([
      ['0-1', 0, 'first'],
      ['0-0', 2, 'retried again'],
    ]);
  });
});

describe('results log on a full disk', () => {
  let mnt: string | undefined;
  let mounted = false;
  afterAll(() => {
    // Lazy: the writer may still hold the files open, and the mount must go anyway.
    if (mounted) spawnSync('umount', ['-l', mnt!]);
    if (mnt) rmSync(mnt, { recursive: true, force: true });
  });

  it('refuses with DISK_FULL, leaves no partial line, and writes exactly once when space is back', async (ctx) => {
    mnt = await tempDir('gymflow-tmpfs-');
    const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mnt], { encoding: 'utf8' });
    if (mount.status !== 0) ctx.skip(`cannot mount a tmpfs here (${(mount.stderr || mount.error?.message || '').trim()}); this test needs root`);
    mounted = true;
    const dir = path.join(mnt, 'run');
    writeFileSync(path.join(mnt, 'filler'), Buffer.alloc(24 * 1024));
    const log = new ResultsLog(dir, { flushDelayMs: 0 });
    const pad = 'x'.repeat(900);
    const ids = idsUpTo(200);
    const acked: string[] = [];
    let error: unknown;
    for (let i = 0; i < ids.length && !error; i += 3) {
      try {
        acked.push(...(await log.appendRollouts(ids.slice(i, i + 3).map((id) => rolloutRecord(id, { pad })))));
      } catch (e) {
        error = e;
      }
    }
    expect(isGymError(error) && error.code).toBe('DISK_FULL');
    expect((error as Error).message).toContain(`disk full at ${path.join(dir, 'rollouts.jsonl')}`);
    expect([...readRaw(dir).keys()]).toEqual(acked);
    // The atomic writer (manifest, work files) says the same and leaves no temp file behind.
    const atomic = await writeFileAtomic(path.join(dir, 'big.json'), pad.repeat(40)).catch((e: unknown) => e);
    expect(isGymError(atomic) && atomic.code).toBe('DISK_FULL');
    expect(readdirSync(dir).sort()).toEqual(['failures.jsonl', 'rollouts.jsonl']);

    rmSync(path.join(mnt, 'filler'));
    const rest = ids.filter((id) => !acked.includes(id)).slice(0, 15);
    expect(await log.appendRollouts([...acked.slice(0, 5), ...rest].map((id) => rolloutRecord(id, { pad })))).toEqual(rest);
    expect([...readRaw(dir).keys()]).toEqual([...acked, ...rest]);
  });
});

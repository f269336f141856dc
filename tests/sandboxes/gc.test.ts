// Leftover sandboxes: which ones gc picks (a dead owner's, expired, a run's, all), and `gym sandbox list|gc`
// and the worker's reaper removing a SIGKILLed owner's sandbox with its jails.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { gcReason, reapOrphans } from '../../src/sandboxes/gc';
import { LocalProvider } from '../../src/sandboxes/local/provider';
import type { SandboxInfo } from '../../src/sandboxes/schema';
import { gym } from '../helpers/gym-cli';

const OWNER = path.join(import.meta.dirname, '../helpers/sandbox-owner.ts');
const labels = { run: 'run-gc', rollout: 'r-1', attempt: 0, user: 'tester' };
const daemons = (marker: string) =>
  execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => /^\s*\d+ \/usr\/bin\/node -e /.test(line) && line.includes(marker));

let dir: string;
let root: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'gymflow-sbx-gc-'));
  await chmod(dir, 0o755);
  root = path.join(dir, 'sandboxes');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Starts a process owning a sandbox with a daemon in it; resolves once the sandbox exists. */
function owner(spec: object, marker: string): Promise<{ id: string; dir: string; kill: () => Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', OWNER, root, JSON.stringify(spec), marker], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      if (!out.includes('\n')) return;
      const made = JSON.parse(out) as { id: string; dir: string };
      const kill = () =>
        new Promise<void>((done) => {
          if (child.exitCode !== null || child.signalCode !== null) return done();
          child.once('exit', () => done());
          child.kill('SIGKILL');
        });
      resolve({ ...made, kill });
    });
    child.once('exit', (code) => reject(new Error(`sandbox owner exited (${code}) before making its sandbox`)));
  });
}

describe('gcReason', () => {
  const info = (over: Partial<SandboxInfo>): SandboxInfo => ({
    id: 'sbx-1',
    provider: 'local',
    state: 'running',
    labels,
    createdAt: '2026-01-01T00:00:00Z',
    expiresAt: null,
    ownerAlive: true,
    ...over,
  });
  const now = new Date('2026-01-01T01:00:00Z');
  it('keeps a live, unexpired sandbox, and one whose owner this machine cannot judge', () => {
    expect(gcReason(info({}), {}, now)).toBeUndefined();
    expect(gcReason(info({ ownerAlive: null }), {}, now)).toBeUndefined();
    expect(gcReason(info({ expiresAt: '2026-01-01T02:00:00Z' }), {}, now)).toBeUndefined();
  });
  it('takes an orphan, an expired one, a given run (live or not) and, with all, everything', () => {
    expect(gcReason(info({ ownerAlive: false }), {}, now)).toBe('orphaned');
    expect(gcReason(info({ expiresAt: '2026-01-01T00:30:00Z' }), {}, now)).toBe('expired');
    expect(gcReason(info({}), { run: 'run-gc' }, now)).toBe('run');
    expect(gcReason(info({ ownerAlive: false }), { run: 'other-run' }, now)).toBeUndefined();
    expect(gcReason(info({}), { all: true }, now)).toBe('all');
  });
});

describe('gym sandbox list|gc', () => {
  it("lists sandboxes with their owner's state, and gc removes a SIGKILLed owner's sandbox and its jails, keeping live ones", async () => {
    const marker = `gymflow-gc-${process.pid}-${Date.now()}`;
    const orphan = await owner({ labels }, marker);
    const live = await new LocalProvider({ root }).create({ labels: { ...labels, run: 'run-live' } });
    const env = { GYMFLOW_SANDBOX_ROOT: root };
    try {
      await vi.waitFor(() => expect(daemons(marker)).toHaveLength(1), { timeout: 30_000, interval: 100 });
      await orphan.kill();
      const listed = await gym(['sandbox', 'list', '--json'], env);
      expect(listed.code).toBe(0);
      const infos = JSON.parse(listed.stdout) as SandboxInfo[];
      expect(infos.find((i) => i.id === orphan.id)).toMatchObject({ ownerAlive: false, labels });
      expect(infos.find((i) => i.id === live.id)).toMatchObject({ ownerAlive: true });
      expect(JSON.parse((await gym(['sandbox', 'list', '--json', '--run', 'run-live'], env)).stdout).map((i: SandboxInfo) => i.id)).toEqual([live.id]);

      const dry = await gym(['sandbox', 'gc', '--dry-run'], env);
      expect(dry.stdout).toContain(`would remove ${orphan.id} (orphaned`);
      expect(existsSync(orphan.dir)).toBe(true);
      // The daemon survived its owner's death (a detached command outlives its worker) until gc.
      expect(daemons(marker)).toHaveLength(1);

      const gc = await gym(['sandbox', 'gc'], env);
      expect(gc.code).toBe(0);
      expect(gc.stdout).toContain(`removed ${orphan.id} (orphaned`);
      expect(gc.stdout).not.toContain(live.id);
      expect(existsSync(orphan.dir)).toBe(false);
      expect(daemons(marker)).toEqual([]);
      expect(existsSync(live.dir)).toBe(true);

      const byRun = await gym(['sandbox', 'gc', '--run', 'run-live'], env);
      expect(byRun.stdout).toContain(`removed ${live.id} (run`);
      expect(existsSync(live.dir)).toBe(false);
    } finally {
      await orphan.kill();
      await live.destroy();
    }
  });

  it('names a bad flag', async () => {
    const result = await gym(['sandbox', 'gc', '--everything'], { GYMFLOW_SANDBOX_ROOT: root });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--everything');
  });
});

describe('reapOrphans', () => {
  it('removes orphans and expired sandboxes of the default root, leaving a live one', async () => {
    const marker = `gymflow-reap-${process.pid}-${Date.now()}`;
    const orphan = await owner({ labels }, marker);
    await orphan.kill();
    const provider = new LocalProvider({ root });
    const expired = await provider.create({ labels, resources: { lifetimeMs: 1 } });
    const live = await provider.create({ labels });
    const saved = process.env.GYMFLOW_SANDBOX_ROOT;
    process.env.GYMFLOW_SANDBOX_ROOT = root;
    try {
      const { expiresAt } = JSON.parse(readFileSync(path.join(expired.dir, 'sandbox.json'), 'utf8')) as { expiresAt: string };
      await vi.waitFor(() => expect(Date.now()).toBeGreaterThan(Date.parse(expiresAt)));
      const reaped = await reapOrphans(undefined, ['local']);
      expect(reaped.map((c) => [c.info.id, c.reason]).sort()).toEqual(
        [
          [orphan.id, 'orphaned'],
          [expired.id, 'expired'],
        ].sort(),
      );
      expect(daemons(marker)).toEqual([]);
      expect(existsSync(live.dir)).toBe(true);
    } finally {
      if (saved === undefined) delete process.env.GYMFLOW_SANDBOX_ROOT;
      else process.env.GYMFLOW_SANDBOX_ROOT = saved;
      await live.destroy();
    }
  });
});

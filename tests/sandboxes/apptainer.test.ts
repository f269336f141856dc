// The apptainer provider driving a FAKE apptainer binary (tests/helpers/fake-apptainer.mjs: Apptainer's CLI
// syntax, instance files, JSON and exit codes; commands under bubblewrap with the instance's binds), since
// Apptainer cannot be installed here: the flags it passes, commands, detached re-attach, files, list/gc, destroy.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectGarbage } from '../../src/sandboxes/gc';
import { writeRecord, readRecord } from '../../src/sandboxes/local/record';
import type { Sandbox, SandboxProvider } from '../../src/sandboxes/provider';
import { sandboxProvider } from '../../src/sandboxes/registry';
import type { SandboxSpec } from '../../src/sandboxes/schema';
import { waitFor } from '../helpers/worker-process';
import { exerciseShellTerminal, transcript } from '../helpers/pty';

const FAKE = fileURLToPath(new URL('../helpers/fake-apptainer.mjs', import.meta.url));
const work = mkdtempSync(path.join(os.tmpdir(), 'gf-apptainer-'));
const root = path.join(work, 'sandboxes');
const log = path.join(work, 'argv.log');
const image = path.join(work, 'task.sif');
const saved = { home: process.env.HOME, log: process.env.FAKE_APPTAINER_LOG };
let provider: SandboxProvider;
const run = `run-${process.pid}`;
const created: Sandbox[] = [];

beforeAll(async () => {
  chmodSync(FAKE, 0o755);
  writeFileSync(image, 'SIF (an image file; the fake does not read it)');
  // The fake keeps instance files under ~/.apptainer, as Apptainer does: a home of this test's own.
  mkdirSync(path.join(work, 'home'));
  process.env.HOME = path.join(work, 'home');
  process.env.FAKE_APPTAINER_LOG = log;
  provider = await sandboxProvider('apptainer', { binary: FAKE, root });
});

afterAll(async () => {
  await Promise.all(created.map((s) => s.destroy().catch(() => undefined)));
  process.env.HOME = saved.home;
  if (saved.log === undefined) delete process.env.FAKE_APPTAINER_LOG;
  else process.env.FAKE_APPTAINER_LOG = saved.log;
});

async function sandbox(extra: Partial<SandboxSpec> = {}, rollout = 'r0'): Promise<Sandbox> {
  const s = await provider.create({ image, labels: { run, rollout, attempt: 1, user: 'tester' }, ...extra });
  created.push(s);
  return s;
}

const sh = (line: string, timeoutMs = 30_000) => ({ command: ['sh', '-c', line], timeoutMs });
const calls = (): string[][] =>
  readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as string[]);

function sleepers(marker: string): number {
  return readdirSync('/proc').filter((pid) => {
    try {
      return /^\d+$/.test(pid) && readFileSync(`/proc/${pid}/cmdline`, 'utf8') === `sleep\0${marker}\0`;
    } catch {
      return false;
    }
  }).length;
}

describe('apptainer provider isolation flags', () => {
  it('starts a contained instance: no home, tmpfs overlay, no network, the workspace bound, mounts read-only, limits', async () => {
    const task = mkdtempSync(path.join(work, 'task-'));
    writeFileSync(path.join(task, 'given.txt'), 'given');
    const out = mkdtempSync(path.join(work, 'out-'));
    const s = await sandbox({
      mounts: [
        { hostPath: task, path: '/task' },
        { hostPath: out, path: '/out', writable: true },
      ],
      resources: { cpus: 1.5, memoryBytes: 1 << 28, pids: 64 },
    });
    const start = calls().find((argv) => argv[0] === 'instance' && argv[1] === 'start' && argv.at(-1) === s.id)!;
    expect(start.slice(0, 5)).toEqual(['instance', 'start', '--containall', '--no-home', '--writable-tmpfs']);
    expect(start.join(' ')).toContain('--net --network none');
    expect(start.join(' ')).toContain(`--bind ${task}:/task:ro`);
    expect(start.join(' ')).toContain(`--bind ${out}:/out --`);
    expect(start.join(' ')).toContain(`--bind ${path.join(root, s.id, 'workspace')}:/workspace`);
    expect(start.join(' ')).toContain('--cpus 1.5 --memory 268435456 --pids-limit 64');
    expect(start.slice(-2)).toEqual([image, s.id]);
    // What the flags mean, as far as the fake carries them out: read-only mount, writable one, workspace.
    expect((await s.exec(sh('cat /task/given.txt; echo x > /task/evil && echo wrote || echo refused'))).stdout).toBe('givenrefused\n');
    await s.exec(sh('echo result > /out/r.txt; echo mine > /workspace/w.txt'));
    expect(readFileSync(path.join(out, 'r.txt'), 'utf8')).toBe('result\n');
    expect((await s.readFile('w.txt')).toString()).toBe('mine\n');
  });

  it('has no network under none, and the host network under host (no --net)', async () => {
    const server = http.createServer((_req, res) => res.end('host'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const probe = `exec 3<>/dev/tcp/127.0.0.1/${(server.address() as AddressInfo).port} && echo connected || echo refused`;
      const closed = await sandbox();
      expect((await closed.exec({ command: ['bash', '-c', probe], timeoutMs: 30_000 })).stdout.trim()).toBe('refused');
      const open = await sandbox({ network: { mode: 'host' } });
      expect(calls().find((a) => a[1] === 'start' && a.at(-1) === open.id)).not.toContain('--net');
      expect((await open.exec({ command: ['bash', '-c', probe], timeoutMs: 30_000 })).stdout.trim()).toBe('connected');
    } finally {
      server.close();
    }
  });

  it('refuses what apptainer cannot do, naming the field; keys go in an env file, not in argv', async () => {
    const labels = { run, rollout: 'x', attempt: 1, user: 'u' };
    await expect(provider.create({ image, labels, network: { mode: 'allow', endpoints: [{ host: '127.0.0.1', port: 80 }] } })).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: expect.stringMatching(/"network".*allowlist/),
    });
    await expect(provider.create({ image, labels, resources: { fileSizeBytes: 10 } })).rejects.toMatchObject({ code: 'BAD_INPUT', message: expect.stringMatching(/fileSizeBytes/) });
    await expect(provider.create({ image: path.join(work, 'missing.sif'), labels })).rejects.toMatchObject({ code: 'BAD_INPUT', message: expect.stringMatching(/missing\.sif does not exist/) });
    const s = await sandbox({ env: { OPENAI_API_KEY: 'sk-secret-in-env' } });
    expect((await s.exec(sh('echo "$OPENAI_API_KEY"'))).stdout).toBe('sk-secret-in-env\n');
    expect(readFileSync(log, 'utf8')).not.toContain('sk-secret-in-env');
  });
});

describe('apptainer provider commands', () => {
  it('returns exit codes, both streams, stdin, cwd and env; only the given environment enters', async () => {
    process.env.GF_HOST_ONLY = 'leak';
    try {
      const s = await sandbox({ env: { FROM_SPEC: 'spec' } });
      const result = await s.exec({
        command: ['sh', '-c', 'cat; echo "$FROM_SPEC $FROM_EXEC $(pwd) [$GF_HOST_ONLY]"; echo oops >&2; exit 7'],
        stdin: 'in\n',
        cwd: '/tmp',
        env: { FROM_EXEC: "it's" },
        timeoutMs: 30_000,
      });
      expect(result).toMatchObject({ exitCode: 7, signal: null, timedOut: false, stdout: "in\nspec it's /tmp []\n", stderr: 'oops\n' });
      expect((await s.exec({ command: ['pwd'], timeoutMs: 30_000 })).stdout).toBe('/workspace\n');
    } finally {
      delete process.env.GF_HOST_ONLY;
    }
  });

  it('kills a timed-out command and everything it started; an abort kills too', async () => {
    const s = await sandbox();
    const result = await s.exec(sh('sleep 298.1 & sleep 298.1; echo never', 1500));
    expect(result).toMatchObject({ timedOut: true, exitCode: null, signal: 'SIGKILL' });
    const controller = new AbortController();
    const aborted = await s.exec(sh('echo first; sleep 298.2'), { signal: controller.signal, onOutput: () => controller.abort() });
    expect(aborted).toMatchObject({ timedOut: false, exitCode: null, signal: 'SIGKILL', stdout: 'first\n' });
    await waitFor(() => sleepers('298.1') + sleepers('298.2') === 0, 'the killed commands to be gone', 20_000);
  });

  it('runs detached commands once per id, re-attached from another provider (a retried activity), with timeout and kill', async () => {
    const s = await sandbox();
    const line = sh('read x; echo "got $x" >> /workspace/runs; sleep 1; echo finished; echo warn >&2; exit 3');
    expect(await s.startCommand({ ...line, stdin: 'hello\n' }, { commandId: 'step-1' })).toEqual({ commandId: 'step-1' });
    const again = await (await sandboxProvider('apptainer', { binary: FAKE, root })).attach(s.id);
    expect(await again.startCommand({ ...line, stdin: 'hello\n' }, { commandId: 'step-1' })).toEqual({ commandId: 'step-1' });
    expect(await again.commandStatus('step-1', { waitMs: 20_000 })).toMatchObject({ state: 'exited', exitCode: 3, timedOut: false, stdoutTail: 'finished\n', stderrTail: 'warn\n' });
    expect((await s.readFile('runs')).toString()).toBe('got hello\n');

    const slow = await s.startCommand(sh('sleep 298.3', 1000));
    expect((await s.commandStatus(slow.commandId, { waitMs: 20_000 })).timedOut).toBe(true);
    const killed = await s.startCommand(sh('sleep 298.4'));
    expect((await s.commandStatus(killed.commandId)).state).toBe('running');
    await s.killCommand(killed.commandId);
    expect(await s.commandStatus(killed.commandId)).toMatchObject({ state: 'exited', exitCode: null, timedOut: false });
    await waitFor(() => sleepers('298.3') + sleepers('298.4') === 0, 'the timed-out and killed commands to be gone', 20_000);
    await expect(s.commandStatus('never-started')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('apptainer provider terminals', () => {
  it('runs a shell on a pty made inside the instance: size, resize, ctrl-C, exit code; kill() ends it', async () => {
    const s = await sandbox();
    const pty = await s.openPty!({ command: ['sh'], env: { PS1: '$ ' }, columns: 100, rows: 30, timeoutMs: 60_000 });
    await exerciseShellTerminal(pty);
    const killed = await s.openPty!({ command: ['sh', '-c', 'echo ready-$((6*7)); exec sleep 300'], timeoutMs: 60_000 });
    await transcript(killed).until(/ready-42/);
    killed.kill();
    expect(await killed.exited).toBeNull();
  });
});

describe('apptainer provider files and lifecycle', () => {
  it('reads, writes, lists, uploads and downloads through the bound workspace', async () => {
    const s = await sandbox();
    await s.writeFile('deep/data.bin', Buffer.from([0, 255, 10]));
    await s.writeFile('run.sh', '#!/bin/sh\necho ran\n', { mode: 0o755 });
    expect((await s.exec({ command: ['./run.sh'], timeoutMs: 30_000 })).stdout).toBe('ran\n');
    expect([...(await s.readFile('/workspace/deep/data.bin'))]).toEqual([0, 255, 10]);
    expect((await s.listFiles('.')).map((e) => [e.name, e.type])).toEqual([
      ['deep', 'directory'],
      ['run.sh', 'file'],
    ]);
    const host = mkdtempSync(path.join(work, 'up-'));
    mkdirSync(path.join(host, 'repo'));
    writeFileSync(path.join(host, 'repo', 'a.txt'), 'A');
    await s.upload(path.join(host, 'repo'), 'task/repo');
    expect((await s.exec(sh('cat task/repo/a.txt'))).stdout).toBe('A');
    await s.exec(sh('echo made > task/repo/b.txt'));
    await s.download('task/repo', path.join(host, 'back'));
    expect(readFileSync(path.join(host, 'back', 'b.txt'), 'utf8')).toBe('made\n');
    await expect(s.readFile('missing')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(s.readFile('/etc/passwd')).rejects.toMatchObject({ code: 'BAD_INPUT' });
  });

  it('lists by labels, and gc removes a dead worker’s sandbox and an expired one, and nothing live', async () => {
    const gcRun = `${run}-gc`;
    const spec = (rollout: string, extra: Partial<SandboxSpec> = {}) => provider.create({ image, labels: { run: gcRun, rollout, attempt: 1, user: 'u' }, ...extra });
    const live = await spec('live');
    const orphan = await spec('orphan');
    const expired = await spec('expired', { resources: { lifetimeMs: 1 } });
    created.push(live, orphan, expired);
    expect((await provider.list({ run: gcRun, rollout: 'live' })).map((i) => [i.id, i.state, i.ownerAlive])).toEqual([[live.id, 'running', true]]);
    // Its worker was SIGKILLed: the record names a process that is gone.
    const dir = path.join(root, orphan.id);
    const record = (await readRecord(dir))!;
    await writeRecord(dir, { ...record, owner: { ...record.owner, pid: 2 ** 22 + 1, startTime: 1 } });
    const collected = await collectGarbage(provider, {});
    expect(collected.map((c) => [c.info.id, c.reason]).sort()).toEqual(
      [
        [expired.id, 'expired'],
        [orphan.id, 'orphaned'],
      ].sort(),
    );
    expect(await orphan.status()).toBe('gone');
    expect(await live.status()).toBe('running');
    const stops = calls()
      .filter((a) => a[0] === 'instance' && a[1] === 'stop')
      .map((a) => a[2]);
    expect(stops).toEqual(expect.arrayContaining([orphan.id, expired.id]));
  });

  it('destroys idempotently, leaves nothing, and a destroyed sandbox cannot be attached', async () => {
    const s = await sandbox({}, 'gone');
    await s.startCommand(sh('sleep 298.5'));
    await s.destroy();
    await s.destroy();
    expect(await s.status()).toBe('gone');
    expect(existsSync(path.join(root, s.id))).toBe(false);
    expect(await provider.list({ run, rollout: 'gone' })).toEqual([]);
    await waitFor(() => sleepers('298.5') === 0, 'the detached command to die with its sandbox', 20_000);
    await expect(provider.attach(s.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    // The instance died under it (a reboot): attach says so rather than handing out a dead sandbox.
    const dead = await sandbox({}, 'dead');
    const instance = JSON.parse(readFileSync(path.join(work, 'home', '.apptainer', 'instances', 'app', os.hostname(), os.userInfo().username, dead.id, `${dead.id}.json`), 'utf8')) as { pid: number };
    process.kill(instance.pid, 'SIGKILL');
    await waitFor(async () => (await dead.status()) === 'stopped', 'the instance to be gone', 20_000);
    await expect(provider.attach(dead.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('says what to set when there is no apptainer binary', async () => {
    const spec = { image, labels: { run, rollout: 'x', attempt: 1, user: 'u' } };
    const missing = path.join(work, 'no-such-apptainer');
    await expect((await sandboxProvider('apptainer', { binary: missing, root })).create(spec)).rejects.toMatchObject({
      code: 'SETUP_FAILED',
      message: expect.stringMatching(/no-such-apptainer is not an executable file.*"binary".*GYM_APPTAINER_BIN/),
    });
    const path0 = process.env.PATH;
    process.env.PATH = work;
    try {
      await expect((await sandboxProvider('apptainer', { root })).create(spec)).rejects.toMatchObject({ code: 'SETUP_FAILED', message: expect.stringMatching(/no apptainer on PATH/) });
    } finally {
      process.env.PATH = path0;
    }
    process.env.GYM_APPTAINER_BIN = FAKE;
    try {
      const s = await (await sandboxProvider('apptainer', { root })).create(spec);
      created.push(s);
      expect((await s.exec(sh('echo via-env'))).stdout).toBe('via-env\n');
    } finally {
      delete process.env.GYM_APPTAINER_BIN;
    }
  });
});

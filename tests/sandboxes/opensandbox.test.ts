// The opensandbox provider through the official SDK against a FAKE OpenSandbox server (tests/helpers/fake-
// opensandbox-server.ts: the real lifecycle and execd wire protocol, sandboxes as folders, commands as real
// processes): commands, detached re-attach, files, lifecycle, labels and gc, config errors, the key kept secret.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectGarbage } from '../../src/sandboxes/gc';
import { ownerMetadata } from '../../src/sandboxes/opensandbox/metadata';
import type { Sandbox, SandboxProvider } from '../../src/sandboxes/provider';
import { sandboxProvider } from '../../src/sandboxes/registry';
import type { SandboxSpec } from '../../src/sandboxes/schema';
import { startFakeOpenSandbox, type FakeOpenSandbox } from '../helpers/fake-opensandbox-server';
import { waitFor } from '../helpers/worker-process';

let fake: FakeOpenSandbox;
let provider: SandboxProvider;
const saved = { domain: process.env.OPEN_SANDBOX_DOMAIN, key: process.env.OPEN_SANDBOX_API_KEY };
const run = `run-${process.pid}`;
const created: Sandbox[] = [];

beforeAll(async () => {
  fake = await startFakeOpenSandbox();
  process.env.OPEN_SANDBOX_DOMAIN = fake.domain;
  process.env.OPEN_SANDBOX_API_KEY = fake.apiKey;
  provider = await sandboxProvider('opensandbox');
});

afterAll(async () => {
  await Promise.all(created.map((s) => s.destroy().catch(() => undefined)));
  await fake?.close();
  for (const [name, value] of [
    ['OPEN_SANDBOX_DOMAIN', saved.domain],
    ['OPEN_SANDBOX_API_KEY', saved.key],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

async function sandbox(extra: Partial<SandboxSpec> = {}, rollout = 'r0'): Promise<Sandbox> {
  const s = await provider.create({ image: 'debian:bookworm', labels: { run, rollout, attempt: 1, user: 'tester' }, ...extra });
  created.push(s);
  return s;
}

const sh = (line: string, timeoutMs = 30_000) => ({ command: ['sh', '-c', line], timeoutMs });

/** Processes on this machine whose command line is `sleep <marker>` (the fake's commands share its pid namespace). */
function sleepers(marker: string): number {
  return readdirSync('/proc').filter((pid) => {
    try {
      return /^\d+$/.test(pid) && readFileSync(`/proc/${pid}/cmdline`, 'utf8') === `sleep\0${marker}\0`;
    } catch {
      return false;
    }
  }).length;
}

describe('opensandbox provider commands', () => {
  it('creates a sandbox from the spec: image, env, labels as metadata, resources, a deny-all egress policy', async () => {
    const s = await sandbox({ env: { FROM_SPEC: 'spec' }, resources: { cpus: 0.5, memoryBytes: 256 * 1024 * 1024 } });
    const request = fake.sandboxes.get(s.id)!.request;
    expect(request).toMatchObject({
      image: { uri: 'debian:bookworm' },
      env: { FROM_SPEC: 'spec' },
      resourceLimits: { cpu: '500m', memory: '256Mi' },
      networkPolicy: { defaultAction: 'deny', egress: [] },
      metadata: { 'gymflow.sandbox': 'true', 'gymflow.run': run, 'gymflow.rollout': 'r0', 'gymflow.attempt': '1', 'gymflow.user': 'tester' },
    });
    expect(request.timeout).toBeUndefined();
    expect(s.labels).toEqual({ run, rollout: 'r0', attempt: 1, user: 'tester' });
  });

  it('returns exit codes, both streams, stdin, cwd and env', async () => {
    const s = await sandbox({ env: { FROM_SPEC: 'spec' } });
    const result = await s.exec({
      command: ['sh', '-c', 'cat; echo "$FROM_SPEC $FROM_EXEC $(pwd)"; echo oops >&2; exit 7'],
      stdin: 'in\n',
      cwd: '/tmp',
      env: { FROM_EXEC: 'exec' },
      timeoutMs: 30_000,
    });
    expect(result).toMatchObject({ exitCode: 7, signal: null, timedOut: false, stdout: 'in\nspec exec /tmp\n', stderr: 'oops\n' });
    expect((await s.exec({ command: ['pwd'], timeoutMs: 30_000 })).stdout).toBe('/workspace\n');
    // An argument with quotes and spaces arrives as one word.
    expect((await s.exec({ command: ['printf', '%s|', "it's", 'a b'], timeoutMs: 30_000 })).stdout).toBe("it's|a b|");
  });

  it('streams output as it comes, and kills the command on abort', async () => {
    const s = await sandbox();
    const controller = new AbortController();
    const seen: string[] = [];
    const result = await s.exec(sh('echo first; sleep 299.1'), {
      signal: controller.signal,
      onOutput: (stream, chunk) => {
        seen.push(`${stream}:${chunk.toString()}`);
        controller.abort();
      },
    });
    expect(seen).toEqual(['stdout:first\n']);
    expect(result).toMatchObject({ timedOut: false, exitCode: null, signal: 'SIGKILL', stdout: 'first\n' });
    await waitFor(() => sleepers('299.1') === 0, 'the aborted command to be gone', 20_000);
  });

  it('kills a timed-out command and everything it started', async () => {
    const s = await sandbox();
    const result = await s.exec(sh('sleep 299.2 & sleep 299.2; echo never', 1500));
    expect(result).toMatchObject({ timedOut: true, exitCode: null, signal: 'SIGKILL' });
    expect(result.stdout).not.toContain('never');
    await waitFor(() => sleepers('299.2') === 0, 'the timed-out command and its child to be gone', 20_000);
  });

  it('runs detached commands: polled status, output tails, timeout, kill', async () => {
    const s = await sandbox();
    const { commandId } = await s.startCommand({ command: ['sh', '-c', 'read x; echo "got $x"; echo warn >&2; exit 3'], stdin: 'hello\n', timeoutMs: 30_000 });
    expect(await s.commandStatus(commandId, { waitMs: 20_000 })).toMatchObject({ state: 'exited', exitCode: 3, timedOut: false, stdoutTail: 'got hello\n', stderrTail: 'warn\n' });

    const slow = await s.startCommand(sh('sleep 299.3 & sleep 299.3', 1000));
    expect((await s.commandStatus(slow.commandId, { waitMs: 20_000 })).timedOut).toBe(true);
    const killed = await s.startCommand(sh('sleep 299.4'));
    expect((await s.commandStatus(killed.commandId)).state).toBe('running');
    await s.killCommand(killed.commandId);
    expect(await s.commandStatus(killed.commandId)).toMatchObject({ state: 'exited', exitCode: null, timedOut: false });
    await waitFor(() => sleepers('299.3') + sleepers('299.4') === 0, 'the timed-out and killed commands to be gone', 20_000);
    await expect(s.commandStatus('never-started')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(s.commandStatus('../x')).rejects.toMatchObject({ code: 'BAD_INPUT' });
  });

  it('starts a command once per caller-chosen id: a retry through another provider re-attaches to it', async () => {
    const s = await sandbox();
    const line = sh('echo run >> /workspace/runs; sleep 1; echo finished');
    expect(await s.startCommand(line, { commandId: 'step-1.attempt' })).toEqual({ commandId: 'step-1.attempt' });
    // A retried activity on another worker: a provider of its own, attaching by id.
    const again = await (await sandboxProvider('opensandbox')).attach(s.id);
    expect(await again.startCommand(line, { commandId: 'step-1.attempt' })).toEqual({ commandId: 'step-1.attempt' });
    expect(await again.commandStatus('step-1.attempt', { waitMs: 20_000 })).toMatchObject({ state: 'exited', exitCode: 0, stdoutTail: 'finished\n' });
    expect((await s.readFile('runs')).toString()).toBe('run\n');
  });
});

describe('opensandbox provider files', () => {
  it('writes, reads and lists files', async () => {
    const s = await sandbox();
    const bytes = Buffer.from([0, 1, 2, 255, 254, 10, 13]);
    await s.writeFile('deep/er/data.bin', bytes);
    const script = '#!/bin/sh\necho ran\n';
    await s.writeFile('/workspace/run.sh', script, { mode: 0o755 });
    expect(Buffer.compare(await s.readFile('/workspace/deep/er/data.bin'), bytes)).toBe(0);
    expect((await s.exec({ command: ['./run.sh'], timeoutMs: 30_000 })).stdout).toBe('ran\n');
    expect(await s.listFiles('.')).toEqual([
      { name: 'deep', type: 'directory', sizeBytes: 0 },
      { name: 'run.sh', type: 'file', sizeBytes: Buffer.byteLength(script) },
    ]);
    await expect(s.readFile('missing.txt')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(s.readFile('deep')).rejects.toMatchObject({ code: 'BAD_INPUT' });
    await expect(s.listFiles('run.sh')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(s.listFiles('nowhere')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('uploads a host folder (symlinks, modes) and downloads it back', async () => {
    const s = await sandbox();
    const host = mkdtempSync(path.join(os.tmpdir(), 'gf-os-up-'));
    mkdirSync(path.join(host, 'repo', 'sub'), { recursive: true });
    writeFileSync(path.join(host, 'repo', 'sub', 'a.txt'), 'long');
    writeFileSync(path.join(host, 'repo', 'big.bin'), Buffer.alloc(3 * 1024 * 1024 + 7, 7));
    writeFileSync(path.join(host, 'repo', 'tool.sh'), '#!/bin/sh\necho tool\n', { mode: 0o755 });
    symlinkSync('sub', path.join(host, 'repo', 'link'));
    await s.upload(path.join(host, 'repo'), '/workspace/task/repo');
    expect((await s.exec(sh('./task/repo/tool.sh; cat task/repo/link/a.txt; stat -c %s task/repo/big.bin; readlink task/repo/link'))).stdout).toBe(`tool\nlong${3 * 1024 * 1024 + 7}\nsub\n`);
    const back = path.join(host, 'back');
    await s.download('/workspace/task/repo', back);
    expect(readFileSync(path.join(back, 'sub', 'a.txt'), 'utf8')).toBe('long');
    expect(readFileSync(path.join(back, 'big.bin')).equals(readFileSync(path.join(host, 'repo', 'big.bin')))).toBe(true);
    expect(statSync(path.join(back, 'tool.sh')).mode & 0o777).toBe(0o755);
    // A sandbox's symlink is left behind: outside, it would point into this machine.
    expect(existsSync(path.join(back, 'link'))).toBe(false);
    expect(readlinkSync(path.join(host, 'repo', 'link'))).toBe('sub');
  });

  it('uploads read-only mounts at create, and refuses writable ones (no way back to this machine)', async () => {
    const task = mkdtempSync(path.join(os.tmpdir(), 'gf-os-task-'));
    writeFileSync(path.join(task, 'given.txt'), 'given');
    const s = await sandbox({ mounts: [{ hostPath: task, path: '/task' }] });
    expect((await s.exec(sh('cat /task/given.txt'))).stdout).toBe('given');
    await expect(sandbox({ mounts: [{ hostPath: task, path: '/out', writable: true }] })).rejects.toMatchObject({ code: 'BAD_INPUT', message: expect.stringMatching(/mounts\.0\.writable/) });
  });
});

describe('opensandbox provider network and limits', () => {
  it('has no network under none (a connect to a host server fails), and maps allow and host to egress policies', async () => {
    let hits = 0;
    const server = http.createServer((_req, res) => {
      hits++;
      res.end('from the host');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const s = await sandbox();
      const probe = `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected || echo refused`;
      expect((await s.exec({ command: ['bash', '-c', probe], timeoutMs: 30_000 })).stdout.trim()).toBe('refused');
      expect(hits).toBe(0);
      const open = await sandbox({ network: { mode: 'host' } });
      expect(fake.sandboxes.get(open.id)!.request.networkPolicy).toEqual({ defaultAction: 'allow', egress: [] });
      expect((await open.exec({ command: ['bash', '-c', probe], timeoutMs: 30_000 })).stdout.trim()).toBe('connected');
      const allowed = await sandbox({
        network: {
          mode: 'allow',
          endpoints: [
            { host: 'gateway.example', port: 8443 },
            { host: 'gateway.example', port: 9443 },
          ],
        },
      });
      expect(fake.sandboxes.get(allowed.id)!.request.networkPolicy).toEqual({ defaultAction: 'deny', egress: [{ action: 'allow', target: 'gateway.example' }] });
    } finally {
      server.close();
    }
  });

  it('refuses what OpenSandbox cannot do, naming the field', async () => {
    const before = fake.sandboxes.size;
    const labels = { run, rollout: 'x', attempt: 1, user: 'u' };
    await expect(provider.create({ image: 'x', labels, network: { mode: 'allow', endpoints: [{ host: '127.0.0.1', port: 80 }] } })).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: expect.stringMatching(/network\.endpoints\.0.*domain names only/),
    });
    await expect(provider.create({ image: 'x', labels, resources: { pids: 10 } })).rejects.toMatchObject({ code: 'BAD_INPUT', message: expect.stringMatching(/resources\.pids/) });
    await expect(provider.create({ image: 'x', labels, user: '1000' })).rejects.toMatchObject({ code: 'BAD_INPUT', message: expect.stringMatching(/"user"/) });
    await expect(provider.create({ labels })).rejects.toMatchObject({ code: 'BAD_INPUT', message: expect.stringMatching(/"image"/) });
    expect(fake.sandboxes.size).toBe(before);
  });
});

describe('opensandbox provider lifecycle', () => {
  it('lists by labels (values the server would refuse as labels included) and attaches by id', async () => {
    const odd = 'rollout #7/attempt: ünïcode and a long tail to pass sixty-three characters for sure';
    const a = await sandbox({}, 'ra');
    const b = await sandbox({}, odd);
    expect((await provider.list({ run })).map((i) => i.id)).toEqual(expect.arrayContaining([a.id, b.id]));
    expect(await provider.list({ run, rollout: odd })).toEqual([
      { id: b.id, provider: 'opensandbox', state: 'running', labels: { run, rollout: odd, attempt: 1, user: 'tester' }, createdAt: expect.any(String), expiresAt: null, ownerAlive: true },
    ]);
    const again = await provider.attach(b.id);
    expect(again.labels.rollout).toBe(odd);
    expect((await again.exec(sh('pwd'))).stdout).toBe('/workspace\n');
    await expect(provider.attach('fake-000000000000')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('pauses and resumes', async () => {
    const s = await sandbox();
    await s.pause!();
    expect(await s.status()).toBe('paused');
    await s.resume!();
    await waitFor(async () => (await s.status()) === 'running', 'the sandbox to run again', 20_000);
    expect((await s.exec(sh('echo back'))).stdout).toBe('back\n');
  });

  it('gives the server a lifetime, which keepalive pushes later; past it the server removes the sandbox', async () => {
    const kept = await sandbox({ resources: { lifetimeMs: 5_000 } }, 'kept');
    const expiry = async () => Date.parse((await provider.list({ run, rollout: 'kept' }))[0]!.expiresAt!);
    const first = await expiry();
    await kept.keepalive(600_000);
    expect(await expiry()).toBeGreaterThan(first + 500_000);
    const short = await sandbox({ resources: { lifetimeMs: 1_000 } });
    await waitFor(async () => (await short.status()) === 'gone', 'the server to remove the sandbox at the end of its lifetime', 20_000);
  });

  it('gc removes a dead worker’s sandbox and a run’s leftovers, and nothing live', async () => {
    const gcRun = `${run}-gc`;
    const live = await provider.create({ image: 'x', labels: { run: gcRun, rollout: 'live', attempt: 1, user: 'u' } });
    const orphan = await provider.create({ image: 'x', labels: { run: gcRun, rollout: 'orphan', attempt: 1, user: 'u' } });
    created.push(live, orphan);
    // Its worker was SIGKILLed: its owner is a process that is gone.
    const metadata = fake.sandboxes.get(orphan.id)!.metadata;
    for (const key of Object.keys(metadata)) if (key.startsWith('gymflow.owner')) delete metadata[key];
    Object.assign(metadata, ownerMetadata({ pid: 2 ** 22 + 1, host: os.hostname(), bootId: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(), startTime: 1 }));
    const collected = await collectGarbage(provider, {});
    expect(collected.map((c) => [c.info.id, c.reason])).toEqual([[orphan.id, 'orphaned']]);
    expect(await orphan.status()).toBe('gone');
    expect(await live.status()).toBe('running');
    expect((await collectGarbage(provider, { run: gcRun })).map((c) => [c.info.id, c.reason])).toEqual([[live.id, 'run']]);
    expect(await provider.list({ run: gcRun })).toEqual([]);
  });

  it('destroys idempotently; a destroyed sandbox is gone and cannot be attached', async () => {
    const s = await provider.create({ image: 'x', labels: { run, rollout: 'gone', attempt: 1, user: 'u' } });
    const root = fake.sandboxes.get(s.id)!.root;
    await s.writeFile('x', 'y');
    await s.destroy();
    await s.destroy();
    expect(await s.status()).toBe('gone');
    expect(existsSync(root)).toBe(false);
    expect(await provider.list({ run, rollout: 'gone' })).toEqual([]);
    await expect(provider.attach(s.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    // Another handle on the same sandbox (gc racing the rollout's cleanup) succeeds too.
    const other = await sandbox({}, 'gone-twice');
    await (await provider.attach(other.id)).destroy();
    await other.destroy();
  });
});

describe('opensandbox provider configuration', () => {
  it('says what to set when the server or key is missing, and when the key is refused', async () => {
    const spec = { image: 'x', labels: { run, rollout: 'cfg', attempt: 1, user: 'u' } };
    delete process.env.OPEN_SANDBOX_DOMAIN;
    try {
      await expect((await sandboxProvider('opensandbox')).create(spec)).rejects.toMatchObject({ code: 'SETUP_FAILED', message: expect.stringMatching(/OPEN_SANDBOX_DOMAIN/) });
    } finally {
      process.env.OPEN_SANDBOX_DOMAIN = fake.domain;
    }
    delete process.env.OPEN_SANDBOX_API_KEY;
    try {
      await expect((await sandboxProvider('opensandbox')).list()).rejects.toMatchObject({ code: 'SETUP_FAILED', message: expect.stringMatching(/OPEN_SANDBOX_API_KEY/) });
      process.env.OPEN_SANDBOX_API_KEY = 'not-the-key';
      await expect((await sandboxProvider('opensandbox')).create(spec)).rejects.toMatchObject({ code: 'SETUP_FAILED', message: expect.stringMatching(/refused the key in \$OPEN_SANDBOX_API_KEY/) });
    } finally {
      process.env.OPEN_SANDBOX_API_KEY = fake.apiKey;
    }
    await expect(sandboxProvider('opensandbox', { apiKey: 'inline' })).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: expect.stringMatching(/opensandbox sandbox provider option field "\(root\)"/),
    });
  });

  it('never lets the key out: not in a sandbox object, its listing, its metadata or an error', async () => {
    const s = await sandbox();
    expect(fake.requests.some((r) => r.apiKey === fake.apiKey)).toBe(true);
    const shown = [JSON.stringify(s), inspect(s, { depth: 10, showHidden: true }), JSON.stringify(await provider.list({ run })), JSON.stringify(fake.sandboxes.get(s.id)!.metadata)];
    const failure = await s.readFile('/nope').catch((e: Error) => `${e.message} ${e.stack} ${JSON.stringify(e)}`);
    for (const text of [...shown, String(failure)]) expect(text).not.toContain(fake.apiKey);
  });
});

// The docker provider against a real Docker Engine (a private dockerd, the task image built offline from
// Debian packages): isolation (network, read-only root, user, limits), timeouts, files, lifecycle, labels.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DockerProvider } from '../../src/sandboxes/docker/provider';
import { collectGarbage, reapOrphans } from '../../src/sandboxes/gc';
import { sandboxProvider } from '../../src/sandboxes/registry';
import type { Sandbox } from '../../src/sandboxes/provider';
import type { SandboxSpec } from '../../src/sandboxes/schema';
import { startTestDockerEngine, type TestDockerEngine } from '../helpers/docker-engine';
import { exerciseShellTerminal, transcript } from '../helpers/pty';
import { waitFor } from '../helpers/worker-process';

let docker: TestDockerEngine;
let provider: DockerProvider;
let hostServer: http.Server;
let hostPort: number;
let hits = 0;
const run = `run-${process.pid}`;
const created: Sandbox[] = [];

beforeAll(async () => {
  docker = await startTestDockerEngine();
  provider = (await sandboxProvider('docker', { socketPath: docker.socketPath })) as DockerProvider;
  // A server on the host's loopback: what a sandbox must not reach unless its policy lets it.
  hostServer = http.createServer((_req, res) => {
    hits++;
    res.end('from the host');
  });
  await new Promise<void>((resolve) => hostServer.listen(0, '127.0.0.1', resolve));
  hostPort = (hostServer.address() as AddressInfo).port;
}, 300_000);

afterAll(async () => {
  await Promise.all(created.map((s) => s.destroy().catch(() => undefined)));
  await provider?.close();
  hostServer?.close();
  await docker?.stop();
}, 120_000);

async function sandbox(extra: Partial<SandboxSpec> = {}, rollout = 'r0'): Promise<Sandbox> {
  const s = await provider.create({ image: docker.image, labels: { run, rollout, attempt: 1, user: 'tester' }, ...extra });
  created.push(s);
  return s;
}

const sh = (line: string, timeoutMs = 60_000) => ({ command: ['sh', '-c', line], timeoutMs });

/** Python that fetches the host server and prints the body or the error's class. */
const fetchHost = (port: number) =>
  `import urllib.request\ntry:\n    print(urllib.request.urlopen("http://127.0.0.1:${port}/", timeout=5).read().decode())\nexcept Exception as e:\n    print("failed:", type(e).__name__, e)`;

describe('docker provider isolation', () => {
  it('has no network by default: a connect to the host fails, and only loopback exists', async () => {
    const s = await sandbox();
    const before = hits;
    const result = await s.exec({ command: ['python3', '-c', fetchHost(hostPort)], timeoutMs: 60_000 });
    expect(result.stdout).toMatch(/^failed: URLError/);
    expect(hits).toBe(before);
    expect((await s.exec(sh('ls /sys/class/net'))).stdout.trim()).toBe('lo');
  });

  it('reaches the host with network host (the same check can pass)', async () => {
    const s = await sandbox({ network: { mode: 'host' } });
    const result = await s.exec({ command: ['python3', '-c', fetchHost(hostPort)], timeoutMs: 60_000 });
    expect(result.stdout.trim()).toBe('from the host');
  });

  it('with allow, reaches only the allowed endpoint, at its own host:port', async () => {
    const other = http.createServer((_req, res) => res.end('other'));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const otherPort = (other.address() as AddressInfo).port;
    try {
      const s = await sandbox({ network: { mode: 'allow', endpoints: [{ host: '127.0.0.1', port: hostPort }] } });
      expect((await s.exec({ command: ['python3', '-c', fetchHost(hostPort)], timeoutMs: 60_000 })).stdout.trim()).toBe('from the host');
      expect((await s.exec({ command: ['python3', '-c', fetchHost(otherPort)], timeoutMs: 60_000 })).stdout).toMatch(/^failed:/);
      expect((await s.exec(sh('ls /sys/class/net'))).stdout.trim()).toBe('lo');
    } finally {
      other.close();
    }
  });

  it('writes only in the workdir, /tmp and writable mounts; the root and read-only mounts refuse', async () => {
    const ro = mkdtempSync(path.join(os.tmpdir(), 'gf-ro-'));
    const rw = mkdtempSync(path.join(os.tmpdir(), 'gf-rw-'));
    writeFileSync(path.join(ro, 'given.txt'), 'given');
    const s = await sandbox({
      mounts: [
        { hostPath: ro, path: '/task' },
        { hostPath: rw, path: '/out', writable: true },
      ],
      user: '0:0',
    });
    const tryWrite = async (p: string) => (await s.exec(sh(`echo x > ${p} && echo ok || echo refused`))).stdout.trim();
    expect(await tryWrite('/etc/evil')).toBe('refused');
    expect(await tryWrite('/usr/evil')).toBe('refused');
    expect(await tryWrite('/task/evil')).toBe('refused');
    expect(await tryWrite('/workspace/fine')).toBe('ok');
    expect(await tryWrite('/tmp/fine')).toBe('ok');
    expect(await tryWrite('/out/fine')).toBe('ok');
    expect(readFileSync(path.join(rw, 'fine'), 'utf8')).toBe('x\n');
    expect((await s.exec(sh('cat /task/given.txt'))).stdout).toBe('given');
    // Even as root inside: the refusal is the mount's, not a permission.
    expect((await s.exec(sh('touch /etc/evil'))).stderr).toMatch(/Read-only file system/);
  });

  it('runs as an unprivileged user by default, or as the one the spec names, owning the workdir', async () => {
    const s = await sandbox();
    expect((await s.exec(sh('id -u; id -g; stat -c %u /workspace'))).stdout.trim().split('\n')).toEqual(['1000', '1000', '1000']);
    const nobody = await sandbox({ user: '65534:65534' });
    expect((await nobody.exec(sh('id -u; touch /workspace/mine && stat -c %u /workspace/mine'))).stdout.trim().split('\n')).toEqual(['65534', '65534']);
  });

  it('applies memory, pid and cpu limits', async () => {
    const s = await sandbox({ resources: { memoryBytes: 128 * 1024 * 1024, pids: 40, cpus: 0.5 } });
    const limits = await s.exec(
      sh('cat /sys/fs/cgroup/memory/memory.limit_in_bytes /sys/fs/cgroup/pids/pids.max /sys/fs/cgroup/cpu/cpu.cfs_quota_us 2>/dev/null || cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/pids.max'),
    );
    const [memory, pids] = limits.stdout.trim().split('\n');
    expect(Number(memory)).toBe(128 * 1024 * 1024);
    expect(pids).toBe('40');
    // Past the memory limit the kernel kills the process.
    const hog = await s.exec({ command: ['python3', '-c', 'b = bytearray(400 * 1024 * 1024); print("survived")'], timeoutMs: 60_000 });
    expect(hog.stdout).not.toContain('survived');
    expect(hog.signal).toBe('SIGKILL');
    // Past the pid limit fork fails.
    const forks = await s.exec({
      command: [
        'python3',
        '-c',
        'import subprocess\nps = []\ntry:\n    for _ in range(100): ps.append(subprocess.Popen(["sleep", "30"]))\nexcept OSError as e: print("refused after", len(ps))\nfor p in ps: p.kill()',
      ],
      timeoutMs: 60_000,
    });
    const after = Number(/refused after (\d+)/.exec(forks.stdout)?.[1]);
    expect(after).toBeLessThan(40);
  });
});

describe('docker provider commands', () => {
  const countSleeps = "for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline 2>/dev/null; echo; done | grep -c '^sleep 300' || true";

  it('kills a timed-out command and everything it started', async () => {
    const s = await sandbox();
    const result = await s.exec(sh('sleep 300 & sleep 300; echo never', 1500));
    expect(result).toMatchObject({ timedOut: true, exitCode: null, signal: 'SIGKILL' });
    expect(result.stdout).not.toContain('never');
    expect((await s.exec(sh(countSleeps))).stdout.trim()).toBe('0');
  });

  it('kills a command on abort, and streams output as it comes', async () => {
    const s = await sandbox();
    const controller = new AbortController();
    const seen: string[] = [];
    const result = await s.exec(sh('echo first; sleep 300'), {
      signal: controller.signal,
      onOutput: (stream, chunk) => {
        seen.push(`${stream}:${chunk.toString()}`);
        controller.abort();
      },
    });
    expect(seen).toEqual(['stdout:first\n']);
    expect(result).toMatchObject({ timedOut: false, exitCode: null, signal: 'SIGKILL', stdout: 'first\n' });
  });

  it('returns exit codes, both streams, stdin, cwd and env', async () => {
    const s = await sandbox({ env: { FROM_SPEC: 'spec' } });
    const result = await s.exec({
      command: ['sh', '-c', 'cat; echo "$FROM_SPEC $FROM_EXEC $(pwd)"; echo oops >&2; exit 7'],
      stdin: 'in\n',
      cwd: '/tmp',
      env: { FROM_EXEC: 'exec' },
      timeoutMs: 60_000,
    });
    expect(result).toMatchObject({ exitCode: 7, signal: null, timedOut: false, stdout: 'in\nspec exec /tmp\n', stderr: 'oops\n' });
  });

  it('runs detached commands: polled status, output tails, timeout, kill', async () => {
    const s = await sandbox();
    const { commandId } = await s.startCommand({ command: ['sh', '-c', 'read x; echo "got $x"; echo warn >&2; exit 3'], stdin: 'hello\n', timeoutMs: 60_000 });
    const done = await s.commandStatus(commandId, { waitMs: 30_000 });
    expect(done).toMatchObject({ state: 'exited', exitCode: 3, timedOut: false, stdoutTail: 'got hello\n', stderrTail: 'warn\n' });

    const slow = await s.startCommand(sh('sleep 300 & sleep 300', 1000));
    expect((await s.commandStatus(slow.commandId, { waitMs: 30_000 })).timedOut).toBe(true);
    const killed = await s.startCommand(sh('sleep 300'));
    expect((await s.commandStatus(killed.commandId)).state).toBe('running');
    await s.killCommand(killed.commandId);
    expect(await s.commandStatus(killed.commandId)).toMatchObject({ state: 'exited', exitCode: null, timedOut: false });
    expect((await s.exec(sh(countSleeps))).stdout.trim()).toBe('0');
    await expect(s.commandStatus('never-started')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(s.commandStatus('../x')).rejects.toMatchObject({ code: 'BAD_INPUT' });
  });

  it('starts a command once per caller-chosen id, so a retry re-attaches instead of running it twice', async () => {
    const s = await sandbox();
    const line = sh('echo run >> /workspace/runs; sleep 1; echo finished');
    expect(await s.startCommand(line, { commandId: 'step-1.attempt' })).toEqual({ commandId: 'step-1.attempt' });
    const again = await provider.attach(s.id);
    expect(await again.startCommand(line, { commandId: 'step-1.attempt' })).toEqual({ commandId: 'step-1.attempt' });
    expect(await again.commandStatus('step-1.attempt', { waitMs: 30_000 })).toMatchObject({ state: 'exited', exitCode: 0, stdoutTail: 'finished\n' });
    expect((await s.readFile('runs')).toString()).toBe('run\n');
  });
});

describe('docker provider terminals', () => {
  it('runs a command on a tty of the asked size: echoed input, resize, ctrl-C, exit code; kill() ends it', async () => {
    const s = await sandbox();
    const pty = await s.openPty!({ command: ['sh'], env: { PS1: '$ ' }, columns: 100, rows: 30, timeoutMs: 120_000 });
    await exerciseShellTerminal(pty);

    const killed = await s.openPty!({ command: ['sh', '-c', 'echo ready-$((6*7)); exec sleep 300'], timeoutMs: 120_000 });
    await transcript(killed).until(/ready-42/);
    killed.kill();
    expect(await killed.exited).toBeNull();
    const left = await s.exec(sh('ps -eo args | grep -c "^sleep 300" || true'));
    expect(left.stdout.trim()).toBe('0');
  });
});

describe('docker provider files', () => {
  it('writes, reads and lists files, owned by the sandbox user', async () => {
    const s = await sandbox();
    const bytes = Buffer.from([0, 1, 2, 255, 254, 10, 13]);
    await s.writeFile('deep/er/data.bin', bytes);
    const script = '#!/bin/sh\necho ran\n';
    await s.writeFile('/workspace/run.sh', script, { mode: 0o755 });
    expect(Buffer.compare(await s.readFile('/workspace/deep/er/data.bin'), bytes)).toBe(0);
    expect((await s.exec({ command: ['./run.sh'], timeoutMs: 60_000 })).stdout).toBe('ran\n');
    expect((await s.exec(sh('stat -c %u deep/er/data.bin; echo more >> deep/er/data.bin && echo appended'))).stdout.trim().split('\n')).toEqual(['1000', 'appended']);
    expect(await s.listFiles('.')).toEqual([
      { name: 'deep', type: 'directory', sizeBytes: expect.any(Number) },
      { name: 'run.sh', type: 'file', sizeBytes: Buffer.byteLength(script) },
    ]);
    await expect(s.readFile('missing.txt')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(s.readFile('deep')).rejects.toMatchObject({ code: 'BAD_INPUT' });
    await expect(s.listFiles('run.sh')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it("writes and reads files in /tmp, the tmpfs the archive endpoints cannot see (where a harness's HOME and config live)", async () => {
    const s = await sandbox();
    const bytes = Buffer.from([0, 1, 2, 255, 254, 10, 13]);
    await s.writeFile('/tmp/home/deep/data.bin', bytes);
    await s.writeFile('/tmp/home/run.sh', '#!/bin/sh\necho from tmp\n', { mode: 0o755 });
    expect(Buffer.compare(await s.readFile('/tmp/home/deep/data.bin'), bytes)).toBe(0);
    expect((await s.exec({ command: ['/tmp/home/run.sh'], timeoutMs: 60_000 })).stdout).toBe('from tmp\n');
    expect((await s.exec(sh('stat -c "%u %a" /tmp/home/deep/data.bin'))).stdout.trim()).toBe('1000 644');
    await expect(s.readFile('/tmp/home/missing')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(s.readFile('/tmp/home/deep')).rejects.toMatchObject({ code: 'BAD_INPUT' });
  });

  it('uploads a host folder and downloads it back unchanged (long names, symlinks, modes)', async () => {
    const s = await sandbox();
    const host = mkdtempSync(path.join(os.tmpdir(), 'gf-up-'));
    const longName = `${'n'.repeat(120)}.txt`;
    mkdirSync(path.join(host, 'repo', 'sub'), { recursive: true });
    writeFileSync(path.join(host, 'repo', 'sub', longName), 'long');
    writeFileSync(path.join(host, 'repo', 'big.bin'), Buffer.alloc(3 * 1024 * 1024 + 7, 7));
    writeFileSync(path.join(host, 'repo', 'tool.sh'), '#!/bin/sh\necho tool\n', { mode: 0o755 });
    symlinkSync('sub', path.join(host, 'repo', 'link'));
    await s.upload(path.join(host, 'repo'), '/workspace/task/repo');
    expect((await s.exec(sh(`./task/repo/tool.sh; cat task/repo/link/${longName}; stat -c %s task/repo/big.bin`))).stdout).toBe(`tool\nlong${3 * 1024 * 1024 + 7}\n`);
    const back = path.join(host, 'back');
    await s.download('/workspace/task/repo', back);
    expect(readFileSync(path.join(back, 'sub', longName), 'utf8')).toBe('long');
    expect(readFileSync(path.join(back, 'big.bin')).equals(readFileSync(path.join(host, 'repo', 'big.bin')))).toBe(true);
    expect(readlinkSync(path.join(back, 'link'))).toBe('sub');
    expect((await import('node:fs')).statSync(path.join(back, 'tool.sh')).mode & 0o777).toBe(0o755);
  });
});

describe('docker provider lifecycle', () => {
  it('labels sandboxes, lists them by label, and attaches by id', async () => {
    const a = await sandbox({}, 'ra');
    const b = await sandbox({}, 'rb');
    const ids = (await provider.list({ run })).map((i) => i.id);
    expect(ids).toEqual(expect.arrayContaining([a.id, b.id]));
    const onlyA = await provider.list({ run, rollout: 'ra' });
    expect(onlyA).toEqual([
      { id: a.id, provider: 'docker', state: 'running', labels: { run, rollout: 'ra', attempt: 1, user: 'tester' }, createdAt: expect.any(String), expiresAt: null, ownerAlive: true },
    ]);
    const again = await provider.attach(b.id);
    expect(again.labels.rollout).toBe('rb');
    expect((await again.exec(sh('id -u; pwd'))).stdout).toBe('1000\n/workspace\n');
    await expect(provider.attach('gymflow-000000000000')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('pauses and resumes', async () => {
    const s = await sandbox();
    await s.pause!();
    expect(await s.status()).toBe('paused');
    await s.resume!();
    expect(await s.status()).toBe('running');
    expect((await s.exec(sh('echo back'))).stdout).toBe('back\n');
  });

  it('leaves nothing after destroy (container, volumes), and destroying twice succeeds', async () => {
    const volumes = async () => (await docker.engine.json<{ Volumes: { Name: string }[] | null }>('GET', '/volumes')).Volumes?.length ?? 0;
    const before = await volumes();
    const s = await provider.create({
      image: docker.image,
      labels: { run, rollout: 'gone', attempt: 1, user: 'tester' },
      network: { mode: 'allow', endpoints: [{ host: 'gateway.test', port: hostPort }] },
    });
    await s.writeFile('x', 'y');
    expect(await volumes()).toBeGreaterThan(before);
    expect(await provider.list({ run, rollout: 'gone' })).toHaveLength(1);
    await s.destroy();
    await s.destroy();
    expect(await provider.list({ run, rollout: 'gone' })).toEqual([]);
    expect(await s.status()).toBe('gone');
    expect(await volumes()).toBe(before);
    await expect(provider.attach(s.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('stops a sandbox whose lifetime has passed, and gc removes it (and nothing live)', async () => {
    // Long enough that a create on a loaded machine still finds it running before it ends.
    const s = await sandbox({ resources: { lifetimeMs: 8000 } });
    expect(await s.status()).toBe('running');
    await waitFor(async () => (await s.status()) === 'stopped', 'the sandbox to stop at the end of its lifetime', 60_000);
    const [info] = await provider.list({ run, rollout: 'r0' }).then((all) => all.filter((i) => i.id === s.id));
    expect(Date.parse(info!.expiresAt!)).toBeLessThanOrEqual(Date.now());
    const collected = await collectGarbage(provider, {});
    expect(collected.map((c) => [c.info.id, c.reason])).toEqual([[s.id, 'expired']]);
    expect(await s.status()).toBe('gone');
  });

  it("a worker's start-up reaper removes a container whose owner process died, and leaves a live one", async () => {
    const owner = execFileSync(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, '../helpers/docker-sandbox-owner.ts'), docker.socketPath, docker.image], {
      encoding: 'utf8',
    }).trim();
    const live = await sandbox({}, 'r-live');
    const saved = process.env.DOCKER_HOST;
    process.env.DOCKER_HOST = `unix://${docker.socketPath}`;
    try {
      const reaped = await reapOrphans(undefined, ['docker']);
      // Only this test's sandboxes: an expired one another case left would be reaped too, rightly.
      expect(reaped.filter((c) => [owner, live.id].includes(c.info.id)).map((c) => [c.info.id, c.reason])).toEqual([[owner, 'orphaned']]);
      await expect(provider.attach(owner)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect(await live.status()).toBe('running');
    } finally {
      if (saved === undefined) delete process.env.DOCKER_HOST;
      else process.env.DOCKER_HOST = saved;
    }
  });

  it('keepalive pushes the expiry later', async () => {
    const s = await sandbox({ resources: { lifetimeMs: 60_000 } }, 'kept');
    const expiry = async () => Date.parse((await provider.list({ run, rollout: 'kept' }))[0]?.expiresAt ?? '');
    // The container's own start writes its expiry a moment after create returns.
    let first = NaN;
    await waitFor(async () => !Number.isNaN((first = await expiry())), 'the sandbox to record its expiry', 30_000);
    await s.keepalive(600_000);
    expect(await expiry()).toBeGreaterThan(first + 500_000);
  });

  it('says what is missing: no engine, no image, no image named', async () => {
    const nowhere = new DockerProvider({ socketPath: path.join(os.tmpdir(), 'no-such-docker.sock') });
    await expect(nowhere.create({ image: docker.image, labels: { run, rollout: 'x', attempt: 1, user: 'u' } })).rejects.toMatchObject({
      code: 'SETUP_FAILED',
      message: expect.stringMatching(/no Docker Engine at unix:\/\//),
    });
    await nowhere.close();
    await expect(sandboxProvider('docker', { socket: '/x' })).rejects.toMatchObject({ code: 'BAD_INPUT', message: expect.stringMatching(/docker sandbox provider option field/) });
    await expect(provider.create({ image: 'gymflow-missing:none', labels: { run, rollout: 'x', attempt: 1, user: 'u' } })).rejects.toMatchObject({
      code: 'SETUP_FAILED',
      message: expect.stringMatching(/gymflow-missing:none is not in the engine/),
    });
    await expect(provider.create({ labels: { run, rollout: 'x', attempt: 1, user: 'u' } })).rejects.toMatchObject({ code: 'BAD_INPUT', message: expect.stringMatching(/image/) });
    await expect(provider.create({ image: docker.image, workdir: 'relative', labels: { run, rollout: 'x', attempt: 1, user: 'u' } })).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: expect.stringMatching(/sandbox spec field "workdir"/),
    });
    await expect(
      provider.create({ network: { mode: 'allow', endpoints: [{ host: '10.1.2.3', port: 80 }] }, image: docker.image, labels: { run, rollout: 'x', attempt: 1, user: 'u' } }),
    ).rejects.toMatchObject({ code: 'BAD_INPUT', message: expect.stringMatching(/network.endpoints.0": 10.1.2.3:80/) });
    expect(await provider.list({ run, rollout: 'x' })).toEqual([]);
  });
});

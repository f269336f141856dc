// The e2b provider, through the registry and the official SDK, against a FAKE E2B (tests/helpers/
// fake-e2b-server.ts: E2B's real REST and envd Connect-RPC protocols on loopback, each sandbox a bubblewrap
// jail on this machine): exec, detached commands re-attached by a second provider, files, lifecycle, labels.
import { randomBytes } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { Sandbox as SdkSandbox } from 'e2b';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectGarbage } from '../../src/sandboxes/gc';
import type { Sandbox, SandboxProvider } from '../../src/sandboxes/provider';
import { sandboxProvider } from '../../src/sandboxes/registry';
import type { SandboxSpec } from '../../src/sandboxes/schema';
import { startFakeE2b, type FakeE2b } from '../helpers/fake-e2b-server';
import { waitFor } from '../helpers/worker-process';

const KEY_ENV = 'GYMFLOW_TEST_FAKE_E2B_KEY';
const API_KEY = `e2b_${randomBytes(20).toString('hex')}`;
const TEMPLATE = 'gymflow-task';
const run = `run-${process.pid}-${randomBytes(3).toString('hex')}`;

let fake: FakeE2b;
let provider: SandboxProvider;
let options: Record<string, unknown>;
/** Everything the provider handed back, checked at the end for the API key. */
const seen: unknown[] = [];

beforeAll(async () => {
  process.env[KEY_ENV] = API_KEY;
  fake = await startFakeE2b({ apiKey: API_KEY, templates: [TEMPLATE] });
  options = { apiKeyEnv: KEY_ENV, apiUrl: fake.apiUrl, sandboxUrl: fake.sandboxUrl };
  provider = await sandboxProvider('e2b', options);
});

afterAll(async () => {
  await fake?.close();
  delete process.env[KEY_ENV];
});

async function sandbox(extra: Partial<SandboxSpec> = {}, rollout = 'r0'): Promise<Sandbox> {
  const s = await provider.create({ image: TEMPLATE, labels: { run, rollout, attempt: 1, user: 'tester' }, ...extra });
  seen.push(s);
  return s;
}

const sh = (line: string, timeoutMs = 20_000) => ({ command: ['sh', '-c', line], timeoutMs });

/** Prints whether a process still runs (a zombie has ended: this machine's init does not reap them). */
const liveness = (pid: string) => sh(`s=$(awk '/^State:/{print $2}' /proc/${pid}/status 2>/dev/null); if [ -n "$s" ] && [ "$s" != Z ]; then echo alive; else echo gone; fi`);

async function rejection(promise: Promise<unknown>): Promise<{ code?: string; message: string }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e as { code?: string; message: string },
  );
  if (!error) throw new Error('expected a rejection');
  seen.push(error.message);
  return error;
}

describe('e2b provider: create and exec', () => {
  it('creates from the template with labels, env and lifetime in E2B terms, and runs in the workdir', async () => {
    const s = await sandbox({ env: { GREETING: 'hi there' }, resources: { lifetimeMs: 90_000 } });
    const created = fake.sandboxes.get(s.id)!.created;
    expect(created).toMatchObject({
      templateID: TEMPLATE,
      envVars: { GREETING: 'hi there' },
      timeout: 90,
      allow_internet_access: false,
      metadata: { 'gymflow.sandbox': '1', 'gymflow.run': run, 'gymflow.rollout': 'r0', 'gymflow.attempt': '1', 'gymflow.user': 'tester' },
    });
    expect(s.labels).toEqual({ run, rollout: 'r0', attempt: 1, user: 'tester' });
    const result = await s.exec(sh('echo "$GREETING"; pwd'));
    seen.push(result);
    expect(result).toMatchObject({ exitCode: 0, signal: null, timedOut: false, stderr: '' });
    expect(result.stdout).toBe('hi there\n/workspace\n');
  });

  it('reports exit codes and both streams, streams chunks while the command runs, passes stdin, cwd and env', async () => {
    const s = await sandbox({ env: { A: 'from-spec', B: 'spec' } });
    const failing = await s.exec(sh('printf out; printf err >&2; exit 3'));
    expect(failing).toMatchObject({ exitCode: 3, stdout: 'out', stderr: 'err', timedOut: false });

    // The command waits for a file the test writes only once it has seen the first chunk: without
    // streaming, it would run into its deadline.
    const chunks: string[] = [];
    const streamed = await s.exec(sh('echo first; while [ ! -f /tmp/go ]; do sleep 0.05; done; echo second >&2', 20_000), {
      onOutput: (stream, chunk) => {
        chunks.push(`${stream}:${chunk.toString()}`);
        if (chunk.toString().includes('first')) void s.writeFile('/tmp/go', '');
      },
    });
    expect(streamed).toMatchObject({ exitCode: 0, timedOut: false, stdout: 'first\n', stderr: 'second\n' });
    expect(chunks).toEqual(['stdout:first\n', 'stderr:second\n']);

    expect((await s.exec({ command: ['cat'], stdin: 'line one\nline two', timeoutMs: 20_000 })).stdout).toBe('line one\nline two');
    expect((await s.exec({ command: ['cat'], stdin: '', timeoutMs: 20_000 })).stdout).toBe('');
    expect((await s.exec({ ...sh('pwd'), cwd: '/tmp' })).stdout).toBe('/tmp\n');
    expect((await s.exec({ ...sh('echo "$A $B"'), env: { A: 'from-request' } })).stdout).toBe('from-request spec\n');
    expect((await s.exec({ command: ['printf', '%s|', 'two words', "it's", '$HOME'], timeoutMs: 20_000 })).stdout).toBe("two words|it's|$HOME|");
  });

  it('kills a command past its deadline with everything it started, and says timedOut', async () => {
    const s = await sandbox();
    const result = await s.exec(sh('sleep 60 & echo $! > /tmp/child; echo started; wait', 1_000));
    expect(result).toMatchObject({ exitCode: null, signal: 'SIGKILL', timedOut: true, stdout: 'started\n' });
    const child = (await s.readFile('/tmp/child')).toString().trim();
    expect((await s.exec(liveness(child))).stdout).toBe('gone\n');
  });

  it('kills a command on abort, not as a timeout', async () => {
    const s = await sandbox();
    const controller = new AbortController();
    const result = await s.exec(sh('echo ready; sleep 60', 60_000), { signal: controller.signal, onOutput: () => controller.abort() });
    expect(result).toMatchObject({ exitCode: null, signal: 'SIGKILL', timedOut: false });
  });
});

describe('e2b provider: detached commands', () => {
  it('starts a command once per id: a second provider (a retried activity) re-attaches instead of starting it again', async () => {
    const s = await sandbox();
    const line = 'echo run >> /workspace/starts; read input; echo "got $input"; while [ ! -f /workspace/release ]; do sleep 0.05; done; echo done >&2; exit 4';
    await s.startCommand({ ...sh(line), stdin: 'first\n' }, { commandId: 'job-1' });

    const other = await (await sandboxProvider('e2b', options)).attach(s.id);
    expect(other.labels).toEqual(s.labels);
    await other.startCommand({ ...sh(line), stdin: 'second\n' }, { commandId: 'job-1' });
    expect((await other.commandStatus('job-1')).state).toBe('running');

    await other.writeFile('/workspace/release', '');
    const status = await other.commandStatus('job-1', { waitMs: 20_000 });
    expect(status).toEqual({ commandId: 'job-1', state: 'exited', exitCode: 4, timedOut: false, stdoutTail: 'got first\n', stderrTail: 'done\n' });
    expect((await s.readFile('/workspace/starts')).toString()).toBe('run\n');
  });

  it('kills a detached command past its deadline, and on killCommand', async () => {
    const s = await sandbox();
    await s.startCommand(sh('echo begun; sleep 60', 500), { commandId: 'slow' });
    expect(await s.commandStatus('slow', { waitMs: 20_000 })).toMatchObject({ state: 'exited', exitCode: null, timedOut: true, stdoutTail: 'begun\n' });

    const { commandId } = await s.startCommand(sh('sleep 60 & echo $! > /tmp/grandchild; wait'));
    expect((await s.commandStatus(commandId)).state).toBe('running');
    await s.killCommand(commandId);
    expect(await s.commandStatus(commandId, { waitMs: 20_000 })).toMatchObject({ state: 'exited', exitCode: null, timedOut: false });
    const grandchild = (await s.readFile('/tmp/grandchild')).toString().trim();
    expect((await s.exec(liveness(grandchild))).stdout).toBe('gone\n');

    expect((await rejection(s.commandStatus('never-started'))).code).toBe('NOT_FOUND');
    expect((await rejection(s.startCommand(sh('true'), { commandId: '../escape' }))).code).toBe('BAD_INPUT');
  });
});

describe('e2b provider: files', () => {
  it('writes, reads and lists files, with a mode', async () => {
    const s = await sandbox();
    await s.writeFile('notes/a.txt', 'alpha');
    const script = '#!/bin/sh\necho ran\n';
    await s.writeFile('/workspace/notes/run.sh', script, { mode: 0o755 });
    await s.writeFile('notes/bytes.bin', Buffer.from([0, 255, 1, 254]));
    expect((await s.readFile('/workspace/notes/a.txt')).toString()).toBe('alpha');
    expect([...(await s.readFile('notes/bytes.bin'))]).toEqual([0, 255, 1, 254]);
    expect((await s.exec({ command: ['./notes/run.sh'], timeoutMs: 20_000 })).stdout).toBe('ran\n');
    expect(await s.listFiles('notes')).toEqual([
      { name: 'a.txt', type: 'file', sizeBytes: 5 },
      { name: 'bytes.bin', type: 'file', sizeBytes: 4 },
      { name: 'run.sh', type: 'file', sizeBytes: script.length },
    ]);
    expect((await rejection(s.readFile('missing.txt'))).code).toBe('NOT_FOUND');
    expect((await rejection(s.listFiles('nowhere'))).code).toBe('NOT_FOUND');
  });

  it('uploads a host folder (modes and symlinks kept) and downloads it back', async () => {
    const s = await sandbox();
    const host = mkdtempSync(path.join(os.tmpdir(), 'e2b-upload-'));
    mkdirSync(path.join(host, 'repo/src'), { recursive: true });
    writeFileSync(path.join(host, 'repo/src/main.py'), 'print("hello")\n');
    writeFileSync(path.join(host, 'repo/test.sh'), '#!/bin/sh\necho tested\n');
    chmodSync(path.join(host, 'repo/test.sh'), 0o755);
    symlinkSync('src/main.py', path.join(host, 'repo/link.py'));
    await s.upload(path.join(host, 'repo'), 'task');
    expect((await s.exec(sh('./task/test.sh; cat task/src/main.py; readlink task/link.py'))).stdout).toBe('tested\nprint("hello")\nsrc/main.py\n');

    await s.exec(sh('echo changed > task/src/main.py; mkdir task/out; echo result > task/out/r.txt'));
    const back = path.join(host, 'back');
    await s.download('task', back);
    expect(readFileSync(path.join(back, 'src/main.py'), 'utf8')).toBe('changed\n');
    expect(readFileSync(path.join(back, 'out/r.txt'), 'utf8')).toBe('result\n');
    expect(lstatSync(path.join(back, 'test.sh')).mode & 0o111).not.toBe(0);
    expect(readlinkSync(path.join(back, 'link.py'))).toBe('src/main.py');
    expect((await rejection(s.download('no-such-dir', path.join(host, 'nothing')))).code).toBe('NOT_FOUND');
  });

  it('uploads mounts at create: writable ones belong to the sandbox user, read-only ones to root', async () => {
    const host = mkdtempSync(path.join(os.tmpdir(), 'e2b-mounts-'));
    mkdirSync(path.join(host, 'tool/bin'), { recursive: true });
    writeFileSync(path.join(host, 'tool/bin/tool'), '#!/bin/sh\necho tool ran\n');
    chmodSync(path.join(host, 'tool/bin/tool'), 0o755);
    mkdirSync(path.join(host, 'repo'));
    writeFileSync(path.join(host, 'repo/README'), 'the repo\n');
    const s = await sandbox({
      mounts: [
        { hostPath: path.join(host, 'tool'), path: '/opt/tool' },
        { hostPath: path.join(host, 'repo'), path: '/workspace/repo', writable: true },
      ],
    });
    const result = await s.exec(sh('/opt/tool/bin/tool; cat repo/README; stat -c %U /opt/tool/bin/tool repo/README'));
    expect(result.stdout).toBe('tool ran\nthe repo\nroot\nuser\n');
  });
});

describe('e2b provider: lifecycle and labels', () => {
  it('keepalive moves the E2B timeout later, never earlier; the lifetime ends a sandbox', async () => {
    const s = await sandbox({ resources: { lifetimeMs: 60_000 } });
    const record = fake.sandboxes.get(s.id)!;
    const before = record.endAt.getTime();
    await s.keepalive(3_600_000);
    expect(record.endAt.getTime()).toBeGreaterThanOrEqual(before + 3_000_000);
    const extended = record.endAt.getTime();
    await s.keepalive(1_000);
    expect(record.endAt.getTime()).toBe(extended);
    const [info] = (await provider.list({ run, rollout: 'r0' })).filter((i) => i.id === s.id);
    expect(info!.expiresAt).toBe(new Date(extended).toISOString());

    const brief = await sandbox({ resources: { lifetimeMs: 1_000 } });
    await waitFor(async () => (await brief.status()) === 'gone', 'the 1 s sandbox to expire', 20_000);
  });

  it('pauses and resumes', async () => {
    const s = await sandbox();
    await s.pause!();
    expect(await s.status()).toBe('paused');
    expect((await provider.list({ run })).find((i) => i.id === s.id)?.state).toBe('paused');
    await s.resume!();
    expect(await s.status()).toBe('running');
    expect((await s.exec(sh('echo back'))).stdout).toBe('back\n');
  });

  it('lists by labels, and collectGarbage removes a run’s leftovers but never a sandbox that is not Gymflow’s', async () => {
    const gcRun = `${run}-gc`;
    const labels = (rollout: string) => ({ run: gcRun, rollout, attempt: 0, user: 'tester' });
    const a = await provider.create({ image: TEMPLATE, labels: labels('a') });
    const b = await provider.create({ image: TEMPLATE, labels: labels('b') });
    const foreign = await SdkSandbox.create(TEMPLATE, { apiKey: API_KEY, apiUrl: fake.apiUrl, sandboxUrl: fake.sandboxUrl, metadata: { 'gymflow.run': gcRun } });

    const listed = await provider.list({ run: gcRun });
    seen.push(listed);
    expect(listed.map((i) => i.id).sort()).toEqual([a.id, b.id].sort());
    expect(listed.every((i) => i.provider === 'e2b' && i.state === 'running' && i.ownerAlive === null)).toBe(true);
    expect((await provider.list({ run: gcRun, rollout: 'b' })).map((i) => ({ id: i.id, labels: i.labels }))).toEqual([{ id: b.id, labels: labels('b') }]);

    // Nothing of this run is orphaned or expired: a plain gc keeps them.
    expect((await collectGarbage(provider, {})).filter((c) => c.info.labels.run === gcRun)).toEqual([]);
    const collected = await collectGarbage(provider, { run: gcRun });
    expect(collected.map((c) => [c.info.id, c.reason, c.error]).sort()).toEqual(
      [
        [a.id, 'run', undefined],
        [b.id, 'run', undefined],
      ].sort(),
    );
    expect(await provider.list({ run: gcRun })).toEqual([]);
    expect(fake.sandboxes.has(a.id) || fake.sandboxes.has(b.id)).toBe(false);
    expect(fake.sandboxes.has(foreign.sandboxId)).toBe(true);
    expect((await rejection(provider.attach(foreign.sandboxId))).message).toMatch(/not a Gymflow sandbox/);
    await foreign.kill();
  });

  it('destroys idempotently; attaching to a destroyed sandbox is NOT_FOUND', async () => {
    const s = await sandbox();
    await s.destroy();
    await s.destroy();
    expect(await s.status()).toBe('gone');
    const error = await rejection(provider.attach(s.id));
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toContain(s.id);
  });

  it('gives a terminal that runs the command, takes input and follows a resize', async () => {
    const s = await sandbox();
    const pty = await s.openPty!({ command: ['sh', '-c', 'stty size; read a; stty size; read b; echo "got $b"; exit 5'], timeoutMs: 20_000, columns: 90, rows: 30 });
    let screen = '';
    const seenOnScreen = (text: string) => waitFor(() => screen.includes(text), `${JSON.stringify(text)} on the terminal`, 20_000);
    pty.onData((chunk) => (screen += chunk.toString()));
    await seenOnScreen('30 90');
    pty.resize(100, 40);
    pty.write('\n');
    await seenOnScreen('40 100');
    pty.write('hello\n');
    await seenOnScreen('got hello');
    expect(await pty.exited).toBe(5);
  });
});

describe('e2b provider: configuration and refusals', () => {
  it('without the API key in the worker environment, refuses with SETUP_FAILED saying what to set', async () => {
    const missing = await sandboxProvider('e2b', { ...options, apiKeyEnv: 'GYMFLOW_TEST_NO_SUCH_E2B_KEY' });
    const error = await rejection(missing.create({ image: TEMPLATE, labels: { run, rollout: 'x', attempt: 0, user: 'tester' } }));
    expect(error.code).toBe('SETUP_FAILED');
    expect(error.message).toMatch(/set GYMFLOW_TEST_NO_SUCH_E2B_KEY to an E2B API key/);
    expect((await rejection(missing.list())).code).toBe('SETUP_FAILED');

    process.env.GYMFLOW_TEST_WRONG_E2B_KEY = 'e2b_wrong';
    try {
      const wrong = await sandboxProvider('e2b', { ...options, apiKeyEnv: 'GYMFLOW_TEST_WRONG_E2B_KEY' });
      const refused = await rejection(wrong.list());
      expect(refused.code).toBe('SETUP_FAILED');
      expect(refused.message).toMatch(/refused the API key in GYMFLOW_TEST_WRONG_E2B_KEY/);
    } finally {
      delete process.env.GYMFLOW_TEST_WRONG_E2B_KEY;
    }
    expect((await rejection(sandboxProvider('e2b', { apiKey: API_KEY }))).code).toBe('BAD_INPUT');
  });

  it('maps the network policy, and refuses what E2B cannot honour by name', async () => {
    const labels = { run, rollout: 'net', attempt: 0, user: 'tester' };
    const open = await sandbox({ network: { mode: 'host' } });
    expect(fake.sandboxes.get(open.id)!.created.allow_internet_access).toBe(true);

    const loopback = await rejection(provider.create({ image: TEMPLATE, labels, network: { mode: 'allow', endpoints: [{ host: '127.0.0.1', port: 8080 }] } }));
    expect(loopback).toMatchObject({ code: 'BAD_INPUT' });
    expect(loopback.message).toMatch(/network\.endpoints\.0.*loopback/);
    const allow = { mode: 'allow' as const, endpoints: [{ host: 'gateway.example.com', port: 443 }] };
    expect((await rejection(provider.create({ image: TEMPLATE, labels, network: allow }))).message).toMatch(/allowByHost/);
    const byHost = await (await sandboxProvider('e2b', { ...options, allowByHost: true })).create({ image: TEMPLATE, labels, network: allow });
    seen.push(byHost);
    expect(fake.sandboxes.get(byHost.id)!.created).toMatchObject({ allow_internet_access: true, network: { allowOut: ['gateway.example.com'], denyOut: ['0.0.0.0/0'] } });
    await byHost.destroy();

    expect((await rejection(provider.create({ image: TEMPLATE, labels, resources: { memoryBytes: 1 << 30 } }))).message).toMatch(/resources\.memoryBytes/);
    expect((await rejection(provider.create({ labels }))).message).toMatch(/"image"/);
    expect((await rejection(provider.create({ image: 'no-such-template', labels }))).code).toBe('SETUP_FAILED');
  });

  it('never lets the API key into what it returns, the sandbox environment, or its errors', async () => {
    const s = await sandbox();
    seen.push((await s.exec(sh('env'))).stdout, await provider.list({ run }), await s.listFiles('/tmp'));
    const everything = [...seen, provider, s].map((x) => (typeof x === 'string' ? x : `${JSON.stringify(x)}\n${inspect(x, { depth: 10, showHidden: true })}`)).join('\n');
    expect(everything).toContain(s.id);
    expect(everything).not.toContain(API_KEY);
    // The key did reach E2B: the fake checked it on every control-plane call.
    expect(fake.requests.some((r) => r.headers['x-api-key'] === API_KEY)).toBe(true);
  });
});

// The `local` provider against real bubblewrap jails: what a command inside can and cannot do (network,
// writes, host secrets), that deadlines and destroy leave no process behind, and what the file operations reach.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server } from 'node:net';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { LocalProvider, type LocalSandbox } from '../../src/sandboxes/local/provider';
import { sandboxProvider } from '../../src/sandboxes/registry';
import { exerciseShellTerminal, transcript } from '../helpers/pty';
import { waitFor } from '../helpers/worker-process';

const labels = { run: 'run-a', rollout: 'rollout-1', attempt: 0, user: 'tester' };
const NODE = '/usr/bin/node';

/** Processes whose command line has `marker` (the jails' own shells and bwrap included). */
const processesWith = (marker: string) =>
  execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(marker) && !line.includes('ps -eo'));
/** The daemons the tests start: node processes whose argv ends in `marker`. */
const daemonsWith = (marker: string) => processesWith(marker).filter((line) => /^\s*\d+ \/usr\/bin\/node -e /.test(line));

let dir: string;
let root: string;
let provider: LocalProvider;
const made: LocalSandbox[] = [];

async function sandbox(spec: Partial<Parameters<LocalProvider['create']>[0]> = {}): Promise<LocalSandbox> {
  const s = await provider.create({ labels, ...spec });
  made.push(s);
  return s;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'gymflow-local-sbx-'));
  // Jails run as nobody when the tests run as root: the root must be reachable by it.
  await chmod(dir, 0o755);
  root = path.join(dir, 'sandboxes');
  provider = new LocalProvider({ root });
});
afterEach(async () => {
  await Promise.all(made.splice(0).map((s) => s.destroy()));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('local sandbox: exec', () => {
  it('runs in the workspace at spec.workdir, streams its output and keeps tails and the exit status', async () => {
    const s = await sandbox({ workdir: '/work/task', env: { FROM_SPEC: 'spec' } });
    const chunks: string[] = [];
    const result = await s.exec(
      { command: ['sh', '-c', 'pwd; echo "$FROM_SPEC $FROM_REQUEST"; read line; echo "got $line"; echo oops >&2; exit 7'], env: { FROM_REQUEST: 'request' }, stdin: 'input\n', timeoutMs: 30_000 },
      { onOutput: (stream, chunk) => chunks.push(`${stream}:${chunk.toString()}`) },
    );
    expect(result).toMatchObject({ exitCode: 7, timedOut: false, stdout: '/work/task\nspec request\ngot input\n', stderr: 'oops\n' });
    expect(chunks.join('')).toContain('stdout:');
    expect(chunks.filter((c) => c.startsWith('stderr:')).join('')).toBe('stderr:oops\n');
  });

  it("sees none of the host's environment (keys included), in the command or in the jail's first process", async () => {
    process.env.GYMFLOW_TEST_SECRET_KEY = 'sk-host-secret';
    try {
      const s = await sandbox();
      const env = await s.exec({ command: ['env'], timeoutMs: 30_000 });
      expect(env.stdout.split('\n').sort().filter(Boolean)).toEqual([
        'HOME=/workspace',
        'LANG=C.UTF-8',
        'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
        'PWD=/workspace',
        'TMPDIR=/tmp',
      ]);
      // The jail's first process is bwrap's own, started with the outer process's environment.
      const first = await s.exec({ command: ['sh', '-c', 'tr "\\0" "\\n" < /proc/1/environ'], timeoutMs: 30_000 });
      expect(first.exitCode).toBe(0);
      expect(first.stdout).toContain('HOME=/workspace');
      expect(first.stdout).not.toContain('sk-host-secret');
    } finally {
      delete process.env.GYMFLOW_TEST_SECRET_KEY;
    }
  });

  it('has no network: only loopback exists, and a server on the host loopback cannot be reached', async () => {
    let connections = 0;
    const server: Server = createServer((socket) => {
      connections++;
      socket.end('hello');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const s = await sandbox();
      const probe = `require('net').connect(${port}, '127.0.0.1').on('connect', () => { console.log('connected'); process.exit(0) }).on('error', (e) => { console.log('error ' + e.code); process.exit(1) })`;
      const result = await s.exec({ command: ['sh', '-c', `cat /proc/net/dev; ${NODE} -e "${probe}"`], timeoutMs: 30_000 });
      const interfaces = result.stdout
        .split('\n')
        .slice(2)
        .filter((l) => l.includes(':'))
        .map((l) => l.split(':')[0]!.trim());
      expect(interfaces).toEqual(['lo']);
      expect(result.stdout).toContain('error ECONNREFUSED');
      expect(connections).toBe(0);
    } finally {
      server.close();
    }
  });

  it('writes only in the workspace and /tmp (which land in the sandbox folder); the host system is read-only and the rest of the host absent', async () => {
    const hostOnly = path.join(dir, 'host-only');
    await mkdir(hostOnly);
    await writeFile(path.join(hostOnly, 'secret.txt'), 'host file');
    const s = await sandbox();
    const script = [
      'for p in /usr/gymflow-probe /etc/gymflow-probe /gymflow-probe /bin/gymflow-probe; do (echo x > $p) 2>/dev/null && echo "wrote $p"; done',
      `cat ${hostOnly}/secret.txt 2>/dev/null && echo "read host file"`,
      'ls /root 2>/dev/null && echo "saw /root"',
      'echo in-workspace > /workspace/a.txt; echo in-tmp > /tmp/b.txt; echo done',
    ].join('\n');
    const result = await s.exec({ command: ['sh', '-c', script], timeoutMs: 30_000 });
    expect(result.stdout).toBe('done\n');
    expect(existsSync('/usr/gymflow-probe') || existsSync('/gymflow-probe')).toBe(false);
    expect(await readFile(path.join(s.dir, 'workspace', 'a.txt'), 'utf8')).toBe('in-workspace\n');
    expect(await readFile(path.join(s.dir, 'tmp', 'b.txt'), 'utf8')).toBe('in-tmp\n');
    expect((await s.readFile('/tmp/b.txt')).toString()).toBe('in-tmp\n');
  });

  it('shows spec.mounts read-only unless writable', async () => {
    const ro = path.join(dir, 'ro-mount');
    const rw = path.join(dir, 'rw-mount');
    await mkdir(ro, { recursive: true });
    await mkdir(rw, { recursive: true, mode: 0o777 });
    await chmod(rw, 0o777);
    await writeFile(path.join(ro, 'given.txt'), 'given');
    const s = await sandbox({
      mounts: [
        { hostPath: ro, path: '/opt/given' },
        { hostPath: rw, path: '/opt/out', writable: true },
      ],
    });
    const result = await s.exec({ command: ['sh', '-c', 'cat /opt/given/given.txt; (echo x > /opt/given/new) 2>/dev/null && echo "wrote ro"; echo made > /opt/out/made.txt'], timeoutMs: 30_000 });
    expect(result.stdout).toBe('given');
    expect(await readFile(path.join(rw, 'made.txt'), 'utf8')).toBe('made\n');
  });

  it('holds a file-size limit from spec.resources', async () => {
    const s = await sandbox({ resources: { fileSizeBytes: 1024 * 1024 } });
    const result = await s.exec({ command: ['sh', '-c', 'head -c 3000000 /dev/zero > big; echo $?; wc -c < big'], timeoutMs: 30_000 });
    expect(result.stdout.split('\n')[1]).toBe('1048576');
  });

  it('kills the command and everything it started (a setsid daemon too) at the deadline', async () => {
    const marker = `gymflow-daemon-${process.pid}-${Date.now()}`;
    const s = await sandbox();
    const result = await s.exec({ command: ['sh', '-c', `setsid ${NODE} -e "setInterval(() => {}, 1000)" ${marker} & echo started; sleep 1000`], timeoutMs: 2_000 });
    expect(result).toMatchObject({ timedOut: true, exitCode: null, signal: 'SIGKILL', stdout: 'started\n' });
    expect(processesWith(marker)).toEqual([]);
  });

  it('an aborted exec is killed like a timed-out one, its output so far kept', async () => {
    const s = await sandbox();
    const abort = new AbortController();
    const result = await s.exec(
      { command: ['sh', '-c', 'echo before; sleep 1000'], timeoutMs: 600_000 },
      { signal: abort.signal, onOutput: (_stream, chunk) => chunk.toString().includes('before') && abort.abort() },
    );
    expect(result).toMatchObject({ timedOut: false, signal: 'SIGKILL', stdout: 'before\n' });
  });
});

describe('local sandbox: network policy allow', () => {
  const listen = (handler: http.RequestListener) =>
    new Promise<http.Server>((resolve) => {
      const server = http.createServer(handler);
      server.listen(0, '127.0.0.1', () => resolve(server));
    });
  const fetchInside = (url: string) =>
    `fetch(${JSON.stringify(url)}).then(async (r) => console.log(${JSON.stringify(url)}, r.status, await r.text()), (e) => console.log(${JSON.stringify(url)}, 'failed', e.cause?.code ?? e.message))`;

  it('reaches each allowed host:port at the same URL from inside, and nothing else', async () => {
    const seen: string[] = [];
    const gateway = await listen((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.end('gateway answers');
    });
    const other = await listen((_req, res) => res.end('should not be reachable'));
    const port = (gateway.address() as AddressInfo).port;
    const otherPort = (other.address() as AddressInfo).port;
    try {
      const s = await sandbox({ network: { mode: 'allow', endpoints: [{ host: '127.0.0.1', port }] } });
      const urls = [`http://127.0.0.1:${port}/v1/models`, `http://localhost:${port}/again`, `http://127.0.0.1:${otherPort}/`, 'http://10.255.255.1:80/'];
      const result = await s.exec({ command: [NODE, '-e', `Promise.all([${urls.map(fetchInside).join(',')}])`], timeoutMs: 60_000 });
      const lines = result.stdout.trim().split('\n').sort();
      expect(lines).toEqual(
        [
          `http://127.0.0.1:${port}/v1/models 200 gateway answers`,
          `http://localhost:${port}/again 200 gateway answers`,
          `http://127.0.0.1:${otherPort}/ failed ECONNREFUSED`,
          expect.stringMatching(/^http:\/\/10\.255\.255\.1:80\/ failed E(NETUNREACH|HOSTUNREACH|CONNREFUSED)$/),
        ].sort(),
      );
      expect(seen.sort()).toEqual(['GET /again', 'GET /v1/models']);
      expect(result.exitCode).toBe(0);
    } finally {
      gateway.close();
      other.close();
    }
  });

  it('serves a detached command too, and passes its exit status through the forwarder', async () => {
    const gateway = await listen((_req, res) => res.end('detached ok'));
    const port = (gateway.address() as AddressInfo).port;
    try {
      const s = await sandbox({ network: { mode: 'allow', endpoints: [{ host: '127.0.0.1', port }] } });
      await s.startCommand(
        { command: [NODE, '-e', `fetch('http://127.0.0.1:${port}/').then(async (r) => { console.log(await r.text()); process.exit(5) })`], timeoutMs: 60_000 },
        { commandId: 'net' },
      );
      expect(await s.commandStatus('net', { waitMs: 60_000 })).toMatchObject({ state: 'exited', exitCode: 5, stdoutTail: 'detached ok\n' });
    } finally {
      gateway.close();
    }
  });

  it('refuses two hosts on one port', async () => {
    await expect(
      provider.create({
        labels,
        network: {
          mode: 'allow',
          endpoints: [
            { host: 'a.test', port: 80 },
            { host: 'b.test', port: 80 },
          ],
        },
      }),
    ).rejects.toMatchObject({ code: 'BAD_INPUT' });
  });
});

describe('local sandbox: detached commands', () => {
  it('runs a command once per id, reports it running then exited with its tails, and waits boundedly', async () => {
    const s = await sandbox();
    const request = { command: ['sh', '-c', 'echo run >> /workspace/runs; echo out; echo err >&2; read go < /tmp/go-fifo; exit 4'], timeoutMs: 120_000 };
    await s.exec({ command: ['mkfifo', '/tmp/go-fifo'], timeoutMs: 30_000 });
    expect(await s.startCommand(request, { commandId: 'step-1' })).toEqual({ commandId: 'step-1' });
    expect(await s.startCommand(request, { commandId: 'step-1' })).toEqual({ commandId: 'step-1' });
    const running = await s.commandStatus('step-1', { waitMs: 300 });
    expect(running.state).toBe('running');
    await s.exec({ command: ['sh', '-c', 'echo go > /tmp/go-fifo'], timeoutMs: 30_000 });
    const exited = await s.commandStatus('step-1', { waitMs: 60_000 });
    expect(exited).toMatchObject({ state: 'exited', exitCode: 4, timedOut: false, stdoutTail: 'out\n', stderrTail: 'err\n' });
    expect((await s.readFile('runs')).toString()).toBe('run\n');
  });

  it('is found again by id from another provider instance (another worker), and killed with everything it started', async () => {
    const marker = `gymflow-detached-${process.pid}-${Date.now()}`;
    const s = await sandbox();
    await s.startCommand({ command: ['sh', '-c', `setsid ${NODE} -e "setInterval(() => {}, 1000)" ${marker} & sleep 1000`], timeoutMs: 600_000 }, { commandId: 'long' });
    const other = await new LocalProvider({ root }).attach(s.id);
    await vi.waitFor(() => expect(daemonsWith(marker)).toHaveLength(1), { timeout: 30_000, interval: 100 });
    await other.killCommand('long');
    expect(await other.commandStatus('long')).toMatchObject({ state: 'exited', exitCode: null });
    expect(processesWith(marker)).toEqual([]);
  });

  it('is killed by a kill sent right after its start, before its supervisor has said who it is', async () => {
    const s = await sandbox();
    const marker = `gymflow-early-kill-${process.pid}-${Date.now()}`;
    await s.startCommand({ command: ['sh', '-c', `exec /usr/bin/node -e "setInterval(() => {}, 1000)" ${marker}`], timeoutMs: 600_000 }, { commandId: 'early' });
    await s.killCommand('early');
    const status = await s.commandStatus('early', { waitMs: 30_000 });
    expect(status.state).toBe('exited');
    expect(daemonsWith(marker)).toEqual([]);
  });

  it('is killed at its deadline even though nobody waits on it', async () => {
    const s = await sandbox();
    await s.startCommand({ command: ['sleep', '1000'], timeoutMs: 1_500 }, { commandId: 'short' });
    await vi.waitFor(async () => expect((await s.commandStatus('short')).state).toBe('exited'), { timeout: 60_000, interval: 200 });
    expect(await s.commandStatus('short')).toMatchObject({ timedOut: true, exitCode: null });
  });

  it('refuses an unsafe command id and names an unknown one', async () => {
    const s = await sandbox();
    await expect(s.startCommand({ command: ['true'], timeoutMs: 1000 }, { commandId: '../escape' })).rejects.toMatchObject({ code: 'BAD_INPUT' });
    await expect(s.commandStatus('never-started')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('local sandbox: terminals', () => {
  it('runs a command on a real pty of the asked size: echoed input, resize, ctrl-C, and its exit code', async () => {
    const s = await sandbox();
    const pty = await s.openPty({ command: ['sh'], env: { PS1: '$ ' }, columns: 100, rows: 30, timeoutMs: 60_000 });
    await exerciseShellTerminal(pty);
  });

  it('is killed by kill() and at its deadline, leaving no process; a bad size is refused naming the field', async () => {
    const s = await sandbox();
    // A duration no other test's process has: docker's and apptainer's tests run `sleep 300` on this host too.
    const sleepFor = `300.${process.pid}`;
    const killed = await s.openPty({ command: ['sh', '-c', `echo ready-$((6*7)); exec sleep ${sleepFor}`], timeoutMs: 60_000 });
    await transcript(killed).until(/ready-42/);
    killed.kill();
    expect(await killed.exited).toBeNull();
    const late = await s.openPty({ command: ['sleep', sleepFor], timeoutMs: 1_500 });
    expect(await late.exited).toBeNull();
    // The pty's command is in its own session, out of the jail's process group: the pid namespace's teardown
    // kills it, which the kernel finishes a moment after the jail's exit on a loaded machine.
    await waitFor(() => processesWith(`sleep ${sleepFor}`).length === 0, 'the deadline-killed terminal command to be gone', 15_000);
    await expect(s.openPty({ command: ['sh'], columns: 0, timeoutMs: 1_000 })).rejects.toMatchObject({ code: 'BAD_INPUT', message: expect.stringContaining('"columns"') });
    const fine = await s.openPty({ command: ['sh', '-c', 'read x; echo "[$x]"'], timeoutMs: 60_000 });
    expect(() => fine.resize(10, 70_000)).toThrow(/rows/);
    fine.write('typed\n');
    await transcript(fine).until(/\[typed\]/);
    expect(await fine.exited).toBe(0);
  });

  it('refuses with SETUP_FAILED when its root file system has no python3 for the relay', async () => {
    const image = path.join(dir, 'image-without-python');
    await mkdir(path.join(image, 'usr', 'bin'), { recursive: true });
    const s = await sandbox({ image });
    await expect(s.openPty({ command: ['sh'], timeoutMs: 1_000 })).rejects.toMatchObject({ code: 'SETUP_FAILED', message: expect.stringContaining('python3') });
  });
});

describe('local sandbox: files', () => {
  it('writes, reads, lists, uploads and downloads inside the workspace and /tmp; the jail can use what was written', async () => {
    const s = await sandbox();
    await s.writeFile('/workspace/src/main.sh', 'echo from-file\n', { mode: 0o755 });
    expect((await s.exec({ command: ['sh', '-c', './src/main.sh; echo changed >> src/main.sh && echo appended'], timeoutMs: 30_000 })).stdout).toBe('from-file\nappended\n');
    expect(await s.listFiles('/workspace')).toEqual([{ name: 'src', type: 'directory', sizeBytes: 0 }]);
    const upload = path.join(dir, 'upload');
    await mkdir(path.join(upload, 'deep'), { recursive: true });
    await writeFile(path.join(upload, 'deep', 'f.txt'), 'uploaded');
    await s.upload(upload, '/tmp/up');
    expect((await s.exec({ command: ['sh', '-c', 'cat /tmp/up/deep/f.txt && touch /tmp/up/deep/g && echo ok'], timeoutMs: 30_000 })).stdout).toBe('uploadedok\n');
    const out = path.join(dir, 'download');
    await s.download('/workspace/src', out);
    expect(await readFile(path.join(out, 'main.sh'), 'utf8')).toBe('echo from-file\nchanged\n');
  });

  it('refuses paths outside the workspace and /tmp, by .. or by a symlink the sandbox made', async () => {
    const s = await sandbox();
    await s.exec({ command: ['sh', '-c', 'ln -s /etc/passwd abs; ln -s ../../../../sandbox.json rel; mkdir real; echo inside > real/f; ln -s /workspace/real ok; ln -s /usr up'], timeoutMs: 30_000 });
    for (const bad of ['/workspace/../sandbox.json', '../sandbox.json', '/etc/passwd', 'abs', 'rel', 'up/bin/sh']) {
      await expect(s.readFile(bad), bad).rejects.toMatchObject({ code: 'BAD_INPUT' });
    }
    await expect(s.writeFile('abs', 'x')).rejects.toMatchObject({ code: 'BAD_INPUT' });
    await expect(s.writeFile('up/evil', 'x')).rejects.toMatchObject({ code: 'BAD_INPUT' });
    expect((await s.readFile('ok/f')).toString()).toBe('inside\n');
    await expect(s.readFile('missing')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    // The download leaves the sandbox's symlinks behind, so nothing outside points at the host's files.
    const out = path.join(dir, 'download-links');
    await s.download('/workspace', out);
    expect(existsSync(path.join(out, 'abs'))).toBe(false);
    expect(existsSync(path.join(out, 'real', 'f'))).toBe(true);
  });
});

describe('local sandbox: lifecycle', () => {
  it('destroy kills every jail (an exec in flight, a detached daemon), removes the folder, and is idempotent', async () => {
    const marker = `gymflow-destroy-${process.pid}-${Date.now()}`;
    const s = await sandbox();
    await s.startCommand({ command: ['sh', '-c', `setsid ${NODE} -e "setInterval(() => {}, 1000)" ${marker}-detached & sleep 1000`], timeoutMs: 600_000 });
    const inFlight = s.exec({ command: ['sh', '-c', `setsid ${NODE} -e "setInterval(() => {}, 1000)" ${marker}-exec & echo up; sleep 1000`], timeoutMs: 600_000 }, {});
    await vi.waitFor(() => expect(daemonsWith(marker)).toHaveLength(2), { timeout: 30_000, interval: 100 });
    await s.destroy();
    expect((await inFlight).signal).toBe('SIGKILL');
    expect(processesWith(marker)).toEqual([]);
    expect(existsSync(s.dir)).toBe(false);
    await s.destroy();
    expect(await s.status()).toBe('gone');
    await expect(provider.attach(s.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(s.exec({ command: ['true'], timeoutMs: 1000 })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('records labels, owner and expiry in sandbox.json without secret env values, and lists by label', async () => {
    const a = await sandbox({ env: { OPENAI_API_KEY: 'sk-not-in-record', MODE: 'plain' }, resources: { lifetimeMs: 60_000 } });
    const b = await sandbox({ labels: { ...labels, run: 'run-b' } });
    const record = await readFile(path.join(a.dir, 'sandbox.json'), 'utf8');
    expect(record).not.toContain('sk-not-in-record');
    expect(JSON.parse(record)).toMatchObject({ id: a.id, labels, owner: { pid: process.pid }, spec: { env: { MODE: 'plain' } } });
    // The secret still reaches the command, from an attached sandbox too.
    const attached = await new LocalProvider({ root }).attach(a.id);
    expect((await attached.exec({ command: ['sh', '-c', 'echo $OPENAI_API_KEY'], timeoutMs: 30_000 })).stdout).toBe('sk-not-in-record\n');
    const listed = await provider.list();
    expect(listed.map((i) => i.id).sort()).toEqual([a.id, b.id].sort());
    expect(listed.find((i) => i.id === a.id)).toMatchObject({ provider: 'local', state: 'running', ownerAlive: true, labels });
    expect(Date.parse(listed.find((i) => i.id === a.id)!.expiresAt!)).toBeGreaterThan(Date.parse(listed.find((i) => i.id === a.id)!.createdAt));
    expect((await provider.list({ run: 'run-b' })).map((i) => i.id)).toEqual([b.id]);
  });

  it.runIf(process.getuid?.() === 0)('as root, names a private parent folder the jail user cannot pass instead of failing in bwrap', async () => {
    const hidden = path.join(dir, 'private-home');
    await mkdir(hidden, { mode: 0o700 });
    await chmod(hidden, 0o700);
    const blocked = new LocalProvider({ root: path.join(hidden, 'sandboxes') });
    await expect(blocked.create({ labels })).rejects.toMatchObject({
      code: 'SETUP_FAILED',
      message: expect.stringContaining(`${hidden} (mode 700) does not let others through; set GYMFLOW_SANDBOX_ROOT`),
    });
    expect(existsSync(path.join(hidden, 'sandboxes')) ? readdirSync(path.join(hidden, 'sandboxes')) : []).toEqual([]);
  });

  it('is made through the registry, which names an unknown provider', async () => {
    const p = await sandboxProvider('local', { root });
    expect(p.name).toBe('local');
    await expect(sandboxProvider('nope')).rejects.toMatchObject({ code: 'BAD_INPUT' });
    await expect(sandboxProvider('local', { rooot: root })).rejects.toMatchObject({ code: 'BAD_INPUT' });
  });

  it('refuses a bad spec naming its field', async () => {
    await expect(provider.create({ labels, workdir: 'relative' })).rejects.toThrow(/workdir/);
    await expect(provider.create({ labels, image: path.join(dir, 'no-such-rootfs') })).rejects.toThrow(/image/);
    await expect(provider.create({ labels, user: 'alice' })).rejects.toThrow(/user/);
  });
});

describe('local sandbox without bwrap', () => {
  it('refuses with SETUP_FAILED, and with unsafeNoIsolation runs plain processes after one loud warning', async () => {
    const path0 = process.env.PATH;
    const emptyBin = path.join(dir, 'no-bwrap-bin');
    await mkdir(emptyBin, { recursive: true });
    process.env.PATH = emptyBin;
    const warnings: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (warnings.push(String(chunk)), true));
    try {
      await expect(new LocalProvider({ root }).create({ labels })).rejects.toMatchObject({ code: 'SETUP_FAILED', message: expect.stringMatching(/bubblewrap/) });
      const unsafe = new LocalProvider({ root, unsafeNoIsolation: true });
      const s1 = await unsafe.create({ labels });
      const s2 = await unsafe.create({ labels });
      made.push(s1, s2);
      expect(warnings.filter((w) => w.includes('WARNING')).length).toBe(1);
      expect((await s1.exec({ command: ['sh', '-c', 'echo plain'], timeoutMs: 30_000 })).stdout).toBe('plain\n');
    } finally {
      spy.mockRestore();
      process.env.PATH = path0;
    }
  });
});

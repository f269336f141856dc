// The sandbox lifecycle activities on a real Temporal dev server and real worker processes: a worker
// SIGKILLed mid-exec is replaced by another that re-attaches to the same command (it runs once), and
// nothing — folder or jail process — is left once the workflow has torn the sandbox down.
import { spawn, type ChildProcess, execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reapOrphans } from '../../src/sandboxes/gc';
import { startTestServer, type TestServer } from '../helpers/temporal-server';
import { waitFor } from '../helpers/worker-process';

const WORKER = path.join(import.meta.dirname, '../helpers/sandbox-worker.ts');
const labels = { run: 'run-durable', rollout: 'r-1', attempt: 0, user: 'tester' };

let server: TestServer;
let dir: string;
let root: string;
const workers: ChildProcess[] = [];

function startWorker(taskQueue: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER, server.address, taskQueue], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, GYMFLOW_SANDBOX_ROOT: root } });
  workers.push(child);
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('ready')) resolve(child);
    });
    child.stderr!.on('data', (d) => (out += d));
    child.once('exit', (code) => reject(new Error(`sandbox worker exited (${code}):\n${out}`)));
  });
}

const kill = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });

beforeAll(async () => {
  server = await startTestServer();
  dir = await mkdtemp(path.join(tmpdir(), 'gymflow-sbx-durable-'));
  await chmod(dir, 0o755);
  root = path.join(dir, 'sandboxes');
});
afterAll(async () => {
  await Promise.all(workers.map(kill));
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('durable sandbox lifecycle', () => {
  it('a worker SIGKILLed mid-exec: the retry on another worker re-attaches to the same command, and teardown leaves nothing', async () => {
    const taskQueue = `sandbox-durable-${process.pid}`;
    const marker = `gymflow-durable-${process.pid}-${Date.now()}`;
    const first = await startWorker(taskQueue);
    const client = await server.client();
    // The command counts its own runs, and waits for a go the test gives after the first worker is dead.
    const script = [
      'echo run >> /workspace/runs',
      `setsid /usr/bin/node -e "setInterval(() => {}, 1000)" ${marker} &`,
      'while [ ! -e /workspace/go ]; do sleep 0.1; done',
      'echo "runs: $(wc -l < /workspace/runs)"',
    ].join('\n');
    const handle = await client.workflow.start('sandboxedCommand', {
      taskQueue,
      workflowId: `sandbox-durable-${Date.now()}`,
      args: [{ provision: { providerOptions: { root }, spec: { labels } }, exec: { request: { command: ['sh', '-c', script], timeoutMs: 300_000 } } }],
    });
    const sandboxDir = () => readdirSync(root).find((n) => n.startsWith('sbx-'));
    await waitFor(() => existsSync(root) && sandboxDir() !== undefined && existsSync(path.join(root, sandboxDir()!, 'workspace', 'runs')), 'the command to start');
    const second = await startWorker(taskQueue);
    await kill(first);
    // The go, written as the sandbox's user would: the command is still running without its worker.
    const workspace = path.join(root, sandboxDir()!, 'workspace');
    execFileSync('sh', ['-c', `touch ${workspace}/go && chmod 666 ${workspace}/go`]);
    const result = (await handle.result()) as { sandboxId: string; exitCode: number; stdoutTail: string; attempt: number };
    expect(result).toMatchObject({ exitCode: 0, stdoutTail: 'runs: 1\n' });
    expect(result.attempt).toBeGreaterThan(1);
    expect(second.exitCode).toBeNull();
    expect(existsSync(path.join(root, result.sandboxId))).toBe(false);
    expect(
      execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
        .split('\n')
        .filter((l) => l.startsWith('/usr/bin/node -e') && l.includes(marker)),
    ).toEqual([]);
    process.env.GYMFLOW_SANDBOX_ROOT = root;
    try {
      expect(await reapOrphans(undefined, ['local'])).toEqual([]);
    } finally {
      delete process.env.GYMFLOW_SANDBOX_ROOT;
    }
    expect(readdirSync(root)).toEqual([]);
  }, 480_000); // two worker subprocesses and a heartbeat timeout: minutes on a loaded 2-core machine
});

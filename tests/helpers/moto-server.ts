// A real S3-compatible server for the object store tests: moto's (PyPI moto[server], the venv
// scripts/setup-moto.sh makes) on a loopback port, as a subprocess. `auth`: it checks credentials (any key
// is then refused, as a store refuses a wrong one).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { releasePort, reservePort } from './ports';

const ROOT = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

export interface MotoServer {
  endpoint: string;
  /** The AWS_* settings a process needs to use this server (test credentials; moto takes any unless `auth`). */
  env: Record<string, string>;
  output(): string;
  stop(): Promise<void>;
}

export const TEST_ACCESS_KEY = 'AKIAGYMFLOWTEST00001';
export const TEST_SECRET_KEY = 'gymflow-test-secret-Zq8rT3vW9xY2';

export async function startMotoServer(opts: { auth?: boolean } = {}): Promise<MotoServer> {
  const { stdout } = await run('bash', [path.join(ROOT, 'scripts/setup-moto.sh')], { timeout: 600_000 });
  const venv = stdout.trim().split('\n').at(-1)!;
  const port = await reservePort();
  let output = '';
  const child: ChildProcess = spawn(path.join(venv, 'bin', 'moto_server'), ['-H', '127.0.0.1', '-p', String(port)], {
    env: { ...process.env, PYTHONUNBUFFERED: '1', ...(opts.auth ? { INITIAL_NO_AUTH_ACTION_COUNT: '0' } : {}) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (c: Buffer) => (output = (output + c.toString()).slice(-20_000)));
  child.stderr!.on('data', (c: Buffer) => (output = (output + c.toString()).slice(-20_000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const endpoint = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`moto_server exited with ${child.exitCode} before it answered:\n${output}`);
    const up = await fetch(`${endpoint}/moto-api/`).then(
      (r) => r.status < 500,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`moto_server did not answer within 60 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    endpoint,
    env: { AWS_ENDPOINT_URL: endpoint, AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: TEST_ACCESS_KEY, AWS_SECRET_ACCESS_KEY: TEST_SECRET_KEY },
    output: () => output,
    async stop() {
      child.kill('SIGTERM');
      const killed = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(killed);
      releasePort(port);
    },
  };
}

/** Makes a bucket on the server (through its S3 API, as any client would). */
export async function createBucket(server: MotoServer, bucket: string): Promise<void> {
  const res = await fetch(`${server.endpoint}/${bucket}`, { method: 'PUT' });
  if (!res.ok) throw new Error(`cannot create bucket ${bucket}: HTTP ${res.status} ${await res.text()}`);
}

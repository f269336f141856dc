// A real S3-compatible server for the object store tests: moto's (PyPI moto[server], the venv
// scripts/setup-moto.sh makes) on a loopback port, as a subprocess. `auth`: it checks credentials (any key
// is then refused, as a store refuses a wrong one).
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { releasePort, reservePort } from './ports';
import { startServerProcess } from './server-process';

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
  const endpoint = `http://127.0.0.1:${port}`;
  const server = await startServerProcess({
    name: 'moto_server',
    command: path.join(venv, 'bin', 'moto_server'),
    args: ['-H', '127.0.0.1', '-p', String(port)],
    env: { ...process.env, PYTHONUNBUFFERED: '1', ...(opts.auth ? { INITIAL_NO_AUTH_ACTION_COUNT: '0' } : {}) },
    ready: async () => (await fetch(`${endpoint}/moto-api/`)).status < 500,
    timeoutMs: 60_000,
  }).catch((e: unknown) => {
    releasePort(port);
    throw e;
  });
  return {
    endpoint,
    env: { AWS_ENDPOINT_URL: endpoint, AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: TEST_ACCESS_KEY, AWS_SECRET_ACCESS_KEY: TEST_SECRET_KEY },
    output: server.output,
    async stop() {
      await server.stop();
      releasePort(port);
    },
  };
}

/** Makes a bucket on the server (through its S3 API, as any client would). */
export async function createBucket(server: MotoServer, bucket: string): Promise<void> {
  const res = await fetch(`${server.endpoint}/${bucket}`, { method: 'PUT' });
  if (!res.ok) throw new Error(`cannot create bucket ${bucket}: HTTP ${res.status} ${await res.text()}`);
}

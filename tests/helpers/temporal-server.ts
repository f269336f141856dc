// A real Temporal dev server for a test file: the same binary and flags as the embedded default, on
// reserved ports, with its SQLite file in a temporary folder, so it can be killed and restarted.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { GymError } from '../../src/errors';
import { readServerInfo, startDevServer, stopDevServer, type ServerInfo } from '../../src/temporal/dev-server';
import { releasePort, reservePort } from './ports';
import { pidAlive } from '../../src/util/process';

/**
 * Every port the dev server binds that a flag can set. Its history, matching and worker services
 * always take kernel-chosen (ephemeral) ports, which is why ours lie below that range.
 */
export interface ServerPorts {
  port: number;
  httpPort: number;
  metricsPort: number;
}

const MAX_ATTEMPTS = 5;

export async function reserveServerPorts(): Promise<ServerPorts> {
  return { port: await reservePort(), httpPort: await reservePort(), metricsPort: await reservePort() };
}

function releaseServerPorts(ports: ServerPorts): void {
  for (const p of Object.values(ports)) releasePort(p);
}

export interface TestServer {
  info: ServerInfo;
  dir: string;
  address: string;
  ports: ServerPorts;
  client(): Promise<Client>;
  /** Kills the server (SIGKILL by default) and starts it again on the same ports and database. */
  restart(signal?: NodeJS.Signals): Promise<void>;
  stop(): Promise<void>;
}

export interface TestServerOptions {
  /** Where each attempt's ports come from; tests of the retry hand out a taken port first. */
  reservePorts?: () => Promise<ServerPorts>;
}

/**
 * Starts a server, retrying with new ports when one was taken between reservation and bind (the
 * server says "address already in use", or exits before it listens); other failures throw at once.
 */
export async function startTestServer(dynamicConfig?: Record<string, unknown>, opts: TestServerOptions = {}): Promise<TestServer> {
  const failures: string[] = [];
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const ports = await (opts.reservePorts ?? reserveServerPorts)();
    const dir = await mkdtemp(path.join(os.tmpdir(), 'gymflow-temporal-'));
    try {
      const info = await startDevServer({ dir, ...ports, uiPort: null, dynamicConfig });
      return testServer(dir, ports, info, dynamicConfig);
    } catch (e) {
      const spawned = await readServerInfo(dir);
      const exited = spawned !== undefined && !pidAlive(spawned.pid);
      const log = await readFile(path.join(dir, 'temporal-server.log'), 'utf8').catch(() => '');
      await stopDevServer(dir, 'SIGKILL');
      releaseServerPorts(ports);
      await rm(dir, { recursive: true, force: true });
      const taken = (e instanceof GymError && e.code === 'CONFLICT') || /address already in use/i.test(log);
      if (!taken && !exited) throw e;
      const lastLogLine = log.trim().split('\n').at(-1) ?? '';
      failures.push(`attempt ${attempt} on ports ${JSON.stringify(ports)}: ${(e as Error).message.split('\n')[0]} ${lastLogLine}`);
    }
  }
  throw new GymError('SETUP_FAILED', `the test Temporal server did not start in ${MAX_ATTEMPTS} attempts, each on new ports:\n${failures.join('\n')}`);
}

function testServer(dir: string, ports: ServerPorts, first: ServerInfo, dynamicConfig?: Record<string, unknown>): TestServer {
  let info = first;
  const connections: Connection[] = [];
  return {
    get info() {
      return info;
    },
    dir,
    address: info.address,
    ports,
    async client() {
      const connection = await Connection.connect({ address: info.address });
      connections.push(connection);
      return new Client({ connection });
    },
    async restart(signal = 'SIGKILL') {
      await stopDevServer(dir, signal);
      // The ports stay reserved by this process, so the restarted server finds them free.
      info = await startDevServer({ dir, ...ports, uiPort: null, dynamicConfig });
    },
    async stop() {
      await Promise.all(connections.map((c) => c.close().catch(() => {})));
      await stopDevServer(dir);
      releaseServerPorts(ports);
    },
  };
}

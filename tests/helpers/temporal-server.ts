// A real Temporal dev server for a test file: the same binary and flags as the embedded default, on
// a free port, with its SQLite file in a temporary folder, so it can be killed and restarted.
import { mkdtemp } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { startDevServer, stopDevServer, type ServerInfo } from '../../src/temporal/dev-server';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export interface TestServer {
  info: ServerInfo;
  dir: string;
  address: string;
  client(): Promise<Client>;
  /** Kills the server (SIGKILL by default) and starts it again on the same port and database. */
  restart(signal?: NodeJS.Signals): Promise<void>;
  stop(): Promise<void>;
}

export async function startTestServer(dynamicConfig?: Record<string, unknown>): Promise<TestServer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gymflow-temporal-'));
  const port = await freePort();
  const start = () => startDevServer({ dir, port, uiPort: null, dynamicConfig });
  let info = await start();
  const connections: Connection[] = [];
  return {
    get info() {
      return info;
    },
    dir,
    address: info.address,
    async client() {
      const connection = await Connection.connect({ address: info.address });
      connections.push(connection);
      return new Client({ connection });
    },
    async restart(signal = 'SIGKILL') {
      await stopDevServer(dir, signal);
      info = await start();
    },
    async stop() {
      await Promise.all(connections.map((c) => c.close().catch(() => {})));
      await stopDevServer(dir);
    },
  };
}

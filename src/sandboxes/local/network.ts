// The `allow` network policy of a local sandbox: the jail has no network of its own, and each allowed
// host:port is a Unix socket (served here, connecting to the real endpoint) that forwarder.mjs in the jail
// listens for on 127.0.0.1, so the sandbox reaches those endpoints, by their names, and nothing else.
import { chmod, mkdir, rm } from 'node:fs/promises';
import { createConnection, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GymError } from '../../errors';
import type { NetworkPolicy } from '../schema';
import type { JailMount } from './bwrap';

const FORWARDER = fileURLToPath(new URL('./forwarder.mjs', import.meta.url));
/** Where the jail sees the sockets, the forwarder and the node that runs it. */
export const JAIL_NET_DIR = '/run/gymflow-net';
const MAX_SOCKET_PATH = 107;

type Endpoint = Extract<NetworkPolicy, { mode: 'allow' }>['endpoints'][number];

/** The names the jail's /etc/hosts maps to its loopback, so an endpoint's URL works unchanged inside. */
export function allowedHostNames(endpoints: readonly Endpoint[]): string[] {
  return [...new Set(endpoints.map((e) => e.host).filter((h) => h !== 'localhost' && !/^[\d.]+$/.test(h) && !h.includes(':')))];
}

/** Two endpoints on one port would need one listener for two hosts: refused when the sandbox is made. */
export function checkEndpoints(endpoints: readonly Endpoint[]): void {
  const seen = new Map<number, string>();
  for (const [i, e] of endpoints.entries()) {
    const other = seen.get(e.port);
    if (other !== undefined && other !== e.host) {
      throw new GymError('BAD_INPUT', `sandbox spec field "network.endpoints.${i}": port ${e.port} is already allowed for ${other}; inside the sandbox each allowed port serves one host`);
    }
    seen.set(e.port, e.host);
  }
}

/** The Unix sockets of one sandbox, served by this process while it runs the sandbox's commands. */
export class HostForwarders {
  private servers: Server[] = [];
  private starting?: Promise<void>;

  constructor(
    private readonly dir: string,
    private readonly endpoints: readonly Endpoint[],
  ) {}

  private socket(i: number): string {
    return join(this.dir, `${i}.sock`);
  }

  /** Serves every endpoint's socket (taking it over from a dead worker's); once per process. */
  start(): Promise<void> {
    this.starting ??= this.listen();
    return this.starting;
  }

  private async listen(): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o711 });
    for (const [i, endpoint] of this.endpoints.entries()) {
      const path = this.socket(i);
      if (path.length > MAX_SOCKET_PATH) {
        throw new GymError('SETUP_FAILED', `the sandbox's socket path ${path} is longer than ${MAX_SOCKET_PATH} bytes: set a shorter sandbox root (GYMFLOW_SANDBOX_ROOT)`);
      }
      await rm(path, { force: true });
      const server = createServer((inside) => {
        const outside = createConnection({ host: endpoint.host, port: endpoint.port });
        inside.pipe(outside).pipe(inside);
        inside.on('error', () => outside.destroy());
        outside.on('error', () => inside.destroy());
      });
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(path, resolve);
      });
      // The jail's user connects to it; the sandbox folder around it is closed to everyone else.
      await chmod(path, 0o666);
      server.unref();
      this.servers.push(server);
    }
  }

  /** What the jail needs: the socket folder, the forwarder and a node to run it, and the wrapped command. */
  jail(command: readonly string[]): { mounts: JailMount[]; command: string[] } {
    const routes = this.endpoints.map((e, i) => ({ port: e.port, socket: `${JAIL_NET_DIR}/sockets/${i}.sock` }));
    return {
      mounts: [
        { hostPath: this.dir, path: `${JAIL_NET_DIR}/sockets`, writable: false },
        { hostPath: FORWARDER, path: `${JAIL_NET_DIR}/forwarder.mjs`, writable: false },
        { hostPath: process.execPath, path: `${JAIL_NET_DIR}/node`, writable: false },
      ],
      command: [`${JAIL_NET_DIR}/node`, `${JAIL_NET_DIR}/forwarder.mjs`, JSON.stringify(routes), '--', ...command],
    };
  }

  async close(): Promise<void> {
    await Promise.all(this.servers.map((s) => new Promise((resolve) => s.close(resolve))));
    this.servers = [];
    this.starting = undefined;
  }
}

// The `allow` network policy for containers that have no network: on the host, one Unix socket per
// allowed endpoint that relays to it; inside, a python3 relay listening on 127.0.0.1:port for each socket.
import { chmodSync, mkdirSync, rmSync, unlinkSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { GymError } from '../../errors';

export interface Endpoint {
  host: string;
  port: number;
}

/** Where the host's sockets appear inside the container (a read-only bind of their folder). */
export const FORWARD_MOUNT = '/run/gymflow-forward';

export function socketName(index: number): string {
  return `${index}.sock`;
}

/**
 * Inside the container each endpoint is reached at its own host:port, so a port serves one host; a name
 * is pointed at 127.0.0.1 in /etc/hosts (the `ExtraHosts` returned), and an address has to be a
 * loopback one, since the container has no other interface.
 */
export function checkEndpoints(endpoints: readonly Endpoint[]): string[] {
  const seen = new Map<number, string>();
  const extraHosts: string[] = [];
  for (const [i, e] of endpoints.entries()) {
    const field = `sandbox spec field "network.endpoints.${i}": ${e.host}:${e.port}`;
    const other = seen.get(e.port);
    if (other !== undefined && other !== e.host) throw new GymError('BAD_INPUT', `${field}: port ${e.port} is already allowed for ${other}; inside the sandbox each allowed port serves one host`);
    seen.set(e.port, e.host);
    if (net.isIP(e.host) === 0) {
      if (e.host !== 'localhost') extraHosts.push(`${e.host}:127.0.0.1`);
    } else if (!e.host.startsWith('127.')) {
      throw new GymError('BAD_INPUT', `${field}: the docker provider forwards an allowed endpoint to the container's loopback, so give a host name or a loopback address`);
    }
  }
  return [...new Set(extraHosts)];
}

/** The host half: listens on `dir/<i>.sock` for each endpoint, relaying every connection to it. */
export async function listenForwarders(dir: string, endpoints: readonly Endpoint[]): Promise<() => Promise<void>> {
  mkdirSync(dir, { recursive: true });
  // Made by mkdtemp (0700): the sandbox's user must reach the sockets inside.
  chmodSync(dir, 0o755);
  const servers: net.Server[] = [];
  for (const [i, endpoint] of endpoints.entries()) {
    const socketPath = path.join(dir, socketName(i));
    // A socket file left by a worker that died: listening again on it is how a retry takes over.
    rmSync(socketPath, { force: true });
    const server = net.createServer((inside) => {
      const outside = net.connect(endpoint.port, endpoint.host);
      inside.pipe(outside).on('error', () => inside.destroy());
      outside.pipe(inside).on('error', () => outside.destroy());
      inside.on('error', () => outside.destroy());
      outside.on('error', () => inside.destroy());
    });
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(socketPath, resolve));
    // The sandbox's user (not the worker's) connects to it.
    chmodSync(socketPath, 0o777);
    servers.push(server);
  }
  return async () => {
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    for (const [i] of endpoints.entries()) {
      try {
        unlinkSync(path.join(dir, socketName(i)));
      } catch {
        // Already gone (closing a listening Unix server removes its file).
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
}

/** Where the container half listens for an endpoint: its own loopback address, or 127.0.0.1 for a name. */
export function bindAddress(endpoint: Endpoint): string {
  return net.isIP(endpoint.host) === 0 ? '127.0.0.1' : endpoint.host;
}

/**
 * The container half, run detached as the sandbox's user: argv is `address:port=socket` pairs and a ready file,
 * written once every port listens (create waits for it).
 */
export const RELAY_PY = `
import socket, sys, threading
def pump(a, b):
    try:
        while True:
            data = a.recv(65536)
            if not data:
                break
            b.sendall(data)
    except OSError:
        pass
    finally:
        try:
            b.shutdown(socket.SHUT_WR)
        except OSError:
            pass
def serve(listener, path):
    while True:
        conn, _ = listener.accept()
        up = socket.socket(socket.AF_UNIX)
        try:
            up.connect(path)
        except OSError:
            conn.close()
            continue
        threading.Thread(target=pump, args=(conn, up), daemon=True).start()
        threading.Thread(target=pump, args=(up, conn), daemon=True).start()
listeners = []
for pair in sys.argv[1:-1]:
    where, path = pair.split("=", 1)
    address, port = where.rsplit(":", 1)
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((address, int(port)))
    s.listen(128)
    listeners.append((s, path))
open(sys.argv[-1], "w").close()
threads = [threading.Thread(target=serve, args=l) for l in listeners]
for t in threads:
    t.start()
for t in threads:
    t.join()
`;

// A Docker Engine API relay on a Unix socket for the fault matrix: every call goes through to a real
// engine, except the container creations its plan fails — refused with the engine's own 500 shape, or
// passed on and made by the engine, its answer then lost with the connection (the worker never hears of it).
import { request as httpRequest, createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** What the relay does to the n-th creation (1-based): pass it on, refuse it, or make it and lose the answer. */
export type CreateFault = 'pass' | 'refuse' | 'lose';

export interface DockerFaultRelay {
  socketPath: string;
  /** Each creation the relay saw, in order, with what it did to it. */
  readonly creates: CreateFault[];
  close(): Promise<void>;
}

const CREATE = /^(\/v[\d.]+)?\/containers\/create(\?|$)/;

/** Replays a request's head on a raw connection (an upgrade: the engine's hijacked exec stream). */
function head(req: IncomingMessage): string {
  const lines = [`${req.method} ${req.url} HTTP/1.1`];
  for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
  return lines.join('\r\n') + '\r\n\r\n';
}

/** `engineSocket` undefined: no engine behind it (every call but a refused creation answers 502). */
export async function startDockerFaultRelay(engineSocket: string | undefined, plan: (n: number) => CreateFault): Promise<DockerFaultRelay> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gf-relay-'));
  const socketPath = path.join(dir, 'docker.sock');
  const creates: CreateFault[] = [];
  const sockets = new Set<Socket>();

  const server: Server = createServer((req, res) => {
    const isCreate = req.method === 'POST' && CREATE.test(req.url ?? '');
    const fault = isCreate ? plan(creates.length + 1) : 'pass';
    if (isCreate) creates.push(fault);
    if (fault === 'refuse') {
      req.resume();
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'failed to create task for container: context deadline exceeded (fault injected by the test relay)' }));
      return;
    }
    if (!engineSocket) {
      req.resume();
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'no engine behind the test relay' }));
      return;
    }
    const upstream = httpRequest({ socketPath: engineSocket, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      if (fault === 'lose') {
        // The engine made the container; the worker's connection drops before it hears so.
        answer.resume();
        answer.once('end', () => req.socket.destroy());
        return;
      }
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => req.socket.destroy());
    req.pipe(upstream);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  // An exec's start answers 101 and then carries raw streams both ways: relayed byte for byte.
  server.on('upgrade', (req: IncomingMessage, client: Socket, first: Buffer) => {
    if (!engineSocket) return void client.destroy();
    const engine = connect(engineSocket, () => {
      engine.write(head(req));
      if (first.length) engine.write(first);
      client.pipe(engine).pipe(client);
    });
    sockets.add(engine);
    engine.once('close', () => sockets.delete(engine));
    engine.on('error', () => client.destroy());
    client.on('error', () => engine.destroy());
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return {
    socketPath,
    creates,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

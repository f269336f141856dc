// Test servers start without port races: they skip a port another process holds, two start side by
// side, and a server whose port is taken before it binds is retried on new ports, a bounded number of times.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { nextCandidatePort, releasePort, reservePort } from './ports';
import { reserveServerPorts, startTestServer, type ServerPorts, type TestServer } from './temporal-server';

const holders: ChildProcess[] = [];
const servers: TestServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
  for (const h of holders.splice(0)) h.kill('SIGKILL');
});

/** Another process listening on the port, the way a foreign server would take it. */
async function holdPort(port: number): Promise<void> {
  const holder = spawn(process.execPath, ['-e', `require('node:net').createServer().listen(${port}, '127.0.0.1', () => console.log('listening'))`], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  holders.push(holder);
  await new Promise<void>((resolve, reject) => {
    holder.stdout!.on('data', () => resolve());
    holder.once('exit', (code) => reject(new Error(`the port holder exited with ${code} before listening on ${port}`)));
  });
}

async function serves(server: TestServer): Promise<void> {
  const client = await server.client();
  const ns = await client.workflowService.describeNamespace({ namespace: 'default' });
  expect(ns.namespaceInfo?.name).toBe('default');
}

const ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

describe('test Temporal servers', () => {
  it('two start side by side while another process holds the first candidate port', async () => {
    const held = nextCandidatePort();
    await holdPort(held);
    const [a, b] = await Promise.all([startTestServer(), startTestServer()]);
    servers.push(a, b);
    await Promise.all([serves(a), serves(b)]);
    const ports = [...Object.values(a.ports), ...Object.values(b.ports)];
    expect(new Set(ports).size).toBe(6);
    expect(ports).not.toContain(held);
    for (const p of ports) expect(p).toBeLessThan(ephemeralLow);
  });

  it('retries on new ports when the server finds one of its ports taken', async () => {
    const taken = await reservePort();
    await holdPort(taken);
    const handedOut: ServerPorts[] = [];
    const server = await startTestServer(undefined, {
      reservePorts: async () => {
        const ports = await reserveServerPorts();
        if (handedOut.length > 0) handedOut.push(ports);
        else {
          // The first attempt gets a port taken after reservation: the server itself must fail to bind it.
          releasePort(ports.httpPort);
          handedOut.push({ ...ports, httpPort: taken });
        }
        return handedOut.at(-1)!;
      },
    });
    servers.push(server);
    await serves(server);
    expect(handedOut).toHaveLength(2);
    expect(server.ports).toEqual(handedOut[1]);
  });

  it('gives up after five attempts with an error naming each', async () => {
    const taken = await reservePort();
    await holdPort(taken);
    let attempts = 0;
    const start = startTestServer(undefined, {
      reservePorts: async () => {
        attempts++;
        const ports = await reserveServerPorts();
        releasePort(ports.metricsPort);
        return { ...ports, metricsPort: taken };
      },
    });
    await expect(start).rejects.toMatchObject({ code: 'SETUP_FAILED', message: expect.stringMatching(/in 5 attempts[\s\S]*attempt 5 on ports/) });
    expect(attempts).toBe(5);
  });
});

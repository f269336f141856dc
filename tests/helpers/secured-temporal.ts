// A real Temporal server (the compose stack's Go build of go.temporal.io/server) locked down the way a
// production cluster is: every call needs an API key, a JWT that the server's default claim mapper checks
// against a JWKS served here, and (by default) its frontend speaks only mutual TLS with a test CA.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { closeSync, openSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { composeBinaries } from './compose-binaries';
import { releasePort, reservePort } from './ports';

const exec = promisify(execFile);

/** The name in the server's certificate; not the address dialled, so a client must set TEMPORAL_TLS_SERVER_NAME. */
export const SERVER_NAME = 'temporal.gymflow.test';
const SERVICES = ['frontend', 'internal-frontend', 'history', 'matching', 'worker'] as const;
const MAX_ATTEMPTS = 5;
const START_TIMEOUT_MS = 180_000;

export interface TlsFiles {
  /** The CA that signed the server's and the client's certificates. */
  ca: string;
  clientCert: string;
  clientKey: string;
  /** A CA that signed nothing here: a client trusting only it must refuse the server. */
  otherCa: string;
}

export interface SecuredTemporal {
  /** host:port of the frontend. */
  address: string;
  /** The TLS files, when the frontend speaks mutual TLS. */
  tls?: TlsFiles;
  /** An API key: a JWT with these permissions ("<namespace>:<role>", a role read, write, worker or admin; "temporal-system:<role>" for all namespaces), signed by the key the server trusts. */
  apiKey(permissions: string[]): string;
  /** The same claims signed by a key the server does not know, under the trusted key's id. */
  forgedApiKey(permissions: string[]): string;
  /** A client of `namespace` over the server's transport, with the given API key. */
  client(apiKey: string, namespace: string): Promise<Client>;
  /** Registers a namespace (as a system admin) and waits until the frontend serves it. */
  createNamespace(namespace: string): Promise<void>;
  log(): string;
  stop(): Promise<void>;
}

type Pki = TlsFiles & { serverCert: string; serverKey: string };

/** A CA, a server certificate for SERVER_NAME only (no IP address), a client certificate, and an unrelated CA. */
async function makePki(dir: string): Promise<Pki> {
  const openssl = (args: string[]) => exec('openssl', args, { cwd: dir, timeout: 60_000 });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  for (const ca of ['ca', 'other-ca']) {
    await openssl([
      'req',
      '-x509',
      ...ec,
      '-keyout',
      `${ca}.key`,
      '-out',
      `${ca}.pem`,
      '-days',
      '2',
      '-subj',
      `/CN=Gymflow test ${ca}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ]);
  }
  let serial = 1;
  const leaf = async (name: string, extensions: string) => {
    await writeFile(path.join(dir, `${name}.ext`), extensions);
    await openssl(['req', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=gymflow-test-${name}`]);
    await openssl(['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-set_serial', String(serial++), '-days', '2', '-out', `${name}.pem`, '-extfile', `${name}.ext`]);
  };
  await leaf('server', `basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:${SERVER_NAME}\n`);
  await leaf('client', 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n');
  const at = (f: string) => path.join(dir, f);
  return { ca: at('ca.pem'), otherCa: at('other-ca.pem'), clientCert: at('client.pem'), clientKey: at('client.key'), serverCert: at('server.pem'), serverKey: at('server.key') };
}

function jwt(key: KeyObject, kid: string, permissions: string[]): string {
  const now = Math.floor(Date.now() / 1000);
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const signed = `${part({ alg: 'RS256', typ: 'JWT', kid })}.${part({ sub: 'gymflow-test', permissions, iat: now - 60, exp: now + 86_400 })}`;
  return `${signed}.${sign('sha256', Buffer.from(signed), key).toString('base64url')}`;
}

/** The JWKS the server's default token key provider reads once at start, so it is up before the server. */
async function serveJwks(publicKey: KeyObject, kid: string): Promise<{ url: string; close(): Promise<void> }> {
  const body = JSON.stringify({ keys: [{ ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' }] });
  const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

type Ports = Record<(typeof SERVICES)[number], { grpc: number; membership: number }>;

/** The server's configuration (JSON is YAML): SQLite in memory, the default authorizer and JWT claim mapper. */
function serverConfig(ports: Ports, pki: Pki | undefined, jwksUrl: string, dynamicConfigFile: string): unknown {
  const sqlite = {
    sql: {
      pluginName: 'sqlite',
      databaseName: 'default',
      connectAddr: 'localhost',
      connectProtocol: 'tcp',
      connectAttributes: { mode: 'memory', cache: 'private' },
      maxConns: 1,
      maxIdleConns: 1,
      maxConnLifetime: '1h',
    },
  };
  return {
    log: { stdout: true, level: 'warn' },
    persistence: { defaultStore: 'sqlite-default', visibilityStore: 'sqlite-visibility', numHistoryShards: 1, datastores: { 'sqlite-default': sqlite, 'sqlite-visibility': sqlite } },
    global: {
      membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' },
      // Only the frontend faces clients. The history, matching and worker services (the server's own system
      // workers among them) reach it through the internal frontend, which trusts its callers: no TLS, no key.
      ...(pki ? { tls: { frontend: { server: { certFile: pki.serverCert, keyFile: pki.serverKey, clientCaFiles: [pki.ca], requireClientAuth: true } } } } : {}),
      authorization: { jwtKeyProvider: { keySourceURIs: [jwksUrl] }, permissionsClaimName: 'permissions', authorizer: 'default', claimMapper: 'default' },
    },
    services: Object.fromEntries(SERVICES.map((s) => [s, { rpc: { grpcPort: ports[s].grpc, membershipPort: ports[s].membership, bindOnIP: '127.0.0.1' } }])),
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: { active: { enabled: true, initialFailoverVersion: 1, rpcName: 'frontend', rpcAddress: `127.0.0.1:${ports.frontend.grpc}` } },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    dynamicConfigClient: { filepath: dynamicConfigFile, pollInterval: '10s' },
  };
}

async function reservePorts(): Promise<Ports> {
  const ports = {} as Ports;
  for (const s of SERVICES) ports[s] = { grpc: await reservePort(), membership: await reservePort() };
  return ports;
}

function releasePorts(ports: Ports): void {
  for (const { grpc, membership } of Object.values(ports)) {
    releasePort(grpc);
    releasePort(membership);
  }
}

const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

/** SIGKILL to the server's process group: its state is in memory, there is nothing to shut down cleanly. */
async function kill(child: ChildProcess): Promise<void> {
  if (!running(child) || !child.pid) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    return;
  }
  await exited;
}

/**
 * Starts the server and waits until its frontend answers a system admin's call. A port taken between
 * reservation and bind ("address already in use") is retried on new ports; any other failure throws with
 * the server's log. Without `mtls` the frontend is plaintext, still with API keys.
 */
export async function startSecuredTemporal(opts: { mtls?: boolean } = {}): Promise<SecuredTemporal> {
  const binary = path.join(await composeBinaries(), 'temporal-server');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gymflow-temporal-secured-'));
  const pki = opts.mtls === false ? undefined : await makePki(dir);
  const kid = 'gymflow-test-key';
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const forger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const jwks = await serveJwks(publicKey, kid);
  const adminKey = jwt(privateKey, kid, ['temporal-system:admin']);
  const connections: Connection[] = [];
  const failures: string[] = [];
  await mkdir(path.join(dir, 'config'));
  // A production server's dynamic config: none of the dev server's settings (search attributes go through caches).
  const dynamicConfigFile = path.join(dir, 'dynamicconfig.yaml');
  await writeFile(dynamicConfigFile, '{}\n');

  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const ports = await reservePorts();
    const address = `127.0.0.1:${ports.frontend.grpc}`;
    await writeFile(path.join(dir, 'config', 'test.yaml'), JSON.stringify(serverConfig(ports, pki, jwks.url, dynamicConfigFile), null, 2));
    const logFile = path.join(dir, `server-${attempt}.log`);
    const out = openSync(logFile, 'w');
    const args = ['--root', dir, '--config', 'config', '--env', 'test', 'start', ...SERVICES.flatMap((s) => ['--service', s])];
    const child = spawn(binary, args, { cwd: dir, detached: true, stdio: ['ignore', out, out] });
    closeSync(out);
    // Should the test process die without its afterAll, the server goes with it.
    const onExit = () => child.pid && running(child) && process.kill(-child.pid, 'SIGKILL');
    process.once('exit', onExit);
    const connect = async (apiKey: string, namespace: string) => {
      // `false`, not undefined: the SDK turns TLS on for an API key unless told not to.
      const tls = pki
        ? { serverNameOverride: SERVER_NAME, serverRootCACertificate: await readFile(pki.ca), clientCertPair: { crt: await readFile(pki.clientCert), key: await readFile(pki.clientKey) } }
        : false;
      const connection = await Connection.connect({ address, tls, apiKey, connectTimeout: '10s' });
      connections.push(connection);
      return new Client({ connection, namespace });
    };
    const stop = async () => {
      await Promise.all(connections.splice(0).map((c) => c.close().catch(() => {})));
      await kill(child);
      process.removeListener('exit', onExit);
      releasePorts(ports);
    };
    try {
      // Start-up makes the SQLite schema and joins five services' membership: seconds, more on two busy cores.
      const deadline = Date.now() + START_TIMEOUT_MS;
      for (;;) {
        if (!running(child)) throw Object.assign(new Error(`the Temporal server exited (${child.exitCode ?? child.signalCode})`), { exited: true });
        const up = await connect(adminKey, 'temporal-system')
          .then((c) => c.workflowService.listNamespaces({}))
          .then(
            () => true,
            () => false,
          );
        if (up) break;
        if (Date.now() > deadline) throw new Error(`the Temporal server did not answer on ${address} within ${START_TIMEOUT_MS / 1000} s`);
        await sleep(500);
      }
    } catch (e) {
      await stop();
      const log = readFileSync(logFile, 'utf8');
      if ((e as { exited?: boolean }).exited && /address already in use/i.test(log)) {
        failures.push(`attempt ${attempt} on ${JSON.stringify(ports)}: ${log.trim().split('\n').at(-1)}`);
        continue;
      }
      await jwks.close();
      await rm(dir, { recursive: true, force: true });
      throw new Error(`${(e as Error).message}; its log:\n${log.slice(-6000)}`);
    }

    return {
      address,
      tls: pki && { ca: pki.ca, otherCa: pki.otherCa, clientCert: pki.clientCert, clientKey: pki.clientKey },
      apiKey: (permissions) => jwt(privateKey, kid, permissions),
      forgedApiKey: (permissions) => jwt(forger, kid, permissions),
      client: connect,
      async createNamespace(namespace) {
        const admin = await connect(adminKey, namespace);
        await admin.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('72h') });
        // A new namespace is served once the frontend's namespace cache has it.
        const deadline = Date.now() + 120_000;
        for (;;) {
          const served = await admin.workflowService.describeNamespace({ namespace }).then(
            () => true,
            () => false,
          );
          if (served) return;
          if (Date.now() > deadline) throw new Error(`namespace ${namespace} is not served 120 s after it was registered`);
          await sleep(500);
        }
      },
      log: () => readFileSync(logFile, 'utf8'),
      async stop() {
        await stop();
        await jwks.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  }
  await jwks.close();
  await rm(dir, { recursive: true, force: true });
  throw new Error(`the secured Temporal server did not start in ${MAX_ATTEMPTS} attempts, each on new ports:\n${failures.join('\n')}`);
}

// The embedded Temporal server: `temporal server start-dev` with a SQLite file in the state folder,
// so runs survive a server restart. It runs detached, so it outlives the command that started it.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { GymError } from '../errors';
import { stateDir } from '../util/paths';
import { ensureTemporalCli } from './cli-binary';
import { SEARCH_ATTRIBUTES } from './search-attributes';
import { pidAlive } from '../util/process';

export const ServerInfo = z.object({
  pid: z.number().int(),
  address: z.string(),
  uiUrl: z.string().nullable(),
  dbFile: z.string(),
  logFile: z.string(),
  startedAt: z.string(),
});
export type ServerInfo = z.infer<typeof ServerInfo>;

export interface DevServerOptions {
  /** Folder for the SQLite file, the pid file and the log. */
  dir?: string;
  host?: string;
  port?: number;
  /** Frontend HTTP API and /metrics ports; unset, the CLI picks free ports from the ephemeral range. */
  httpPort?: number;
  metricsPort?: number;
  /** Web UI port; null turns the UI off. */
  uiPort?: number | null;
  /** Extra `--dynamic-config-value` entries, e.g. to make continue-as-new kick in early in tests. */
  dynamicConfig?: Record<string, unknown>;
  log?: (line: string) => void;
}

const infoFile = (dir: string) => path.join(dir, 'temporal-server.json');

export function isListening(address: string, timeoutMs = 500): Promise<boolean> {
  const [host, port] = splitAddress(address);
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

function splitAddress(address: string): [string, number] {
  const i = address.lastIndexOf(':');
  return [address.slice(0, i) || '127.0.0.1', Number(address.slice(i + 1))];
}

export async function readServerInfo(dir = path.join(stateDir(), 'temporal')): Promise<ServerInfo | undefined> {
  try {
    return ServerInfo.parse(JSON.parse(await readFile(infoFile(dir), 'utf8')));
  } catch {
    return undefined;
  }
}

/** Starts the dev server (or returns the one already running from this state folder). */
export async function startDevServer(opts: DevServerOptions = {}): Promise<ServerInfo> {
  const dir = opts.dir ?? path.join(stateDir(), 'temporal');
  const existing = await readServerInfo(dir);
  if (existing && pidAlive(existing.pid) && (await isListening(existing.address))) return existing;

  const host = opts.host ?? '127.0.0.1';
  const port = opts.port ?? 7233;
  const address = `${host}:${port}`;
  if (await isListening(address)) {
    throw new GymError('CONFLICT', `port ${port} is already taken by another process; pass another port or set TEMPORAL_ADDRESS to use that server`);
  }
  const cli = await ensureTemporalCli(opts.log);
  await mkdir(dir, { recursive: true });
  const dbFile = path.join(dir, 'temporal.sqlite');
  const logFile = path.join(dir, 'temporal-server.log');
  const uiPort = opts.uiPort === undefined ? port + 1000 : opts.uiPort;
  const args = [
    'server',
    'start-dev',
    '--ip',
    host,
    '--port',
    String(port),
    ...(opts.httpPort === undefined ? [] : ['--http-port', String(opts.httpPort)]),
    ...(opts.metricsPort === undefined ? [] : ['--metrics-port', String(opts.metricsPort)]),
    '--db-filename',
    dbFile,
    // WAL keeps writes fast; NORMAL still survives a killed process (only power loss can lose the tail).
    '--sqlite-pragma',
    'journal_mode=WAL',
    '--sqlite-pragma',
    'synchronous=NORMAL',
    '--log-level',
    'warn',
    ...(uiPort === null ? ['--headless'] : ['--ui-port', String(uiPort)]),
    ...SEARCH_ATTRIBUTES.flatMap((k) => ['--search-attribute', `${k.name}=Keyword`]),
    ...Object.entries(opts.dynamicConfig ?? {}).flatMap(([k, v]) => ['--dynamic-config-value', `${k}=${JSON.stringify(v)}`]),
  ];
  const out = openSync(logFile, 'a');
  const child = spawn(cli, args, { detached: true, stdio: ['ignore', out, out] });
  closeSync(out);
  child.unref();
  const info: ServerInfo = {
    pid: child.pid!,
    address,
    uiUrl: uiPort === null ? null : `http://${host}:${uiPort}`,
    dbFile,
    logFile,
    startedAt: new Date().toISOString(),
  };
  await writeFile(infoFile(dir), JSON.stringify(info, null, 2));
  await waitUntilListening(info, 60_000);
  return info;
}

async function waitUntilListening(info: ServerInfo, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await isListening(info.address)) return;
    if (!pidAlive(info.pid)) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const tail = existsSync(info.logFile) ? (await readFile(info.logFile, 'utf8')).slice(-1500) : '';
  throw new GymError('SETUP_FAILED', `the Temporal dev server did not start listening on ${info.address}; its log ends:\n${tail}`);
}

/** Stops the dev server started from this state folder; returns false when none was running. */
export async function stopDevServer(dir = path.join(stateDir(), 'temporal'), signal: NodeJS.Signals = 'SIGTERM'): Promise<boolean> {
  const info = await readServerInfo(dir);
  if (!info || !pidAlive(info.pid)) {
    await rm(infoFile(dir), { force: true });
    return false;
  }
  process.kill(info.pid, signal);
  const deadline = Date.now() + 15_000;
  while (pidAlive(info.pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (pidAlive(info.pid)) process.kill(info.pid, 'SIGKILL');
  await rm(infoFile(dir), { force: true });
  return true;
}

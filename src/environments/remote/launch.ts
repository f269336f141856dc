// Starts a resources server of a NeMo Gym install (launch_server.py in its Python) and waits until it answers,
// so any of NeMo Gym's environments can be driven as `--env remote`; stops it again on close.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { request } from 'undici';
import { GymError } from '../../errors';
import { PACKAGE_ROOT } from '../../util/paths';
import { RESERVED_ROUTES } from '../server/protocol';

const SCRIPT = path.join(PACKAGE_ROOT, 'src', 'environments', 'remote', 'launch_server.py');
/** The venv scripts/setup-nemo-gym.sh makes. */
export const NEMO_GYM_VENV_PYTHON = path.join(PACKAGE_ROOT, '.gymflow', 'venvs', 'nemo-gym', 'bin', 'python');

export interface NemoGymServerOptions {
  /** The resources server's folder name in NeMo Gym, e.g. `mcqa`. */
  server: string;
  /** The Python of the NeMo Gym install; the setup script's venv when absent. */
  python?: string;
  host?: string;
  port?: number;
  /** How long to wait for the server to answer (its imports take a while on a busy machine). */
  startupTimeoutMs?: number;
}

export interface NemoGymServer {
  url: string;
  /** The server's tool routes (its POST routes other than the protocol's), for `--remote-tools`. */
  tools: string[];
  pid: number;
  close(): Promise<void>;
}

const POLL_MS = 250;

export async function startNemoGymServer(opts: NemoGymServerOptions): Promise<NemoGymServer> {
  const python = opts.python ?? NEMO_GYM_VENV_PYTHON;
  if (!existsSync(python)) {
    throw new GymError('SETUP_FAILED', `no NeMo Gym Python at ${python}: run \`bash scripts/setup-nemo-gym.sh\`, or pass --nemo-gym-python <the python of your NeMo Gym venv>`);
  }
  const host = opts.host ?? '127.0.0.1';
  // Its own process group, so stopping it also stops any workers the server forks.
  const child = spawn(python, [SCRIPT, opts.server, host, String(opts.port ?? 0)], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const failed = (why: string) => new GymError('SETUP_FAILED', `NeMo Gym resources server ${opts.server} ${why}${stderr.trim() ? `:\n${stderr.trim()}` : ''}`);
  const close = () => stop(child, exited);
  try {
    const deadline = Date.now() + (opts.startupTimeoutMs ?? 300_000);
    const url = await Promise.race([firstUrlLine(child), exited.then((code) => Promise.reject(failed(`exited with status ${code} before it started`)))]);
    for (;;) {
      if (await answers(url)) break;
      if (child.exitCode !== null || child.signalCode !== null) throw failed(`exited with status ${child.exitCode ?? child.signalCode} while starting`);
      if (Date.now() > deadline) throw failed(`did not answer at ${url} within ${Math.round((opts.startupTimeoutMs ?? 300_000) / 1000)} s`);
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    return { url, tools: await toolRoutes(url), pid: child.pid!, close };
  } catch (e) {
    await close();
    throw e;
  }
}

function firstUrlLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => {
      lines.close();
      // The server's own output goes on after the line; it is not ours to show, so it is drained.
      child.stdout!.resume();
      if (line.startsWith('url ')) resolve(line.slice(4).trim());
    });
  });
}

async function answers(url: string): Promise<boolean> {
  try {
    const res = await request(url, { method: 'GET', headersTimeout: 5_000, bodyTimeout: 5_000 });
    await res.body.dump();
    return res.statusCode === 200;
  } catch {
    return false;
  }
}

/** FastAPI publishes its routes in /openapi.json; a tool is a POST route that is not one of the protocol's. */
async function toolRoutes(url: string): Promise<string[]> {
  const res = await request(new URL('/openapi.json', url), { method: 'GET' });
  if (res.statusCode !== 200) {
    await res.body.dump();
    return [];
  }
  const spec = (await res.body.json()) as { paths?: Record<string, Record<string, unknown>> };
  return Object.entries(spec.paths ?? {})
    .filter(([route, methods]) => 'post' in methods && /^\/[^/]+$/.test(route))
    .map(([route]) => route.slice(1))
    .filter((name) => !RESERVED_ROUTES.includes(name) && name !== 'close_session');
}

async function stop(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, sig);
    } catch {
      // Already gone.
    }
  };
  signal('SIGTERM');
  const killer = setTimeout(() => signal('SIGKILL'), 10_000);
  await exited;
  clearTimeout(killer);
}

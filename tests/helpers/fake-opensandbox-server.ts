// A FAKE OpenSandbox server for tests (the real one runs containers on Docker or Kubernetes): its lifecycle
// REST API under /v1 and one execd per sandbox, with the paths, JSON shapes and SSE framing the official SDK
// speaks. A sandbox is a folder on this machine; its commands are real processes under bubblewrap, which
// shows the folder's top-level entries at / (over the host's system folders, read-only).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync } from 'node:fs';
import { chmod, lstat, mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

const SYSTEM = ['/usr', '/bin', '/sbin', '/lib', '/lib64', '/etc'];
const LABEL = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const TOKEN_HEADER = 'x-execd-access-token';

interface Command {
  id: string;
  content: string;
  child: ChildProcess;
  running: boolean;
  exitCode: number | null;
  error?: string;
  startedAt: Date;
  finishedAt: Date | null;
  /** Background commands' combined output (execd's log file). */
  log?: string;
}

export interface FakeSandbox {
  id: string;
  root: string;
  /** The create request's body as the SDK sent it. */
  request: Record<string, unknown>;
  metadata: Record<string, string>;
  state: string;
  createdAt: Date;
  expiresAt: Date | null;
  token: string;
  execd: http.Server;
  port: number;
  commands: Map<string, Command>;
  main?: ChildProcess;
  expiry?: NodeJS.Timeout;
}

export interface FakeOpenSandbox {
  /** What OPEN_SANDBOX_DOMAIN is set to: `127.0.0.1:port`. */
  domain: string;
  apiKey: string;
  sandboxes: Map<string, FakeSandbox>;
  /** Every request the lifecycle API received (method and path), and the API-key headers they carried. */
  requests: { method: string; path: string; apiKey: string | undefined }[];
  close(): Promise<void>;
}

function json(res: http.ServerResponse, status: number, body?: unknown): void {
  const requestId = randomBytes(6).toString('hex');
  // An accepted (202) or empty answer has no body at all, as the server's.
  if (body === undefined) res.writeHead(status, { 'content-length': 0, 'x-request-id': requestId }).end();
  else res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': requestId }).end(JSON.stringify(body));
}

const error = (res: http.ServerResponse, status: number, code: string, message: string) => json(res, status, { code, message });

async function body(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function sandboxJson(s: FakeSandbox): Record<string, unknown> {
  return {
    id: s.id,
    image: s.request.image,
    status: { state: s.state, reason: s.state.toLowerCase(), message: `sandbox is ${s.state.toLowerCase()}`, lastTransitionAt: new Date().toISOString() },
    metadata: s.metadata,
    entrypoint: s.request.entrypoint,
    ...(s.expiresAt ? { expiresAt: s.expiresAt.toISOString() } : {}),
    createdAt: s.createdAt.toISOString(),
  };
}

function badMetadata(metadata: Record<string, unknown>): string | undefined {
  for (const [key, value] of Object.entries(metadata)) {
    if (key.startsWith('opensandbox.io/')) return `Metadata key '${key}' uses the reserved prefix 'opensandbox.io/'.`;
    const name = key.includes('/') ? key.split('/')[1]! : key;
    if (name.length > 63 || !LABEL.test(name)) return `Metadata key '${key}' is invalid`;
    if (typeof value !== 'string' || value.length > 63 || (value !== '' && !LABEL.test(value))) return `Metadata value '${String(value)}' is invalid`;
  }
  return undefined;
}

/** The host path of a sandbox path; undefined when it would leave the sandbox's folder. */
function hostPath(s: FakeSandbox, file: string): string | undefined {
  if (!file.startsWith('/')) return undefined;
  return path.join(s.root, path.posix.normalize(file));
}

async function fileInfo(s: FakeSandbox, host: string): Promise<Record<string, unknown>> {
  const st = await lstat(host);
  const type = st.isSymbolicLink() ? 'symlink' : st.isDirectory() ? 'directory' : st.isFile() ? 'file' : 'other';
  return {
    path: `/${path.relative(s.root, host)}`,
    type,
    size: st.size,
    modified_at: st.mtime.toISOString(),
    created_at: st.birthtime.toISOString(),
    owner: String(st.uid),
    group: String(st.gid),
    mode: Number((st.mode & 0o777).toString(8)),
  };
}

/** bwrap over the sandbox's folder: its top-level entries at /, the host's system read-only, no network when the policy denies everything. */
function jail(s: FakeSandbox, cwd: string, env: Record<string, string>, shellLine: string, stdio: ('ignore' | 'pipe' | number)[]): ChildProcess {
  const args = ['--die-with-parent', '--proc', '/proc', '--dev', '/dev'];
  for (const dir of SYSTEM) if (existsSync(dir)) args.push('--ro-bind', dir, dir);
  for (const name of readdirSync(s.root)) args.push('--bind', path.join(s.root, name), `/${name}`);
  const policy = s.request.networkPolicy as { defaultAction?: string; egress?: unknown[] } | undefined;
  if (policy && policy.defaultAction !== 'allow' && (policy.egress ?? []).length === 0) args.push('--unshare-net');
  args.push('--chdir', cwd, 'bash', '--noprofile', '--norc', '-c', shellLine);
  // Its own process group, as execd's commands: killing the group kills what the command started.
  return spawn('bwrap', args, { env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: '/root', ...(s.request.env as Record<string, string>), ...env }, stdio, detached: true });
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // Gone already.
  }
}

function sse(res: http.ServerResponse, event: Record<string, unknown>): void {
  // execd writes each event as bare JSON followed by a blank line.
  res.write(`${JSON.stringify({ ...event, timestamp: Date.now() })}\n\n`);
}

async function runCommand(s: FakeSandbox, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  let request: { command?: string; cwd?: string; background?: boolean; timeout?: number; envs?: Record<string, string> };
  try {
    request = JSON.parse((await body(req)).toString('utf8'));
  } catch (e) {
    return error(res, 400, 'INVALID_REQUEST_BODY', `error parsing request, MAYBE invalid body format. ${(e as Error).message}`);
  }
  if (!request.command) return error(res, 400, 'INVALID_REQUEST_BODY', 'error parsing request, MAYBE invalid body format. exactly one of non-empty command or argv is required');
  const cwd = request.cwd ?? '/';
  const hostCwd = hostPath(s, cwd);
  if (!hostCwd || !existsSync(hostCwd)) return error(res, 400, 'INVALID_REQUEST_BODY', `invalid request, validation error working directory ${cwd} does not exist`);
  const id = randomBytes(8).toString('hex');
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const started = new Date();
  let child: ChildProcess;
  if (request.background) {
    const logFile = path.join(s.root, '..', `${s.id}-${id}.log`);
    const fd = openSync(logFile, 'a');
    child = jail(s, cwd, request.envs ?? {}, request.command, ['ignore', fd, fd]);
    const command: Command = { id, content: request.command, child, running: true, exitCode: null, startedAt: started, finishedAt: null, log: logFile };
    s.commands.set(id, command);
    sse(res, { type: 'init', text: id });
    sse(res, { type: 'execution_complete', execution_time: 0 });
    res.end();
    child.on('exit', (code) => Object.assign(command, { running: false, exitCode: code ?? -1, finishedAt: new Date() }));
  } else {
    child = jail(s, cwd, request.envs ?? {}, request.command, ['ignore', 'pipe', 'pipe']);
    const command: Command = { id, content: request.command, child, running: true, exitCode: null, startedAt: started, finishedAt: null };
    s.commands.set(id, command);
    sse(res, { type: 'init', text: id });
    const ping = setInterval(() => sse(res, { type: 'ping', text: 'pong' }), 3000);
    child.stdout!.on('data', (chunk: Buffer) => sse(res, { type: 'stdout', text: chunk.toString('utf8') }));
    child.stderr!.on('data', (chunk: Buffer) => sse(res, { type: 'stderr', text: chunk.toString('utf8') }));
    // The client went away: execd cancels the request's context, which kills the group.
    res.on('close', () => command.running && killGroup(child));
    child.on('close', (code) => {
      clearInterval(ping);
      // Go's ExitCode() is -1 for a process ended by a signal.
      const exitCode = code ?? -1;
      Object.assign(command, { running: false, exitCode, finishedAt: new Date() });
      if (exitCode === 0) sse(res, { type: 'execution_complete', execution_time: Date.now() - started.getTime() });
      else sse(res, { type: 'error', error: { ename: 'CommandExecError', evalue: String(exitCode), traceback: [`exit status ${exitCode}`] } });
      res.end();
    });
  }
  if (request.timeout) {
    const timer = setTimeout(() => killGroup(child), request.timeout);
    child.on('exit', () => clearTimeout(timer));
  }
}

async function uploadFiles(s: FakeSandbox, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  // The WHATWG Request parses multipart bodies; the SDK sends pairs of `metadata` and `file` parts.
  const form = await new Request('http://fake/', { method: 'POST', headers: { 'content-type': req.headers['content-type'] ?? '' }, body: await body(req) }).formData();
  const metas = form.getAll('metadata');
  const files = form.getAll('file');
  if (metas.length === 0) return error(res, 400, 'INVALID_FILE_METADATA', 'metadata file is missing');
  if (files.length !== metas.length) return error(res, 400, 'INVALID_FILE', `metadata and file count mismatch: ${metas.length} vs ${files.length}`);
  for (const [i, meta] of metas.entries()) {
    const m = JSON.parse(await (meta as Blob).text()) as { path?: string; mode?: number };
    const host = m.path ? hostPath(s, m.path) : undefined;
    if (!host) return error(res, 400, 'INVALID_FILE_METADATA', 'metadata path is empty');
    await mkdir(path.dirname(host), { recursive: true });
    await writeFile(host, Buffer.from(await (files[i] as Blob).arrayBuffer()));
    if (m.mode) await chmod(host, parseInt(String(m.mode), 8));
  }
  json(res, 200, null);
}

async function execd(s: FakeSandbox, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const url = new URL(req.url!, 'http://fake');
  if (req.headers[TOKEN_HEADER] !== s.token) return error(res, 401, 'UNAUTHORIZED', 'missing or invalid access token');
  if (s.state !== 'Running') return error(res, 503, 'SERVICE_UNAVAILABLE', `sandbox is ${s.state}`);
  const route = `${req.method} ${url.pathname}`;
  const q = url.searchParams;
  const notFound = (e: unknown) => {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return error(res, 404, 'FILE_NOT_FOUND', `file not found. ${(e as Error).message}`);
    return error(res, 500, 'RUNTIME_ERROR', `error accessing file: ${(e as Error).message}`);
  };
  if (route === 'GET /ping') return json(res, 200);
  if (route === 'POST /command') return runCommand(s, req, res);
  if (route === 'DELETE /command') {
    const command = s.commands.get(q.get('id') ?? '');
    if (!command) return error(res, 400, 'INVALID_REQUEST', `command ${q.get('id')} not found`);
    killGroup(command.child);
    return json(res, 200, null);
  }
  const status = /^GET \/command\/status\/([^/]+)$/.exec(route);
  if (status) {
    const c = s.commands.get(status[1]!);
    if (!c) return error(res, 404, 'INVALID_REQUEST', `command ${status[1]} not found`);
    return json(res, 200, {
      id: c.id,
      content: c.content,
      running: c.running,
      exit_code: c.exitCode,
      error: c.error,
      started_at: c.startedAt.toISOString(),
      finished_at: c.finishedAt?.toISOString() ?? null,
    });
  }
  if (route === 'GET /files/info') {
    const out: Record<string, unknown> = {};
    for (const p of q.getAll('path')) {
      const host = hostPath(s, p);
      try {
        out[p] = await fileInfo(s, host ?? '');
      } catch (e) {
        return notFound(e);
      }
    }
    return json(res, 200, out);
  }
  if (route === 'POST /directories') {
    const dirs = JSON.parse((await body(req)).toString('utf8')) as Record<string, { mode?: number }>;
    for (const [dir, perm] of Object.entries(dirs)) {
      const host = hostPath(s, dir)!;
      const existed = existsSync(host);
      await mkdir(host, { recursive: true });
      if (!existed && perm.mode) await chmod(host, parseInt(String(perm.mode), 8));
    }
    return json(res, 200, null);
  }
  if (route === 'GET /directories/list') {
    const root = hostPath(s, q.get('path') ?? '');
    if (!root) return error(res, 400, 'MISSING_QUERY', "missing query parameter 'path'");
    const depth = Number(q.get('depth') ?? 1);
    try {
      const st = await lstat(root);
      if (st.isSymbolicLink()) return error(res, 400, 'INVALID_REQUEST', `path is a symbolic link, refusing to traverse: ${q.get('path')}`);
      if (!st.isDirectory()) return error(res, 400, 'INVALID_REQUEST', `path is not a directory: ${q.get('path')}`);
      const entries: unknown[] = [];
      const walk = async (dir: string, level: number): Promise<void> => {
        for (const entry of await readdir(dir, { withFileTypes: true })) {
          entries.push(await fileInfo(s, path.join(dir, entry.name)));
          if (entry.isDirectory() && level + 1 < depth) await walk(path.join(dir, entry.name), level + 1);
        }
      };
      if (depth > 0) await walk(root, 0);
      return json(res, 200, entries);
    } catch (e) {
      return notFound(e);
    }
  }
  if (route === 'POST /files/upload') return uploadFiles(s, req, res);
  if (route === 'GET /files/download') {
    const host = hostPath(s, q.get('path') ?? '');
    if (!host) return error(res, 400, 'MISSING_QUERY', "missing query parameter 'path'");
    try {
      const st = await stat(host);
      if (st.isDirectory()) return error(res, 500, 'RUNTIME_ERROR', `error reading ${q.get('path')}: is a directory`);
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': st.size });
      createReadStream(host).pipe(res);
      return;
    } catch (e) {
      return notFound(e);
    }
  }
  // The egress sidecar's /policy lives behind port 18080 of a real sandbox; this fake has none.
  return error(res, 404, 'NOT_FOUND', `no route ${route}`);
}

function destroySandbox(sandboxes: Map<string, FakeSandbox>, s: FakeSandbox): void {
  clearTimeout(s.expiry);
  for (const c of s.commands.values()) killGroup(c.child);
  if (s.main) killGroup(s.main);
  s.execd.closeAllConnections();
  s.execd.close();
  rmSync(s.root, { recursive: true, force: true });
  sandboxes.delete(s.id);
}

function scheduleExpiry(sandboxes: Map<string, FakeSandbox>, s: FakeSandbox): void {
  clearTimeout(s.expiry);
  if (s.expiresAt) s.expiry = setTimeout(() => destroySandbox(sandboxes, s), Math.max(0, s.expiresAt.getTime() - Date.now()));
}

export async function startFakeOpenSandbox(options: { apiKey?: string } = {}): Promise<FakeOpenSandbox> {
  const apiKey = options.apiKey ?? `fake-key-${randomBytes(8).toString('hex')}`;
  const home = mkdtempSync(path.join(os.tmpdir(), 'fake-opensandbox-'));
  const sandboxes = new Map<string, FakeSandbox>();
  const requests: FakeOpenSandbox['requests'] = [];

  async function lifecycle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url!, 'http://fake');
    const key = req.headers['open-sandbox-api-key'] as string | undefined;
    requests.push({ method: req.method!, path: url.pathname, apiKey: key });
    if (key !== apiKey) return error(res, 401, 'UNAUTHORIZED', 'Authentication credentials are missing or invalid');
    const route = `${req.method} ${url.pathname.replace(/^\/v1/, '')}`;
    if (route === 'POST /metrics/events') return json(res, 204);
    if (route === 'POST /sandboxes') {
      const request = JSON.parse((await body(req)).toString('utf8')) as Record<string, unknown>;
      if (!(request.image as { uri?: string } | undefined)?.uri) return error(res, 400, 'INVALID_REQUEST', 'exactly one of image or snapshotId must be provided');
      if (!Array.isArray(request.entrypoint) || request.entrypoint.length === 0) return error(res, 400, 'INVALID_REQUEST', 'entrypoint is required when image is provided');
      if (!request.resourceLimits) return error(res, 400, 'INVALID_REQUEST', 'resourceLimits is required');
      const bad = badMetadata((request.metadata as Record<string, unknown>) ?? {});
      if (bad) return error(res, 400, 'INVALID_METADATA_LABEL', bad);
      const id = `fake-${randomBytes(6).toString('hex')}`;
      const root = path.join(home, id);
      mkdirSync(path.join(root, 'tmp'), { recursive: true });
      const s: FakeSandbox = {
        id,
        root,
        request,
        metadata: { ...(request.metadata as Record<string, string>) },
        state: 'Running',
        createdAt: new Date(),
        expiresAt: typeof request.timeout === 'number' ? new Date(Date.now() + request.timeout * 1000) : null,
        token: randomBytes(12).toString('hex'),
        execd: http.createServer((q, r) => void execd(s, q, r).catch((e: Error) => error(r, 500, 'RUNTIME_ERROR', e.message))),
        port: 0,
        commands: new Map(),
      };
      await new Promise<void>((resolve) => s.execd.listen(0, '127.0.0.1', resolve));
      s.port = (s.execd.address() as AddressInfo).port;
      s.main = jail(s, '/', {}, (request.entrypoint as string[]).map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' '), ['ignore', 'ignore', 'ignore']);
      sandboxes.set(id, s);
      scheduleExpiry(sandboxes, s);
      const { image: _image, ...created } = sandboxJson(s);
      return json(res, 202, created);
    }
    if (route === 'GET /sandboxes') {
      const states = url.searchParams.getAll('state');
      const filter = new URLSearchParams(url.searchParams.get('metadata') ?? '');
      const page = Number(url.searchParams.get('page') ?? 1);
      const pageSize = Number(url.searchParams.get('pageSize') ?? 20);
      const all = [...sandboxes.values()].filter((s) => (states.length === 0 || states.includes(s.state)) && [...filter].every(([k, v]) => s.metadata[k] === v));
      const items = all.slice((page - 1) * pageSize, page * pageSize).map(sandboxJson);
      const totalPages = Math.ceil(all.length / pageSize);
      return json(res, 200, { items, pagination: { page, pageSize, totalItems: all.length, totalPages, hasNextPage: page < totalPages } });
    }
    const match = /^(GET|DELETE|POST|PATCH) \/sandboxes\/([^/]+)(?:\/(.*))?$/.exec(route);
    const s = match ? sandboxes.get(match[2]!) : undefined;
    if (!match || !s) return error(res, 404, 'SANDBOX_NOT_FOUND', `Sandbox ${match?.[2] ?? ''} not found`);
    const [, method, , rest] = match;
    if (method === 'GET' && rest === undefined) return json(res, 200, sandboxJson(s));
    if (method === 'DELETE' && rest === undefined) {
      destroySandbox(sandboxes, s);
      return json(res, 204);
    }
    if (method === 'PATCH' && rest === 'metadata') {
      const patch = JSON.parse((await body(req)).toString('utf8')) as Record<string, string | null>;
      const bad = badMetadata(Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== null)));
      if (bad) return error(res, 400, 'INVALID_METADATA_LABEL', bad);
      for (const [k, v] of Object.entries(patch)) {
        if (v === null) delete s.metadata[k];
        else s.metadata[k] = v;
      }
      return json(res, 200, sandboxJson(s));
    }
    if (method === 'POST' && (rest === 'pause' || rest === 'resume')) {
      const pausing = rest === 'pause';
      if (s.state !== (pausing ? 'Running' : 'Paused')) return error(res, 409, 'INVALID_STATE', `cannot ${rest} a sandbox that is ${s.state}`);
      s.state = pausing ? 'Pausing' : 'Resuming';
      for (const c of [s.main, ...[...s.commands.values()].map((x) => x.child)]) if (c) killGroup(c, pausing ? 'SIGSTOP' : 'SIGCONT');
      // The real server moves to the final state in the background.
      setTimeout(() => (s.state = pausing ? 'Paused' : 'Running'), 100);
      return json(res, 202);
    }
    if (method === 'POST' && rest === 'renew-expiration') {
      const { expiresAt } = JSON.parse((await body(req)).toString('utf8')) as { expiresAt?: string };
      const at = new Date(expiresAt ?? '');
      if (Number.isNaN(at.getTime()) || at.getTime() <= Date.now()) return error(res, 400, 'INVALID_EXPIRATION', 'expiresAt must be in the future');
      if (!s.expiresAt) return error(res, 409, 'INVALID_STATE', 'sandbox has no expiration (manual cleanup)');
      s.expiresAt = at;
      scheduleExpiry(sandboxes, s);
      return json(res, 200, { expiresAt: at.toISOString() });
    }
    const endpoint = method === 'GET' ? /^endpoints\/(\d+)$/.exec(rest ?? '') : null;
    if (endpoint) return json(res, 200, { endpoint: `127.0.0.1:${s.port}`, headers: { 'X-EXECD-ACCESS-TOKEN': s.token } });
    return error(res, 404, 'NOT_FOUND', `no route ${route}`);
  }

  const server = http.createServer((req, res) => void lifecycle(req, res).catch((e: Error) => error(res, 500, 'INTERNAL_ERROR', e.message)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    domain: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    apiKey,
    sandboxes,
    requests,
    async close() {
      for (const s of [...sandboxes.values()]) destroySandbox(sandboxes, s);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(home, { recursive: true, force: true });
    },
  };
}

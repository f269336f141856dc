// A FAKE E2B, for tests only (E2B's cloud VMs cannot run here): on loopback it speaks the wire protocols
// the official `e2b` SDK uses — the control-plane REST API (/v2/sandboxes…) and envd's Connect-RPC services
// (process.Process, filesystem.Filesystem, Connect's JSON encoding) plus envd's HTTP /files — so the SDK
// cannot tell it from the real service. Behind it, each "sandbox" is a host folder that is the root of a
// bubblewrap jail (the host's /usr and /etc read-only, its own passwd with `root` and `user`), and every
// command is a real subprocess in that jail. Not modelled: users are not separated (everything runs as the
// host's user, `user` only sets HOME), the network policy is recorded but not enforced, templates are names.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  type Stats,
} from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface FakeE2bOptions {
  apiKey: string;
  /** Template names the fake knows; others are 404, as for an unknown template. */
  templates?: string[];
}

export interface FakeSandbox {
  id: string;
  templateID: string;
  metadata: Record<string, string>;
  envVars: Record<string, string>;
  /** The create request's body, as the SDK sent it. */
  created: Record<string, unknown>;
  startedAt: Date;
  endAt: Date;
  state: 'running' | 'paused';
  /** The host folder that is the sandbox's `/`. */
  root: string;
  token: string;
  processes: Map<number, FakeProcess>;
}

interface FakeProcess {
  pid: number;
  child: ChildProcess;
  config: { cmd: string; args: string[]; envs: Record<string, string>; cwd?: string };
  tag?: string;
  pty: boolean;
  subscribers: Set<(event: unknown) => void>;
}

export interface FakeE2b {
  /** The control plane's URL (the SDK's apiUrl). */
  apiUrl: string;
  /** envd's URL for every sandbox (the SDK's sandboxUrl); the sandbox is named by the E2b-Sandbox-Id header. */
  sandboxUrl: string;
  sandboxes: Map<string, FakeSandbox>;
  /** Every request's method, path and headers as received, for checks on what the SDK sent. */
  requests: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders }>;
  close(): Promise<void>;
}

const ENVD_VERSION = '0.6.4';
const SYSTEM_TOPS = ['/bin', '/sbin', '/lib', '/lib64', '/lib32'];
const SYSTEM = ['/usr', '/etc', '/bin', '/sbin', '/lib', '/lib64', '/lib32', '/proc', '/dev'];

export async function startFakeE2b(options: FakeE2bOptions): Promise<FakeE2b> {
  const templates = new Set(options.templates ?? ['base']);
  const sandboxes = new Map<string, FakeSandbox>();
  const requests: FakeE2b['requests'] = [];
  const base = mkdtempSync(path.join(os.tmpdir(), 'fake-e2b-'));

  const kill = (sandbox: FakeSandbox) => {
    for (const p of sandbox.processes.values()) signalGroup(p.pid, 'SIGKILL');
    sandbox.processes.clear();
    sandboxes.delete(sandbox.id);
    rmSync(sandbox.root, { recursive: true, force: true });
  };
  // E2B kills a sandbox at its end time.
  const sweeper = setInterval(() => {
    for (const s of sandboxes.values()) if (s.endAt.getTime() <= Date.now()) kill(s);
  }, 200);
  sweeper.unref();

  const api = http.createServer((req, res) => {
    requests.push({ method: req.method!, url: req.url!, headers: req.headers });
    void controlPlane(req, res).catch((e: Error) => sendJson(res, 500, { code: 500, message: e.message }));
  });
  const envd = http.createServer((req, res) => {
    requests.push({ method: req.method!, url: req.url!, headers: req.headers });
    void envdRequest(req, res).catch((e: Error) => {
      if (!res.headersSent) sendJson(res, 500, { code: 'internal', message: e.message });
      else res.destroy();
    });
  });

  async function controlPlane(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (req.headers['x-api-key'] !== options.apiKey) return sendJson(res, 401, { code: 401, message: 'Invalid API key' });
    const url = new URL(req.url!, 'http://fake');
    const body = req.method === 'POST' ? await readJson(req) : {};
    const route = `${req.method} ${url.pathname}`;
    if (route === 'POST /v2/sandboxes') {
      const templateID = String(body.templateID);
      if (!templates.has(templateID)) return sendJson(res, 404, { code: 404, message: `template '${templateID}' not found` });
      const id = `i${randomBytes(10).toString('hex')}`;
      const root = path.join(base, id);
      for (const dir of ['home/user', 'root', 'tmp', '.fake']) mkdirSync(path.join(root, dir), { recursive: true });
      // The VM's root: the host's merged-/usr links made once, mount points for the rest.
      for (const top of SYSTEM_TOPS) {
        if (!existsSync(top)) continue;
        if (lstatSync(top).isSymbolicLink()) symlinkSync(readlinkSync(top), path.join(root, top));
        else mkdirSync(path.join(root, top));
      }
      for (const dir of ['usr', 'etc', 'proc', 'dev']) mkdirSync(path.join(root, dir));
      writeFileSync(path.join(root, '.fake/passwd'), 'root:x:0:0:root:/root:/bin/bash\nuser:x:1000:1000::/home/user:/bin/bash\n');
      writeFileSync(path.join(root, '.fake/group'), 'root:x:0:\nuser:x:1000:\n');
      const now = new Date();
      const sandbox: FakeSandbox = {
        id,
        templateID,
        metadata: (body.metadata as Record<string, string>) ?? {},
        envVars: (body.envVars as Record<string, string>) ?? {},
        created: body,
        startedAt: now,
        endAt: new Date(now.getTime() + Number(body.timeout ?? 300) * 1000),
        state: 'running',
        root,
        token: randomBytes(16).toString('hex'),
        processes: new Map(),
      };
      sandboxes.set(id, sandbox);
      return sendJson(res, 201, created(sandbox));
    }
    if (route === 'GET /v2/sandboxes') {
      const wanted = new URLSearchParams(url.searchParams.get('metadata') ?? '');
      const states = (url.searchParams.get('state') ?? 'running,paused').split(',');
      const rows = [...sandboxes.values()].filter((s) => states.includes(s.state) && [...wanted].every(([k, v]) => s.metadata[decodeURIComponent(k)] === decodeURIComponent(v)));
      const limit = Number(url.searchParams.get('limit') ?? 100);
      const offset = Number(url.searchParams.get('nextToken') ?? 0);
      const page = rows.slice(offset, offset + limit);
      if (offset + limit < rows.length) res.setHeader('x-next-token', String(offset + limit));
      return sendJson(res, 200, page.map(listed));
    }
    const match = /^\/(v2\/)?sandboxes\/([^/]+)(\/[a-z]+)?$/.exec(url.pathname);
    const sandbox = match ? sandboxes.get(match[2]!) : undefined;
    if (!match) return sendJson(res, 404, { code: 404, message: `no route ${route}` });
    if (!sandbox) return sendJson(res, 404, { code: 404, message: `sandbox ${match[2]} not found` });
    const action = `${req.method} ${match[1] ? 'v2' : ''}${match[3] ?? ''}`;
    if (action === 'GET ')
      return sendJson(res, 200, {
        ...listed(sandbox),
        envdAccessToken: sandbox.token,
        allowInternetAccess: sandbox.created.allow_internet_access ?? null,
        network: sandbox.created.network,
        domain: null,
      });
    if (action === 'DELETE ') {
      kill(sandbox);
      return void res.writeHead(204).end();
    }
    if (action === 'POST /timeout') {
      sandbox.endAt = new Date(Date.now() + Number(body.timeout) * 1000);
      return void res.writeHead(204).end();
    }
    if (action === 'POST /pause') {
      if (sandbox.state === 'paused') return sendJson(res, 409, { code: 409, message: `sandbox ${sandbox.id} is already paused` });
      for (const p of sandbox.processes.values()) signalGroup(p.pid, 'SIGSTOP');
      sandbox.state = 'paused';
      return void res.writeHead(204).end();
    }
    if (action === 'POST v2/connect') {
      const resumed = sandbox.state === 'paused';
      if (resumed) for (const p of sandbox.processes.values()) signalGroup(p.pid, 'SIGCONT');
      sandbox.state = 'running';
      if (body.timeout !== undefined) sandbox.endAt = new Date(Math.max(sandbox.endAt.getTime(), Date.now() + Number(body.timeout) * 1000));
      return sendJson(res, resumed ? 201 : 200, created(sandbox));
    }
    return sendJson(res, 404, { code: 404, message: `no route ${route}` });
  }

  async function envdRequest(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const sandbox = sandboxes.get(String(req.headers['e2b-sandbox-id']));
    // What E2B's edge answers for a sandbox that is gone or paused.
    if (!sandbox || sandbox.state !== 'running') return void res.writeHead(502, { 'content-type': 'text/plain' }).end('sandbox not found');
    if (req.headers['x-access-token'] !== sandbox.token) return sendJson(res, 401, { code: 401, message: 'invalid access token' });
    const url = new URL(req.url!, 'http://fake');
    const user = userOf(req);
    if (url.pathname === '/health') return void res.writeHead(204).end();
    if (url.pathname === '/files') return files(sandbox, user, url, req, res);
    const [, service, method] = url.pathname.split('/');
    if (service === 'process.Process' && (method === 'Start' || method === 'Connect')) return processStream(sandbox, user, method, req, res);
    const rpc = service === 'process.Process' ? processUnary : service === 'filesystem.Filesystem' ? filesystemUnary : undefined;
    if (!rpc) return connectError(res, 'unimplemented', `${url.pathname} is not implemented by the fake`);
    const input = await readJson(req);
    try {
      sendJson(res, 200, rpc(sandbox, user, method!, input));
    } catch (e) {
      if (e instanceof RpcError) return connectError(res, e.code, e.message);
      throw e;
    }
  }

  function processStream(sandbox: FakeSandbox, user: string, method: string, req: http.IncomingMessage, res: http.ServerResponse): void {
    void readEnvelope(req).then((input) => {
      res.writeHead(200, { 'content-type': 'application/connect+json' });
      let proc: FakeProcess;
      try {
        proc = method === 'Start' ? startProcess(sandbox, user, input) : findProcess(sandbox, input.process as Selector);
      } catch (e) {
        return endStream(res, e instanceof RpcError ? e : new RpcError('internal', (e as Error).message));
      }
      const subscriber = (event: unknown) => {
        res.write(envelope(0, { event }));
        if ((event as { end?: unknown }).end) endStream(res);
      };
      proc.subscribers.add(subscriber);
      res.on('close', () => proc.subscribers.delete(subscriber));
      const deadline = Number(req.headers['connect-timeout-ms'] ?? 0);
      if (deadline > 0) {
        const timer = setTimeout(() => endStream(res, new RpcError('deadline_exceeded', 'the request deadline passed')), deadline);
        res.on('close', () => clearTimeout(timer));
      }
      res.write(envelope(0, { event: { start: { pid: proc.pid } } }));
    });
  }

  function startProcess(sandbox: FakeSandbox, user: string, input: Record<string, unknown>): FakeProcess {
    const config = input.process as FakeProcess['config'];
    const home = user === 'root' ? '/root' : `/home/${user}`;
    const cwd = config.cwd || home;
    if (!existsSync(hostPathOf(sandbox, cwd))) throw new RpcError('invalid_argument', `cwd '${cwd}' does not exist`);
    const env = {
      PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      HOME: home,
      USER: user,
      LANG: 'C.UTF-8',
      ...sandbox.envVars,
      ...(config.envs ?? {}),
    };
    const jailed = ['bwrap', ...jail(sandbox, cwd), config.cmd, ...(config.args ?? [])];
    const pty = input.pty as { size?: { cols?: number; rows?: number } } | undefined;
    let child: ChildProcess;
    if (pty) {
      // A real terminal: util-linux `script` holds the pty; the size is set inside it before the jail starts.
      const line = `stty cols ${pty.size?.cols ?? 80} rows ${pty.size?.rows ?? 24}; exec ${jailed.map(shellQuote).join(' ')}`;
      child = spawn('script', ['-qfec', line, '/dev/null'], { detached: true, env: { ...env, SHELL: '/bin/sh' }, stdio: 'pipe' });
    } else {
      child = spawn(jailed[0]!, jailed.slice(1), { detached: true, env, stdio: [input.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
    }
    const proc: FakeProcess = { pid: child.pid!, child, config, tag: input.tag as string | undefined, pty: Boolean(pty), subscribers: new Set() };
    sandbox.processes.set(proc.pid, proc);
    const broadcast = (event: unknown) => {
      for (const s of [...proc.subscribers]) s(event);
    };
    child.stdout!.on('data', (chunk: Buffer) => broadcast({ data: { [pty ? 'pty' : 'stdout']: chunk.toString('base64') } }));
    child.stderr!.on('data', (chunk: Buffer) => broadcast({ data: { stderr: chunk.toString('base64') } }));
    child.stdin?.on('error', () => undefined);
    child.on('close', (code, signal) => {
      sandbox.processes.delete(proc.pid);
      // As Go's ProcessState reports it: -1 and "signal: killed" for a process a signal ended.
      const status = code === null ? `signal: ${goSignalName(signal)}` : `exit status ${code}`;
      broadcast({ end: { exitCode: code ?? -1, exited: code !== null, status, ...(code === 0 ? {} : { error: status }) } });
    });
    return proc;
  }

  function processUnary(sandbox: FakeSandbox, _user: string, method: string, input: Record<string, unknown>): unknown {
    if (method === 'List') {
      return { processes: [...sandbox.processes.values()].map((p) => ({ pid: p.pid, config: p.config, ...(p.tag ? { tag: p.tag } : {}) })) };
    }
    const proc = findProcess(sandbox, input.process as Selector);
    if (method === 'SendInput') {
      const data = input.input as { stdin?: string; pty?: string };
      const bytes = Buffer.from(data.stdin ?? data.pty ?? '', 'base64');
      if (!proc.child.stdin) throw new RpcError('failed_precondition', `process ${proc.pid} has no stdin`);
      proc.child.stdin.write(bytes);
      return {};
    }
    if (method === 'CloseStdin') {
      proc.child.stdin?.end();
      return {};
    }
    if (method === 'SendSignal') {
      const signal = input.signal === 'SIGNAL_SIGTERM' || input.signal === 15 ? 'SIGTERM' : 'SIGKILL';
      signalGroup(proc.pid, signal);
      return {};
    }
    if (method === 'Update') {
      const size = (input.pty as { size?: { cols: number; rows: number } } | undefined)?.size;
      if (!proc.pty || !size) throw new RpcError('invalid_argument', `process ${proc.pid} is not a terminal`);
      resizePty(proc.pid, size.cols, size.rows);
      return {};
    }
    throw new RpcError('unimplemented', `process.Process/${method} is not implemented by the fake`);
  }

  function filesystemUnary(sandbox: FakeSandbox, user: string, method: string, input: Record<string, unknown>): unknown {
    const at = (p: unknown) => resolveIn(user, String(p ?? ''));
    if (method === 'Stat') return { entry: entryOf(sandbox, at(input.path)) };
    if (method === 'ListDir') {
      const folder = at(input.path);
      const host = hostPathOf(sandbox, folder);
      if (!existsSync(host)) throw new RpcError('not_found', `path '${folder}' does not exist`);
      if (!lstatSync(host).isDirectory()) throw new RpcError('invalid_argument', `path '${folder}' is not a directory`);
      const entries: unknown[] = [];
      const walk = (dir: string, depth: number) => {
        for (const name of readdirSync(hostPathOf(sandbox, dir)).sort()) {
          const child = path.posix.join(dir, name);
          entries.push(entryOf(sandbox, child));
          if (depth > 1 && lstatSync(hostPathOf(sandbox, child)).isDirectory()) walk(child, depth - 1);
        }
      };
      walk(folder, Number(input.depth ?? 1) || 1);
      return { entries };
    }
    if (method === 'MakeDir') {
      const folder = at(input.path);
      if (existsSync(hostPathOf(sandbox, folder))) throw new RpcError('already_exists', `directory '${folder}' already exists`);
      mkdirSync(writablePathOf(sandbox, folder), { recursive: true });
      return { entry: entryOf(sandbox, folder) };
    }
    if (method === 'Remove') {
      rmSync(writablePathOf(sandbox, at(input.path)), { recursive: true, force: true });
      return {};
    }
    if (method === 'Move') {
      const to = at(input.destination);
      renameSync(writablePathOf(sandbox, at(input.source)), writablePathOf(sandbox, to));
      return { entry: entryOf(sandbox, to) };
    }
    throw new RpcError('unimplemented', `filesystem.Filesystem/${method} is not implemented by the fake`);
  }

  async function files(sandbox: FakeSandbox, user: string, url: URL, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const username = url.searchParams.get('username') || user;
    const target = url.searchParams.get('path');
    if (req.method === 'GET') {
      const at = resolveIn(username, target ?? '');
      const host = hostPathOf(sandbox, at);
      if (!existsSync(host)) return sendJson(res, 404, { code: 404, message: `path '${at}' does not exist` });
      const stats = lstatSync(host);
      if (stats.isDirectory()) return sendJson(res, 400, { code: 400, message: `path '${at}' is a directory` });
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': stats.size });
      return pipeline(createReadStream(host), res);
    }
    if (req.method !== 'POST') return sendJson(res, 405, { code: 405, message: 'method not allowed' });
    const written: Array<{ name: string; type: 'file'; path: string }> = [];
    const put = async (p: string, data: Readable) => {
      const at = resolveIn(username, p);
      const host = writablePathOf(sandbox, at);
      mkdirSync(path.dirname(host), { recursive: true });
      await pipeline(data, createWriteStream(host));
      written.push({ name: path.posix.basename(at), type: 'file', path: at });
    };
    const type = String(req.headers['content-type'] ?? '');
    if (type.startsWith('multipart/form-data')) {
      const form = await new Request('http://fake/', { method: 'POST', headers: { 'content-type': type }, body: Readable.toWeb(req) as ReadableStream, duplex: 'half' } as RequestInit).formData();
      for (const file of form.getAll('file')) {
        const blob = file as File;
        await put(target ?? blob.name, Readable.from(Buffer.from(await blob.arrayBuffer())));
      }
    } else {
      if (!target) return sendJson(res, 400, { code: 400, message: 'path is required for an octet-stream upload' });
      await put(target, req);
    }
    sendJson(res, 200, written);
  }

  await Promise.all([listen(api), listen(envd)]);
  return {
    apiUrl: `http://127.0.0.1:${(api.address() as AddressInfo).port}`,
    sandboxUrl: `http://127.0.0.1:${(envd.address() as AddressInfo).port}`,
    sandboxes,
    requests,
    async close() {
      clearInterval(sweeper);
      for (const s of [...sandboxes.values()]) kill(s);
      api.closeAllConnections();
      envd.closeAllConnections();
      await Promise.all([new Promise((r) => api.close(r)), new Promise((r) => envd.close(r))]);
      rmSync(base, { recursive: true, force: true });
    },
  };
}

type Selector = { pid?: number; tag?: string };

class RpcError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Connect's HTTP status for each error code (unary calls). */
const HTTP_STATUS: Record<string, number> = {
  invalid_argument: 400,
  failed_precondition: 400,
  unauthenticated: 401,
  permission_denied: 403,
  not_found: 404,
  already_exists: 409,
  unimplemented: 501,
  internal: 500,
  deadline_exceeded: 504,
};

function findProcess(sandbox: FakeSandbox, selector: Selector | undefined): FakeProcess {
  const proc = selector?.pid !== undefined ? sandbox.processes.get(Number(selector.pid)) : [...sandbox.processes.values()].find((p) => p.tag !== undefined && p.tag === selector?.tag);
  if (!proc) throw new RpcError('not_found', `process with ${selector?.pid !== undefined ? `pid ${selector.pid}` : `tag ${selector?.tag}`} not found`);
  return proc;
}

/** The jail a sandbox's command runs in: the sandbox folder as `/`, the host's system read-only. */
function jail(sandbox: FakeSandbox, cwd: string): string[] {
  const args = ['--bind', sandbox.root, '/', '--ro-bind', '/usr', '/usr', '--ro-bind', '/etc', '/etc'];
  args.push('--ro-bind', path.join(sandbox.root, '.fake/passwd'), '/etc/passwd', '--ro-bind', path.join(sandbox.root, '.fake/group'), '/etc/group');
  for (const top of SYSTEM_TOPS) {
    if (existsSync(top) && !lstatSync(top).isSymbolicLink()) args.push('--ro-bind', top, top);
  }
  args.push('--proc', '/proc', '--dev-bind', '/dev', '/dev', '--chdir', cwd, '--');
  return args;
}

function hostPathOf(sandbox: FakeSandbox, at: string): string {
  if (SYSTEM.some((s) => at === s || at.startsWith(`${s}/`))) return at;
  return path.join(sandbox.root, at);
}

function writablePathOf(sandbox: FakeSandbox, at: string): string {
  if (SYSTEM.some((s) => at === s || at.startsWith(`${s}/`))) throw new RpcError('permission_denied', `${at} is read-only`);
  return path.join(sandbox.root, at);
}

function resolveIn(user: string, p: string): string {
  return path.posix.resolve(user === 'root' ? '/root' : `/home/${user}`, p);
}

function entryOf(sandbox: FakeSandbox, at: string): unknown {
  const host = hostPathOf(sandbox, at);
  let stats: Stats;
  try {
    stats = lstatSync(host);
  } catch {
    throw new RpcError('not_found', `path '${at}' does not exist`);
  }
  const type = stats.isSymbolicLink() ? 'FILE_TYPE_SYMLINK' : stats.isDirectory() ? 'FILE_TYPE_DIRECTORY' : stats.isFile() ? 'FILE_TYPE_FILE' : 'FILE_TYPE_UNSPECIFIED';
  return {
    name: path.posix.basename(at),
    type,
    path: at,
    size: String(stats.size),
    mode: stats.mode & 0o7777,
    permissions: permissions(stats),
    owner: stats.uid === 0 ? 'root' : 'user',
    group: stats.gid === 0 ? 'root' : 'user',
    modifiedTime: stats.mtime.toISOString(),
    ...(stats.isSymbolicLink() ? { symlinkTarget: readlinkSync(host) } : {}),
  };
}

function permissions(stats: Stats): string {
  const kind = stats.isDirectory() ? 'd' : stats.isSymbolicLink() ? 'l' : '-';
  const bits = 'rwxrwxrwx';
  return kind + [...bits].map((c, i) => (stats.mode & (1 << (8 - i)) ? c : '-')).join('');
}

/** The user a request acts as: envd's Basic auth header (`user:`), else the default user. */
function userOf(req: http.IncomingMessage): string {
  const auth = /^Basic (.+)$/.exec(String(req.headers.authorization ?? ''));
  return auth ? Buffer.from(auth[1]!, 'base64').toString('utf8').split(':')[0] || 'user' : 'user';
}

/** A terminal's new size, set on the pty its `script` holds (the jail's process is `script`'s child). */
function resizePty(scriptPid: number, cols: number, rows: number): void {
  const children = readFileSync(`/proc/${scriptPid}/task/${scriptPid}/children`, 'utf8').trim().split(/\s+/);
  const tty = readlinkSync(`/proc/${children[0]}/fd/0`);
  spawnSync('stty', ['-F', tty, 'cols', String(cols), 'rows', String(rows)]);
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Gone already.
  }
}

function goSignalName(signal: NodeJS.Signals | null): string {
  return signal === 'SIGKILL' ? 'killed' : signal === 'SIGTERM' ? 'terminated' : String(signal);
}

function created(sandbox: FakeSandbox): unknown {
  return { sandboxID: sandbox.id, templateID: sandbox.templateID, clientID: 'fake', envdVersion: ENVD_VERSION, envdAccessToken: sandbox.token, domain: null };
}

function listed(sandbox: FakeSandbox): Record<string, unknown> {
  return {
    sandboxID: sandbox.id,
    templateID: sandbox.templateID,
    clientID: 'fake',
    cpuCount: 2,
    memoryMB: 512,
    diskSizeMB: 1024,
    envdVersion: ENVD_VERSION,
    metadata: sandbox.metadata,
    startedAt: sandbox.startedAt.toISOString(),
    endAt: sandbox.endAt.toISOString(),
    state: sandbox.state,
  };
}

function shellQuote(arg: string): string {
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

/** One Connect streaming frame: flags (0 message, 2 end of stream), length, JSON. */
function envelope(flags: number, message: unknown): Buffer {
  const payload = Buffer.from(JSON.stringify(message));
  const header = Buffer.alloc(5);
  header[0] = flags;
  header.writeUInt32BE(payload.length, 1);
  return Buffer.concat([header, payload]);
}

function endStream(res: http.ServerResponse, error?: RpcError): void {
  if (res.writableEnded) return;
  res.end(envelope(2, error ? { error: { code: error.code, message: error.message } } : {}));
}

async function readEnvelope(req: http.IncomingMessage): Promise<Record<string, unknown>> {
  const body = await readBody(req);
  const length = body.readUInt32BE(1);
  return JSON.parse(body.subarray(5, 5 + length).toString('utf8')) as Record<string, unknown>;
}

async function readJson(req: http.IncomingMessage): Promise<Record<string, unknown>> {
  const body = await readBody(req);
  return body.length === 0 ? {} : (JSON.parse(body.toString('utf8')) as Record<string, unknown>);
}

async function readBody(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

function connectError(res: http.ServerResponse, code: string, message: string): void {
  sendJson(res, HTTP_STATUS[code] ?? 500, { code, message });
}

function listen(server: http.Server): Promise<void> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
}

// The `docker` sandbox provider: one labelled container per sandbox, created and driven through the Docker
// Engine API (no docker CLI), read-only but for its workdir and /tmp, with limits and no network by default.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { z } from 'zod';
import { GymError, isGymError } from '../../errors';
import { checkCommandId, parseStatusReport, signalOf } from '../detached';
import { startSandboxClock } from '../meter';
import { isAlive, processIdentity, ProcessIdentity } from '../local/record';
import { parseInput } from '../parse';
import type { ExecOptions, OutputStream, PtySession, Sandbox, SandboxProvider } from '../provider';
import {
  CommandStatus,
  ExecRequest,
  ExecResult,
  FileEntry,
  OUTPUT_TAIL_BYTES,
  PtyRequest,
  PtySize,
  SandboxLabels,
  SandboxSpec,
  type ResolvedSandboxSpec,
  type SandboxInfo,
  type SandboxState,
} from '../schema';
import { Demuxer, Tail } from './demux';
import { defaultSocketPath, DockerEngine } from './engine';
import { bindAddress, checkEndpoints, FORWARD_MOUNT, listenForwarders, RELAY_PY, socketName, type Endpoint } from './forward';
import { DETACHED, FOREGROUND, initScript, KEEPALIVE, KILL, LIST, META_DIR, STATE_DIR, STATUS } from './shell';
import { hostUnpacker, packHostPath, TarReader, tarOfFile } from './tar';

/** The unprivileged user commands run as when the spec names none (no passwd entry is needed). */
export const DEFAULT_USER = '1000:1000';

const LABEL = {
  sandbox: 'gymflow.sandbox',
  run: 'gymflow.run',
  rollout: 'gymflow.rollout',
  attempt: 'gymflow.attempt',
  user: 'gymflow.user',
  /** The user commands run as (the container's own main process runs as root, only to idle). */
  execUser: 'gymflow.exec-user',
  forwardDir: 'gymflow.forward-dir',
  forwards: 'gymflow.forwards',
} as const;

export const DockerProviderOptions = z.strictObject({
  /** The engine's Unix socket; default DOCKER_HOST (unix://…) or /var/run/docker.sock. */
  socketPath: z.string().startsWith('/').optional(),
  /** Where the host ends of `allow` endpoints' sockets are made; default the system's temporary folder. */
  forwardRoot: z.string().startsWith('/').optional(),
});
export type DockerProviderOptions = z.input<typeof DockerProviderOptions>;

export class DockerProvider implements SandboxProvider {
  readonly name = 'docker' as const;
  readonly engine: DockerEngine;
  private readonly forwardRoot: string;

  constructor(options: DockerProviderOptions = {}) {
    const parsed = parseInput(DockerProviderOptions, options, 'docker sandbox provider option');
    this.engine = new DockerEngine(parsed.socketPath ?? defaultSocketPath());
    this.forwardRoot = parsed.forwardRoot ?? os.tmpdir();
  }

  async create(input: SandboxSpec): Promise<Sandbox> {
    const spec = parseInput(SandboxSpec, input, 'sandbox spec');
    if (spec.image === undefined) {
      throw new GymError('BAD_INPUT', 'sandbox spec: image: the docker provider needs an image name (scripts/setup-docker.sh builds the task image)');
    }
    const id = `gymflow-${randomBytes(6).toString('hex')}`;
    const user = spec.user ?? DEFAULT_USER;
    const endpoints = spec.network.mode === 'allow' ? spec.network.endpoints : [];
    const extraHosts = checkEndpoints(endpoints);
    const forwardDir = endpoints.length > 0 ? mkdtempSync(path.join(this.forwardRoot, 'gymflow-forward-')) : undefined;
    const closeForwarders = forwardDir ? await listenForwarders(forwardDir, endpoints) : undefined;
    const lifetimeSeconds = spec.resources.lifetimeMs === undefined ? undefined : Math.ceil(spec.resources.lifetimeMs / 1000);
    const labels: Record<string, string> = {
      [LABEL.sandbox]: id,
      [LABEL.run]: spec.labels.run,
      [LABEL.rollout]: spec.labels.rollout,
      [LABEL.attempt]: String(spec.labels.attempt),
      [LABEL.user]: spec.labels.user,
      [LABEL.execUser]: user,
      ...(forwardDir ? { [LABEL.forwardDir]: forwardDir, [LABEL.forwards]: JSON.stringify(endpoints) } : {}),
    };
    try {
      await this.engine.json('POST', '/containers/create', { query: { name: id }, json: containerConfig(spec, user, labels, extraHosts, forwardDir, lifetimeSeconds) });
    } catch (e) {
      await closeForwarders?.();
      await this.removeIfMade(id);
      if (isGymError(e) && e.code === 'NOT_FOUND' && /image/i.test(e.message)) {
        throw new GymError(
          'SETUP_FAILED',
          `docker: the image ${spec.image} is not in the engine at unix://${this.engine.socketPath}: import or build it first (scripts/setup-docker.sh builds the task image)`,
        );
      }
      throw e;
    }
    const sandbox = new DockerSandbox(this.engine, id, parseLabels(labels), user, spec.workdir, closeForwarders);
    try {
      await this.engine.json('POST', `/containers/${id}/start`);
      if (endpoints.length > 0) await sandbox.startRelay(endpoints);
    } catch (e) {
      await sandbox.destroy();
      throw e;
    }
    return sandbox;
  }

  /**
   * After a failed create call: the engine may have made the container and its answer been lost (a
   * dropped connection), and no rollout would ever destroy a sandbox it never heard of. The create's own
   * error is the one reported: if this removal fails too (none was made, or the engine is gone), a
   * container left behind is `gym sandbox gc`'s, which finds it by its labels.
   */
  private async removeIfMade(id: string): Promise<void> {
    await this.engine.json('DELETE', `/containers/${id}`, { query: { force: true, v: true } }).catch(() => undefined);
  }

  async attach(id: string): Promise<Sandbox> {
    const info = await this.inspect(id);
    const labels = info.Config.Labels ?? {};
    if (labels[LABEL.sandbox] === undefined) throw new GymError('NOT_FOUND', `docker: container ${id} is not a Gymflow sandbox`);
    let closeForwarders: (() => Promise<void>) | undefined;
    const forwardDir = labels[LABEL.forwardDir];
    // The worker that made the sandbox relayed its endpoints; this one takes over the same sockets.
    if (forwardDir) closeForwarders = await listenForwarders(forwardDir, JSON.parse(labels[LABEL.forwards] ?? '[]') as Endpoint[]);
    // This process uses it now: gc must not take it for a dead worker's.
    if (containerState(info.State.Status) === 'running') {
      await this.engine
        .call('PUT', `/containers/${encodeURIComponent(id)}/archive`, {
          query: { path: META_DIR },
          body: tarOfFile('owner', Buffer.from(JSON.stringify(processIdentity())), { mode: 0o644 }),
          contentType: 'application/x-tar',
        })
        .then((r) => r.body.dump());
    }
    return new DockerSandbox(this.engine, labels[LABEL.sandbox]!, parseLabels(labels), labels[LABEL.execUser] ?? DEFAULT_USER, info.Config.WorkingDir || '/', closeForwarders);
  }

  async list(match: Partial<SandboxLabels> = {}): Promise<SandboxInfo[]> {
    const filters = [LABEL.sandbox, ...Object.entries(match).map(([k, v]) => `gymflow.${k}=${String(v)}`)];
    const rows = await this.engine.json<ContainerSummary[]>('GET', '/containers/json', { query: { all: true, filters: JSON.stringify({ label: filters }) } });
    return Promise.all(
      rows.map(async (row) => {
        const id = row.Labels[LABEL.sandbox]!;
        const meta = await this.readMeta(id);
        return {
          id,
          provider: 'docker' as const,
          state: containerState(row.State),
          labels: parseLabels(row.Labels),
          createdAt: new Date(row.Created * 1000).toISOString(),
          expiresAt: meta.expires === undefined ? null : new Date(Number(meta.expires) * 1000).toISOString(),
          ownerAlive: meta.owner === undefined ? null : isAlive(ProcessIdentity.parse(JSON.parse(meta.owner))),
        };
      }),
    );
  }

  /** The sandbox's owner and expiry, read from its state volume without an exec (it may be stopped). */
  private async readMeta(id: string): Promise<{ owner?: string; expires?: string }> {
    const files: Record<string, Buffer[]> = {};
    const reader = new TarReader((entry) => {
      const name = entry.path.split('/').at(-1)!;
      if (entry.type !== 'file' || (name !== 'owner' && name !== 'expires')) return undefined;
      files[name] = [];
      return (chunk) => files[name]!.push(Buffer.from(chunk));
    });
    try {
      const response = await this.engine.call('GET', `/containers/${id}/archive`, { query: { path: META_DIR } });
      for await (const chunk of response.body) reader.push(chunk as Buffer);
      reader.end();
    } catch (e) {
      // Removed meanwhile, or made before it was set up: nothing to say.
      if (isGymError(e) && e.code === 'NOT_FOUND') return {};
      throw e;
    }
    const text = (name: string) => (files[name] ? Buffer.concat(files[name]!).toString('utf8').trim() : undefined);
    return { owner: text('owner') || undefined, expires: text('expires') || undefined };
  }

  async close(): Promise<void> {
    await this.engine.close();
  }

  private async inspect(id: string): Promise<ContainerInspect> {
    try {
      return await this.engine.json<ContainerInspect>('GET', `/containers/${encodeURIComponent(id)}/json`);
    } catch (e) {
      if (isGymError(e) && e.code === 'NOT_FOUND') throw new GymError('NOT_FOUND', `docker: no sandbox ${id} (it was destroyed, or never made on this engine)`);
      throw e;
    }
  }
}

interface ContainerSummary {
  Labels: Record<string, string>;
  State: string;
  Created: number;
}

interface ContainerInspect {
  Config: { User: string; WorkingDir: string; Labels: Record<string, string> | null };
  State: { Status: string };
}

function containerConfig(spec: ResolvedSandboxSpec, user: string, labels: Record<string, string>, extraHosts: string[], forwardDir: string | undefined, lifetimeSeconds: number | undefined): unknown {
  const expires = lifetimeSeconds === undefined ? '' : String(Math.floor(Date.now() / 1000) + lifetimeSeconds);
  const { resources } = spec;
  const env = { HOME: '/tmp', ...spec.env };
  const binds = spec.mounts.map((m) => `${m.hostPath}:${m.path}:${m.writable ? 'rw' : 'ro'}`);
  if (forwardDir) binds.push(`${forwardDir}:${FORWARD_MOUNT}:ro`);
  return {
    Image: spec.image,
    Entrypoint: ['/bin/sh', '-c', initScript(lifetimeSeconds !== undefined), user, spec.workdir, expires, JSON.stringify(processIdentity())],
    Cmd: null,
    // Root, so the provider's bookkeeping execs keep root's capabilities (the engine gives an exec the
    // container user's); every command of the sandbox runs as `user`.
    User: '0:0',
    WorkingDir: spec.workdir,
    Env: Object.entries(env).map(([k, v]) => `${k}=${v}`),
    Labels: labels,
    // Anonymous volumes: the workdir (starting as the image's folder there, if any) and the provider's
    // state; both go with the container (DELETE ?v=true).
    Volumes: { [spec.workdir]: {}, [STATE_DIR]: {} },
    NetworkDisabled: spec.network.mode !== 'host',
    HostConfig: {
      Init: true,
      NetworkMode: spec.network.mode === 'host' ? 'host' : 'none',
      ReadonlyRootfs: true,
      Tmpfs: { '/tmp': 'rw,nosuid,nodev,exec,mode=1777' },
      Binds: binds,
      ExtraHosts: extraHosts,
      SecurityOpt: ['no-new-privileges'],
      Memory: resources.memoryBytes ?? 0,
      // No swap beyond the memory limit, so the limit is the limit.
      MemorySwap: resources.memoryBytes ?? 0,
      NanoCpus: resources.cpus === undefined ? 0 : Math.round(resources.cpus * 1e9),
      PidsLimit: resources.pids ?? 0,
      Ulimits: resources.fileSizeBytes === undefined ? [] : [{ Name: 'fsize', Soft: resources.fileSizeBytes, Hard: resources.fileSizeBytes }],
    },
  };
}

function parseLabels(labels: Record<string, string>): SandboxLabels {
  return SandboxLabels.parse({
    run: labels[LABEL.run],
    rollout: labels[LABEL.rollout],
    attempt: Number(labels[LABEL.attempt]),
    user: labels[LABEL.user],
  });
}

function containerState(status: string): SandboxState {
  if (status === 'running' || status === 'restarting') return 'running';
  if (status === 'paused') return 'paused';
  return 'stopped';
}

/** The container's tmpfs, which the engine's archive endpoints do not see (they read the container's layers). */
const TMPFS = '/tmp';
const inTmpfs = (at: string) => at === TMPFS || at.startsWith(`${TMPFS}/`);

interface RawExec {
  argv: string[];
  user: string;
  cwd?: string;
  env?: Record<string, string>;
  stdin?: string | Buffer;
  /** On a terminal of this size, its input open (a pty session). */
  tty?: { columns: number; rows: number };
}

class DockerSandbox implements Sandbox {
  readonly provider = 'docker' as const;
  private ids: { uid: number; gid: number } | undefined;

  constructor(
    private readonly engine: DockerEngine,
    readonly id: string,
    readonly labels: SandboxLabels,
    private readonly user: string,
    private readonly workdir: string,
    private closeForwarders: (() => Promise<void>) | undefined,
  ) {}

  async exec(input: ExecRequest, options: ExecOptions = {}): Promise<ExecResult> {
    const request = parseInput(ExecRequest, input, 'sandbox exec request');
    const commandId = randomBytes(8).toString('hex');
    const started = performance.now();
    const stopClock = startSandboxClock();
    const tails = { stdout: new Tail(OUTPUT_TAIL_BYTES), stderr: new Tail(OUTPUT_TAIL_BYTES) };
    let killedBy: 'timeout' | 'abort' | undefined;
    const kill = (why: 'timeout' | 'abort') => {
      if (killedBy) return;
      killedBy = why;
      void this.runRoot(KILL, [commandId, 'kill']).catch(() => undefined);
    };
    const timer = setTimeout(() => kill('timeout'), request.timeoutMs);
    const onAbort = () => kill('abort');
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener('abort', onAbort);
    try {
      const exitCode = await this.run(
        { argv: ['/bin/sh', '-c', FOREGROUND, commandId, ...request.command], user: this.user, cwd: request.cwd, env: request.env, stdin: request.stdin },
        (stream, chunk) => {
          tails[stream].push(chunk);
          options.onOutput?.(stream, chunk);
        },
      );
      const killed = killedBy !== undefined;
      return ExecResult.parse({
        exitCode: killed ? null : exitCode,
        signal: killed ? 'SIGKILL' : signalOf(exitCode),
        timedOut: killedBy === 'timeout',
        stdout: tails.stdout.text(),
        stderr: tails.stderr.text(),
        durationMs: performance.now() - started,
      });
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      stopClock();
    }
  }

  /** A terminal: an exec with a tty, killed by its process group like a foreground command; its timeout ends it. */
  async openPty(input: PtyRequest): Promise<PtySession> {
    const { columns, rows, ...request } = parseInput(PtyRequest, input, 'sandbox pty request');
    const commandId = randomBytes(8).toString('hex');
    const execId = await this.createExec({
      argv: ['/bin/sh', '-c', FOREGROUND, commandId, ...request.command],
      user: this.user,
      cwd: request.cwd,
      env: { TERM: 'xterm', ...request.env },
      tty: { columns, rows },
    });
    const socket = await this.engine.hijack(`/exec/${execId}/start`, { Detach: false, Tty: true, ConsoleSize: [rows, columns] });
    let killed = false;
    const kill = () => {
      killed = true;
      void this.runRoot(KILL, [commandId, 'kill']).catch(() => undefined);
    };
    const timer = setTimeout(kill, request.timeoutMs);
    const listeners: ((chunk: Buffer) => void)[] = [];
    const early: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => {
      if (listeners.length === 0) early.push(chunk);
      for (const listener of listeners) listener(chunk);
    });
    const closed = new Promise<void>((resolve) => {
      socket.once('end', resolve);
      socket.once('close', resolve);
      socket.once('error', () => resolve());
    });
    const exited = closed.then(async () => {
      clearTimeout(timer);
      socket.destroy();
      const code = await this.exitCodeOf(execId);
      // Killed (or timed out), the session has no exit code of its own, as with the local provider.
      return killed ? null : code;
    });
    const resize = (size: { columns: number; rows: number }) => this.engine.json('POST', `/exec/${execId}/resize`, { query: { h: size.rows, w: size.columns } }).catch(() => undefined);
    // Engines before API 1.42 ignore ConsoleSize: the size is set once the process runs, before anything is typed.
    await resize({ columns, rows });
    // A resize is an API call and input goes down the socket: one queue keeps them in the caller's order.
    let queue = Promise.resolve();
    const inOrder = (step: () => unknown): void => {
      queue = queue.then(step).then(
        () => undefined,
        () => undefined,
      );
    };
    return {
      write: (data) => inOrder(() => socket.writable && socket.write(data)),
      onData: (listener) => {
        listeners.push(listener);
        for (const chunk of early.splice(0)) listener(chunk);
      },
      resize: (cols, lines) => {
        const size = parseInput(PtySize, { columns: cols, rows: lines }, 'pty resize');
        inOrder(() => resize(size));
      },
      exited,
      kill,
    };
  }

  /** With `commandId`, idempotent: the container's wrapper starts a command once per id. */
  async startCommand(input: ExecRequest, options: { commandId?: string } = {}): Promise<{ commandId: string }> {
    const request = parseInput(ExecRequest, input, 'sandbox exec request');
    const commandId = checkCommandId(options.commandId ?? `cmd-${randomBytes(6).toString('hex')}`);
    if (request.stdin !== undefined) await this.putArchive(STATE_DIR, tarOfFile(`${commandId}.in`, Buffer.from(request.stdin), { mode: 0o600, ...(await this.owner()) }));
    const exec = await this.createExec({
      argv: ['/bin/sh', '-c', DETACHED, commandId, String(request.timeoutMs / 1000), ...request.command],
      user: this.user,
      cwd: request.cwd,
      env: request.env,
    });
    await this.engine.json('POST', `/exec/${exec}/start`, { json: { Detach: true, Tty: false } });
    return { commandId };
  }

  async commandStatus(commandId: string, options: { waitMs?: number } = {}): Promise<CommandStatus> {
    const tenths = Math.ceil((options.waitMs ?? 0) / 100);
    const result = await this.runRoot(STATUS, [checkCommandId(commandId), String(tenths), String(OUTPUT_TAIL_BYTES)]);
    if (result.exitCode === 3) throw new GymError('NOT_FOUND', `docker: sandbox ${this.id} has no command ${commandId}`);
    return parseStatusReport(commandId, result.stdout, result.stderr);
  }

  async killCommand(commandId: string): Promise<void> {
    await this.runRoot(KILL, [checkCommandId(commandId), 'mark']);
  }

  async readFile(file: string): Promise<Buffer> {
    const at = this.resolve(file);
    if (inTmpfs(at)) return this.readTmpfsFile(at);
    const chunks: Buffer[] = [];
    let kind: string | undefined;
    const reader = new TarReader((entry) => {
      if (kind !== undefined) return undefined;
      kind = entry.type;
      return entry.type === 'file' ? (chunk) => chunks.push(Buffer.from(chunk)) : undefined;
    });
    await this.getArchive(at, reader);
    if (kind !== 'file') throw new GymError('BAD_INPUT', `docker: ${at} in sandbox ${this.id} is not a file`);
    return Buffer.concat(chunks);
  }

  async writeFile(file: string, data: string | Buffer, options: { mode?: number } = {}): Promise<void> {
    const at = this.resolve(file);
    if (inTmpfs(at)) return this.writeTmpfsFile(at, data, options.mode ?? 0o644);
    const tar = tarOfFile(path.posix.basename(at), typeof data === 'string' ? Buffer.from(data) : data, { mode: options.mode ?? 0o644, ...(await this.owner()) });
    try {
      await this.putArchive(path.posix.dirname(at), tar);
    } catch (e) {
      if (!(isGymError(e) && e.code === 'NOT_FOUND')) throw e;
      await this.mkdirs(path.posix.dirname(at));
      await this.putArchive(path.posix.dirname(at), tar);
    }
  }

  async upload(hostPath: string, file: string): Promise<void> {
    const at = this.resolve(file);
    await this.mkdirs(path.posix.dirname(at));
    await this.putArchive(path.posix.dirname(at), Readable.from(packHostPath(hostPath, path.posix.basename(at), await this.owner())));
  }

  async download(file: string, hostPath: string): Promise<void> {
    const unpacker = hostUnpacker(hostPath);
    await this.getArchive(this.resolve(file), unpacker.reader);
    unpacker.finish();
  }

  async listFiles(folder: string): Promise<FileEntry[]> {
    const at = this.resolve(folder);
    const result = await this.runAs(this.user, LIST, [at]);
    if (result.exitCode === 3) throw new GymError('NOT_FOUND', `docker: ${at} in sandbox ${this.id} is not a folder`);
    if (result.exitCode !== 0) throw new GymError('ENV_ERROR', `docker: listing ${at} in sandbox ${this.id} failed: ${result.stderr.trim()}`);
    return result.stdout
      .split('\0')
      .filter((line) => line !== '')
      .map((line) => {
        const [kind, size, ...name] = line.split(' ');
        const type = kind === 'f' ? 'file' : kind === 'd' ? 'directory' : kind === 'l' ? 'symlink' : 'other';
        return FileEntry.parse({ name: name.join(' '), type, sizeBytes: Number(size) });
      })
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  async status(): Promise<SandboxState> {
    try {
      const info = await this.engine.json<ContainerInspect>('GET', `/containers/${this.id}/json`);
      return containerState(info.State.Status);
    } catch (e) {
      if (isGymError(e) && e.code === 'NOT_FOUND') return 'gone';
      throw e;
    }
  }

  async keepalive(ms: number): Promise<void> {
    await this.runRoot(KEEPALIVE, [String(Math.ceil(ms / 1000))]);
  }

  async pause(): Promise<void> {
    await this.engine.json('POST', `/containers/${this.id}/pause`);
  }

  async resume(): Promise<void> {
    await this.engine.json('POST', `/containers/${this.id}/unpause`);
  }

  async destroy(): Promise<void> {
    try {
      await this.engine.json('DELETE', `/containers/${this.id}`, { query: { force: true, v: true } });
    } catch (e) {
      // Gone already, or being removed by another caller (gc racing a rollout's own cleanup).
      if (!(isGymError(e) && (e.code === 'NOT_FOUND' || (e.code === 'CONFLICT' && /in progress/i.test(e.message))))) throw e;
    }
    const close = this.closeForwarders;
    this.closeForwarders = undefined;
    await close?.();
  }

  /** Starts the in-container half of the `allow` relays and waits until every port listens. */
  async startRelay(endpoints: readonly Endpoint[]): Promise<void> {
    const ready = `${STATE_DIR}/relay.ready`;
    const pairs = endpoints.map((e, i) => `${bindAddress(e)}:${e.port}=${FORWARD_MOUNT}/${socketName(i)}`);
    const { commandId } = await this.startCommand({ command: ['python3', '-c', RELAY_PY, ...pairs, ready], timeoutMs: 2 ** 31 - 1 });
    const wait = await this.runRoot(`k=0; while [ ! -f "$0" ] && [ $k -lt 100 ]; do sleep 0.05; k=$((k+1)); done; [ -f "$0" ]`, [ready]);
    if (wait.exitCode !== 0) {
      const relay = await this.commandStatus(commandId);
      throw new GymError('SETUP_FAILED', `docker: the network relay of sandbox ${this.id} did not start (the allow policy needs python3 in the image): ${relay.stderrTail.trim()}`);
    }
  }

  /** A file in /tmp, read by the sandbox's user in the container (the archive endpoint cannot see the tmpfs). */
  private async readTmpfsFile(at: string): Promise<Buffer> {
    const result = await this.runBytes(this.user, '[ -e "$0" ] || exit 3; [ -f "$0" ] || exit 4; exec cat "$0"', [at]);
    if (result.exitCode === 3) throw new GymError('NOT_FOUND', `docker: no file ${at} in sandbox ${this.id}`);
    if (result.exitCode === 4) throw new GymError('BAD_INPUT', `docker: ${at} in sandbox ${this.id} is not a file`);
    if (result.exitCode !== 0) throw new GymError('ENV_ERROR', `docker: reading ${at} in sandbox ${this.id} failed: ${result.stderr.toString('utf8').trim()}`);
    return result.stdout;
  }

  /** A file in /tmp, written by the sandbox's user (so it is theirs, as with the archive endpoint) from stdin. */
  private async writeTmpfsFile(at: string, data: string | Buffer, mode: number): Promise<void> {
    const script = 'mkdir -p "$(dirname "$0")" && cat > "$0" && chmod "$1" "$0"';
    const result = await this.runBytes(this.user, script, [at, mode.toString(8)], typeof data === 'string' ? Buffer.from(data) : data);
    if (result.exitCode !== 0) throw new GymError('BAD_INPUT', `docker: cannot write ${at} in sandbox ${this.id}: ${result.stderr.toString('utf8').trim()}`);
  }

  /** The numeric uid and gid of the sandbox's user: files put into the sandbox are theirs. */
  async owner(): Promise<{ uid: number; gid: number }> {
    if (this.ids) return this.ids;
    const numeric = /^(\d+)(?::(\d+))?$/.exec(this.user);
    if (numeric) return (this.ids = { uid: Number(numeric[1]), gid: Number(numeric[2] ?? numeric[1]) });
    const result = await this.runAs(this.user, 'id -u; id -g', []);
    const [uid, gid] = result.stdout.trim().split('\n').map(Number);
    if (result.exitCode !== 0 || !Number.isInteger(uid) || !Number.isInteger(gid)) {
      throw new GymError('SETUP_FAILED', `docker: sandbox ${this.id}: user ${this.user} is not known in its image: ${result.stderr.trim()}`);
    }
    return (this.ids = { uid: uid!, gid: gid! });
  }

  /** A bookkeeping script as root (the sandbox's user cannot read or kill other users' commands). */
  runRoot(script: string, args: string[]): Promise<{ exitCode: number; stdout: string; stderr: string }> {
    return this.runAs('0:0', script, args);
  }

  private async runAs(user: string, script: string, args: string[]): Promise<{ exitCode: number; stdout: string; stderr: string }> {
    const result = await this.runBytes(user, script, args);
    return { exitCode: result.exitCode, stdout: result.stdout.toString('utf8'), stderr: result.stderr.toString('utf8') };
  }

  private async runBytes(user: string, script: string, args: string[], stdin?: Buffer): Promise<{ exitCode: number; stdout: Buffer; stderr: Buffer }> {
    const out = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
    const exitCode = await this.run({ argv: ['/bin/sh', '-c', script, ...args], user, cwd: '/', stdin }, (stream, chunk) => out[stream].push(Buffer.from(chunk)));
    return { exitCode, stdout: Buffer.concat(out.stdout), stderr: Buffer.concat(out.stderr) };
  }

  private async createExec(exec: RawExec): Promise<string> {
    const created = await this.engine.json<{ Id: string }>('POST', `/containers/${this.id}/exec`, {
      json: {
        Cmd: exec.argv,
        User: exec.user,
        WorkingDir: exec.cwd ?? this.workdir,
        Env: Object.entries(exec.env ?? {}).map(([k, v]) => `${k}=${v}`),
        AttachStdin: exec.stdin !== undefined || exec.tty !== undefined,
        AttachStdout: true,
        AttachStderr: true,
        Tty: exec.tty !== undefined,
        ...(exec.tty && { ConsoleSize: [exec.tty.rows, exec.tty.columns] }),
      },
    });
    return created.Id;
  }

  /** Runs an exec to its end, streaming its output; resolves with its exit code. */
  private async run(exec: RawExec, onOutput: (stream: OutputStream, chunk: Buffer) => void): Promise<number> {
    const execId = await this.createExec(exec);
    const socket = await this.engine.hijack(`/exec/${execId}/start`, { Detach: false, Tty: false });
    const demuxer = new Demuxer(onOutput);
    await new Promise<void>((resolve, reject) => {
      socket.on('data', (chunk: Buffer) => demuxer.push(chunk));
      socket.once('end', resolve);
      socket.once('close', resolve);
      socket.once('error', reject);
      if (exec.stdin !== undefined) socket.end(exec.stdin);
    });
    socket.destroy();
    return this.exitCodeOf(execId);
  }

  /** The stream ends as the process does; the engine records the exit code a moment later. */
  private async exitCodeOf(execId: string): Promise<number> {
    for (let i = 0; ; i++) {
      const info = await this.engine.json<{ Running: boolean; ExitCode: number | null }>('GET', `/exec/${execId}/json`);
      if (!info.Running && info.ExitCode !== null) return info.ExitCode;
      if (i >= 200) throw new GymError('ENV_ERROR', `docker: exec ${execId} in sandbox ${this.id} ended its output but not its process`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  private async putArchive(folder: string, body: Buffer | Readable): Promise<void> {
    const response = await this.engine.call('PUT', `/containers/${this.id}/archive`, {
      query: { path: folder },
      body,
      contentType: 'application/x-tar',
    });
    await response.body.dump();
  }

  private async getArchive(at: string, reader: TarReader): Promise<void> {
    const response = await this.engine.call('GET', `/containers/${this.id}/archive`, { query: { path: at } });
    for await (const chunk of response.body) reader.push(chunk as Buffer);
    reader.end();
  }

  private async mkdirs(folder: string): Promise<void> {
    const result = await this.runAs(this.user, 'mkdir -p "$0"', [folder]);
    if (result.exitCode !== 0) throw new GymError('BAD_INPUT', `docker: cannot make ${folder} in sandbox ${this.id}: ${result.stderr.trim()}`);
  }

  private resolve(file: string): string {
    return path.posix.resolve(this.workdir, file);
  }
}

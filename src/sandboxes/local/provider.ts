// The `local` sandbox provider: a sandbox is a folder on this machine (workspace, /tmp, its record), and
// every command runs in a bubblewrap jail over that folder (bwrap.ts) — no network, read-only system, limits.
import { randomBytes } from 'node:crypto';
import { constants, existsSync, lstatSync, readdirSync, readlinkSync, statSync } from 'node:fs';
import { chown, cp, lstat, mkdir, open, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, posix, resolve } from 'node:path';
import { z } from 'zod';
import { GymError } from '../../errors';
import { stateDir } from '../../util/paths';
import { parseInput } from '../parse';
import type { ExecOptions, OutputStream, PtySession, Sandbox, SandboxProvider } from '../provider';
import {
  ExecRequest,
  OUTPUT_TAIL_BYTES,
  PtyRequest,
  SandboxSpec,
  type CommandStatus,
  type ExecResult,
  type FileEntry,
  type ResolvedSandboxSpec,
  type SandboxInfo,
  type SandboxLabels,
  type SandboxState,
} from '../schema';
import { findOnPath, jailLaunch, jailUser, launchJail, type Jail, type JailMount, type JailPolicy } from './bwrap';
import { checkCommandId } from '../detached';
import { detachedStatus, killDetached, startDetached } from './commands';
import { ptyCommand, relaySession } from './pty';
import { HostForwarders, allowedHostNames, checkEndpoints } from './network';
import { hostPathOf, type Area } from './paths';
import { MARKER, killSandboxProcesses } from './processes';
import { isAlive, processIdentity, readRecord, resolvedSpec, writeRecord, type SandboxRecord } from './record';

export const LocalProviderOptions = z.strictObject({
  /** Folder holding one folder per sandbox (default $GYMFLOW_SANDBOX_ROOT, else .gymflow/sandboxes). */
  root: z.string().min(1).optional(),
  /** Run commands as plain processes where bwrap is missing: they then see this whole machine. */
  unsafeNoIsolation: z.boolean().default(false),
});
export type LocalProviderOptions = z.input<typeof LocalProviderOptions>;

const UNSAFE_HINT = 'create the local sandbox provider with unsafeNoIsolation: true (gym: --unsafe-no-isolation)';
const SANDBOX_ID = /^sbx-[0-9a-f]{16}$/;

/** The host's programs and libraries, shown read-only when the spec names no root file system. */
const HOST_SYSTEM = ['/usr', '/bin', '/sbin', '/lib', '/lib64', '/lib32', '/libx32'];
/** The few host /etc entries programs need (TLS roots, the loader cache, alternatives): never the rest. */
const HOST_ETC = ['/etc/alternatives', '/etc/ssl', '/etc/ca-certificates', '/etc/ld.so.cache', '/etc/localtime', '/etc/nsswitch.conf'];
/** An image's top-level entries the jail provides itself. */
const OWN_TOP_LEVEL = new Set(['dev', 'proc', 'sys', 'tmp']);

let warnedUnsafe = false;

function warnUnsafe(): void {
  if (warnedUnsafe) return;
  warnedUnsafe = true;
  process.stderr.write(
    '\n!!! WARNING: bubblewrap (bwrap) is not installed and unsafeNoIsolation is set: sandbox commands run as\n' +
      "!!! plain processes that can read this machine's files and keys and reach its network. Install Debian's\n" +
      '!!! "bubblewrap" package to isolate them.\n\n',
  );
}

export function sandboxRoot(root?: string): string {
  return resolve(root ?? process.env.GYMFLOW_SANDBOX_ROOT ?? join(stateDir(), 'sandboxes'));
}

/**
 * As root, bwrap binds the workspace as the jail's user, so every folder above the sandbox root must let
 * that user through: a private parent (a 0700 home or temp folder) is named here instead of failing later.
 */
function checkReachable(user: { uid: number; gid: number }, root: string): void {
  for (let dir = resolve(root); ; dir = dirname(dir)) {
    const st = statSync(dir);
    const through = st.uid === user.uid ? st.mode & 0o100 : st.gid === user.gid ? st.mode & 0o010 : st.mode & 0o001;
    if (!through) {
      throw new GymError(
        'SETUP_FAILED',
        `the local sandbox root ${root} is not reachable by the jail's user (uid ${user.uid}): ${dir} (mode ${(st.mode & 0o777).toString(8)}) does not let others through; ` +
          'set GYMFLOW_SANDBOX_ROOT (or GYMFLOW_HOME) to a folder under world-searchable parents, or chmod o+x that folder',
      );
    }
    if (dir === dirname(dir)) return;
  }
}

function parseUser(user: string | undefined): { uid: number; gid: number } | undefined {
  if (user === undefined) return undefined;
  const match = /^(\d+)(?::(\d+))?$/.exec(user);
  if (!match) throw new GymError('BAD_INPUT', `sandbox spec field "user": the local provider takes a numeric uid or uid:gid, not ${JSON.stringify(user)}`);
  return { uid: Number(match[1]), gid: Number(match[2] ?? match[1]) };
}

function parseSpec(spec: unknown): ResolvedSandboxSpec {
  const parsed = SandboxSpec.safeParse(spec);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new GymError('BAD_INPUT', `sandbox spec field "${issue.path.join('.') || '(root)'}": ${issue.message}`);
  }
  return parsed.data;
}

function matches(labels: SandboxLabels, wanted: Partial<SandboxLabels> | undefined): boolean {
  return Object.entries(wanted ?? {}).every(([key, value]) => value === undefined || labels[key as keyof SandboxLabels] === value);
}

export class LocalProvider implements SandboxProvider {
  readonly name = 'local' as const;
  readonly root: string;
  private readonly isolation: 'bwrap' | 'none';

  constructor(options: LocalProviderOptions = {}) {
    const parsed = LocalProviderOptions.safeParse(options);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new GymError('BAD_INPUT', `local sandbox provider option "${issue.path.join('.') || '(root)'}": ${issue.message}`);
    }
    this.root = sandboxRoot(parsed.data.root);
    // Without bwrap and without the opt-out, `create` refuses, saying what to install.
    this.isolation = findOnPath('bwrap') || !parsed.data.unsafeNoIsolation ? 'bwrap' : 'none';
  }

  async create(input: SandboxSpec): Promise<LocalSandbox> {
    const spec = parseSpec(input);
    if (this.isolation === 'bwrap' && !findOnPath('bwrap')) {
      throw new GymError(
        'SETUP_FAILED',
        `local sandboxes run in a bubblewrap jail, and bwrap is not installed: install Debian's "bubblewrap" package (apt-get install -y bubblewrap), or ${UNSAFE_HINT} to run without isolation`,
      );
    }
    if (this.isolation === 'none') warnUnsafe();
    parseUser(spec.user);
    if (spec.image !== undefined && !lstatSync(spec.image, { throwIfNoEntry: false })?.isDirectory()) {
      throw new GymError('BAD_INPUT', `sandbox spec field "image": the local provider takes a root file system folder (e.g. made by mmdebstrap), and ${spec.image} is not one`);
    }
    if (spec.network.mode === 'allow') checkEndpoints(spec.network.endpoints);
    for (const [i, mount] of spec.mounts.entries()) {
      if (!existsSync(mount.hostPath)) throw new GymError('BAD_INPUT', `sandbox spec field "mounts.${i}.hostPath": ${mount.hostPath} does not exist`);
    }
    const id = `sbx-${randomBytes(8).toString('hex')}`;
    const dir = join(this.root, id);
    await mkdir(this.root, { recursive: true });
    const jailed = jailUser();
    if (jailed && this.isolation === 'bwrap') checkReachable(jailed, this.root);
    // Traversable by the jail's user (bwrap binds the workspace as it), readable by nobody else.
    await mkdir(dir, { mode: 0o711 });
    for (const sub of ['workspace', 'tmp', 'commands', 'etc']) await mkdir(join(dir, sub), { mode: sub === 'commands' ? 0o700 : 0o755 });
    const user = jailUser();
    if (user) for (const sub of ['workspace', 'tmp']) await chown(join(dir, sub), user.uid, user.gid);
    const inner = parseUser(spec.user) ?? { uid: process.getuid?.() === 0 ? 65534 : (process.getuid?.() ?? 1000), gid: process.getgid?.() === 0 ? 65534 : (process.getgid?.() ?? 1000) };
    await writeFile(
      join(dir, 'etc', 'passwd'),
      `root:x:0:0:root:/root:/bin/sh\nsandbox:x:${inner.uid}:${inner.gid}:sandbox:${spec.workdir}:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`,
    );
    await writeFile(join(dir, 'etc', 'group'), `root:x:0:\nsandbox:x:${inner.gid}:\nnogroup:x:65534:\n`);
    // Allowed endpoints answer on the jail's loopback, under their own names too.
    const names = spec.network.mode === 'allow' ? allowedHostNames(spec.network.endpoints) : [];
    await writeFile(join(dir, 'etc', 'hosts'), `127.0.0.1 localhost${names.map((n) => ` ${n}`).join('')}\n::1 localhost\n`);
    const created = new Date();
    const record: SandboxRecord = {
      id,
      labels: spec.labels,
      spec,
      owner: processIdentity(),
      createdAt: created.toISOString(),
      expiresAt: spec.resources.lifetimeMs === undefined ? null : new Date(created.getTime() + spec.resources.lifetimeMs).toISOString(),
      destroying: false,
    };
    await writeRecord(dir, record);
    return new LocalSandbox(dir, record, this.isolation);
  }

  async attach(id: string): Promise<LocalSandbox> {
    if (!SANDBOX_ID.test(id)) throw new GymError('NOT_FOUND', `${JSON.stringify(id)} is not a local sandbox id`);
    const dir = join(this.root, id);
    const record = await readRecord(dir);
    if (!record || record.destroying) throw new GymError('NOT_FOUND', `local sandbox ${id} is gone (no ${dir})`);
    // Whoever attaches owns it now: the orphan reaper must not take it from a live retry.
    const owned = { ...record, owner: processIdentity() };
    await writeRecord(dir, owned);
    return new LocalSandbox(dir, owned, this.isolation);
  }

  async list(labels?: Partial<SandboxLabels>): Promise<SandboxInfo[]> {
    const names = await readdir(this.root).catch(() => [] as string[]);
    const infos: SandboxInfo[] = [];
    for (const name of names.filter((n) => SANDBOX_ID.test(n)).sort()) {
      const record = await readRecord(join(this.root, name)).catch(() => undefined);
      if (!record || !matches(record.labels, labels)) continue;
      infos.push({
        id: record.id,
        provider: 'local',
        state: record.destroying ? 'stopped' : 'running',
        labels: record.labels,
        createdAt: record.createdAt,
        expiresAt: record.expiresAt,
        ownerAlive: isAlive(record.owner),
      });
    }
    return infos;
  }
}

/** Keeps the last `limit` bytes of a stream. */
class Tail {
  private chunks: Buffer[] = [];
  private bytes = 0;
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    while (this.chunks.length > 1 && this.bytes - this.chunks[0]!.length >= OUTPUT_TAIL_BYTES) this.bytes -= this.chunks.shift()!.length;
  }
  text(): string {
    const all = Buffer.concat(this.chunks);
    return all.subarray(Math.max(0, all.length - OUTPUT_TAIL_BYTES)).toString('utf8');
  }
}

export class LocalSandbox implements Sandbox {
  readonly provider = 'local' as const;
  readonly id: string;
  readonly labels: SandboxLabels;
  private readonly spec: ResolvedSandboxSpec;
  private readonly jails = new Set<Jail>();
  /** Serves the `allow` policy's endpoints, once this process runs a command of the sandbox. */
  private readonly forwarders?: HostForwarders;

  constructor(
    readonly dir: string,
    private record: SandboxRecord,
    private readonly isolation: 'bwrap' | 'none',
  ) {
    this.id = record.id;
    this.labels = record.labels;
    this.spec = resolvedSpec(record);
    if (this.spec.network.mode === 'allow' && isolation === 'bwrap') this.forwarders = new HostForwarders(join(dir, 'net'), this.spec.network.endpoints);
  }

  private get areas(): Area[] {
    return [
      { jailPath: this.spec.workdir, hostPath: join(this.dir, 'workspace') },
      { jailPath: '/tmp', hostPath: join(this.dir, 'tmp') },
    ];
  }

  private async ensureLive(): Promise<void> {
    if (!existsSync(join(this.dir, 'sandbox.json'))) throw new GymError('NOT_FOUND', `local sandbox ${this.id} is gone`);
  }

  /** The jail a command runs in and what it runs there (behind the network forwarder when the policy allows endpoints). */
  private async prepare(request: z.output<typeof ExecRequest>): Promise<{ policy: JailPolicy; command: string[] }> {
    const policy = this.policy(request);
    if (!this.forwarders) return { policy, command: request.command };
    await this.forwarders.start();
    const net = this.forwarders.jail(request.command);
    return { policy: { ...policy, mounts: [...(policy.mounts ?? []), ...net.mounts] }, command: net.command };
  }

  private policy(request: z.output<typeof ExecRequest>): JailPolicy {
    const spec = this.spec;
    const workspace = join(this.dir, 'workspace');
    const tmp = join(this.dir, 'tmp');
    const jailed = this.isolation === 'bwrap';
    const rootMounts: JailMount[] = [];
    const symlinks: { target: string; path: string }[] = [];
    let readOnly: string[] = [];
    const mounts: JailMount[] = [{ hostPath: tmp, path: '/tmp', writable: true }];
    if (spec.image) {
      // The image's top-level entries one by one, so the jail's root stays its own and mount points
      // (the workdir) can be made in it.
      for (const name of readdirSync(spec.image)) {
        if (OWN_TOP_LEVEL.has(name)) continue;
        const path = join(spec.image, name);
        if (lstatSync(path).isSymbolicLink()) symlinks.push({ target: readlinkSync(path), path: `/${name}` });
        else rootMounts.push({ hostPath: path, path: `/${name}`, writable: false });
      }
    } else {
      readOnly = [...HOST_SYSTEM, ...HOST_ETC].filter((p) => existsSync(p));
      for (const name of ['passwd', 'group', 'hosts']) mounts.push({ hostPath: join(this.dir, 'etc', name), path: `/etc/${name}`, writable: false });
      if (spec.network.mode === 'host' && existsSync('/etc/resolv.conf')) readOnly.push('/etc/resolv.conf');
    }
    mounts.push(...spec.mounts.map((m) => ({ hostPath: m.hostPath, path: m.path, writable: m.writable })));
    const env = {
      PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      LANG: 'C.UTF-8',
      HOME: jailed ? spec.workdir : workspace,
      TMPDIR: jailed ? '/tmp' : tmp,
      ...spec.env,
      ...request.env,
    };
    const cpuSeconds = Math.ceil(request.timeoutMs / 1000) + 1;
    return {
      workspace,
      workspaceAt: spec.workdir,
      readOnly,
      rootMounts,
      symlinks,
      mounts,
      cwd: request.cwd,
      network: spec.network.mode === 'host' ? 'host' : 'none',
      innerUser: parseUser(spec.user),
      hostEnv: { [MARKER]: this.id },
      env,
      limits: {
        cpuSeconds: cpuSeconds * Math.max(1, Math.ceil(spec.resources.cpus ?? 1)),
        addressSpaceBytes: spec.resources.memoryBytes,
        processes: spec.resources.pids,
        fileSizeBytes: spec.resources.fileSizeBytes,
        cpus: spec.resources.cpus,
      },
      deadlineMs: request.timeoutMs,
      isolation: this.isolation,
    };
  }

  private parseRequest(request: ExecRequest): z.output<typeof ExecRequest> {
    const parsed = ExecRequest.safeParse(request);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new GymError('BAD_INPUT', `sandbox exec request field "${issue.path.join('.') || '(root)'}": ${issue.message}`);
    }
    return parsed.data;
  }

  async exec(input: ExecRequest, options: ExecOptions = {}): Promise<ExecResult> {
    await this.ensureLive();
    const request = this.parseRequest(input);
    const started = performance.now();
    const { policy, command } = await this.prepare(request);
    const jail = launchJail(policy, command, UNSAFE_HINT);
    this.jails.add(jail);
    const tails = { stdout: new Tail(), stderr: new Tail() };
    const collect = (stream: OutputStream) => (chunk: Buffer) => {
      tails[stream].push(chunk);
      options.onOutput?.(stream, chunk);
    };
    jail.stdout.on('data', collect('stdout'));
    jail.stderr.on('data', collect('stderr'));
    jail.stdin.end(request.stdin ?? '');
    const abort = () => jail.kill();
    options.signal?.addEventListener('abort', abort);
    if (options.signal?.aborted) abort();
    try {
      const exit = await jail.done;
      return {
        exitCode: exit.exitCode,
        signal: exit.signal,
        timedOut: exit.timedOut,
        stdout: tails.stdout.text(),
        stderr: tails.stderr.text(),
        durationMs: performance.now() - started,
      };
    } finally {
      options.signal?.removeEventListener('abort', abort);
      this.jails.delete(jail);
    }
  }

  /** A terminal: the command runs on a pty made inside the jail by a Python relay (pty.ts), so it needs python3 there. */
  async openPty(input: PtyRequest): Promise<PtySession> {
    await this.ensureLive();
    const { columns, rows, ...request } = parseInput(PtyRequest, input, 'sandbox pty request');
    const { policy, command } = await this.prepare({ ...request, command: ptyCommand(this.python(), request.command, columns, rows) });
    const jail = launchJail(policy, command, UNSAFE_HINT);
    this.jails.add(jail);
    void jail.done.finally(() => this.jails.delete(jail)).catch(() => undefined);
    return relaySession(jail);
  }

  /** The python3 the pty relay runs with, as the jail names it. */
  private python(): string {
    if (!this.spec.image) {
      const host = findOnPath('python3', '/usr/local/bin:/usr/bin:/bin');
      if (host) return host;
    } else {
      for (const candidate of ['/usr/bin/python3', '/usr/local/bin/python3']) if (existsSync(join(this.spec.image, candidate))) return candidate;
    }
    const where = this.spec.image ? `the image ${this.spec.image}` : 'this machine';
    throw new GymError('SETUP_FAILED', `local sandbox ${this.id}: a pty session needs python3 in ${where} (Debian package "python3"), and there is none`);
  }

  /** With `commandId`, idempotent: a command already started under that id is not started again. */
  async startCommand(input: ExecRequest, options: { commandId?: string } = {}): Promise<{ commandId: string }> {
    await this.ensureLive();
    const request = this.parseRequest(input);
    const commandId = checkCommandId(options.commandId ?? `cmd-${randomBytes(6).toString('hex')}`);
    const { policy, command } = await this.prepare(request);
    const launch = jailLaunch(policy, command, UNSAFE_HINT);
    await startDetached(join(this.dir, 'commands'), commandId, this.id, launch, Date.now() + request.timeoutMs, request.stdin);
    return { commandId };
  }

  async commandStatus(commandId: string, options: { waitMs?: number } = {}): Promise<CommandStatus> {
    await this.ensureLive();
    return detachedStatus(join(this.dir, 'commands'), commandId, options.waitMs);
  }

  async killCommand(commandId: string): Promise<void> {
    await this.ensureLive();
    await killDetached(join(this.dir, 'commands'), commandId);
  }

  private hostPath(path: string, followLast = true): Promise<string> {
    return hostPathOf(this.areas, path, this.spec.workdir, followLast);
  }

  /** Gives what the provider wrote to the jail's user, so commands can change it. */
  private async handOver(hostPath: string): Promise<void> {
    const user = jailUser();
    if (!user) return;
    const stat = await lstat(hostPath);
    await chown(hostPath, user.uid, user.gid).catch(() => undefined);
    if (stat.isDirectory()) for (const name of await readdir(hostPath)) await this.handOver(join(hostPath, name));
  }

  async readFile(path: string): Promise<Buffer> {
    await this.ensureLive();
    const host = await this.hostPath(path);
    try {
      // O_NOFOLLOW: a symlink swapped in since the check is refused, not followed.
      const file = await open(host, constants.O_RDONLY | constants.O_NOFOLLOW);
      try {
        return await file.readFile();
      } finally {
        await file.close();
      }
    } catch (error) {
      throw fileError(error, path);
    }
  }

  async writeFile(path: string, data: string | Buffer, options: { mode?: number } = {}): Promise<void> {
    await this.ensureLive();
    const host = await this.hostPath(path);
    const parent = posix.dirname(host);
    try {
      await this.makeParents(parent);
      const file = await open(host, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, options.mode ?? 0o644);
      try {
        await file.writeFile(data);
        if (options.mode !== undefined) await file.chmod(options.mode);
      } finally {
        await file.close();
      }
      await this.handOver(host);
    } catch (error) {
      throw fileError(error, path);
    }
  }

  private async makeParents(hostDir: string): Promise<void> {
    const made = await mkdir(hostDir, { recursive: true });
    if (made) await this.handOver(made);
  }

  async upload(hostPath: string, path: string): Promise<void> {
    await this.ensureLive();
    const host = await this.hostPath(path);
    try {
      await this.makeParents(posix.dirname(host));
      await cp(hostPath, host, { recursive: true, verbatimSymlinks: true });
      await this.handOver(host);
    } catch (error) {
      throw fileError(error, path);
    }
  }

  async download(path: string, hostPath: string): Promise<void> {
    await this.ensureLive();
    const host = await this.hostPath(path);
    try {
      // A symlink the sandbox made would point at this machine's files once outside: left behind.
      await cp(host, hostPath, { recursive: true, filter: async (source) => !(await lstat(source)).isSymbolicLink() });
    } catch (error) {
      throw fileError(error, path);
    }
  }

  async listFiles(path: string): Promise<FileEntry[]> {
    await this.ensureLive();
    const host = await this.hostPath(path);
    try {
      const entries = await readdir(host, { withFileTypes: true });
      const files: FileEntry[] = [];
      for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
        const stat = await lstat(join(host, entry.name)).catch(() => undefined);
        if (!stat) continue;
        const type = stat.isFile() ? 'file' : stat.isDirectory() ? 'directory' : stat.isSymbolicLink() ? 'symlink' : 'other';
        files.push({ name: entry.name, type, sizeBytes: stat.isFile() ? stat.size : 0 });
      }
      return files;
    } catch (error) {
      throw fileError(error, path);
    }
  }

  async status(): Promise<SandboxState> {
    const record = await readRecord(this.dir).catch(() => undefined);
    return !record || record.destroying ? 'gone' : 'running';
  }

  async keepalive(ms: number): Promise<void> {
    await this.ensureLive();
    const record = (await readRecord(this.dir)) ?? this.record;
    this.record = { ...record, expiresAt: new Date(Date.now() + ms).toISOString() };
    await writeRecord(this.dir, this.record);
  }

  async destroy(): Promise<void> {
    const record = await readRecord(this.dir).catch(() => undefined);
    if (record && !record.destroying) await writeRecord(this.dir, { ...record, destroying: true }).catch(() => undefined);
    for (const jail of this.jails) jail.kill();
    await Promise.allSettled([...this.jails].map((jail) => jail.done));
    await killSandboxProcesses(this.id);
    await this.forwarders?.close();
    await rm(this.dir, { recursive: true, force: true });
  }
}

function fileError(error: unknown, path: string): Error {
  if (error instanceof GymError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new GymError('NOT_FOUND', `sandbox path ${path} does not exist`);
  if (code === 'ELOOP') return new GymError('BAD_INPUT', `sandbox path ${path} is a symbolic link`);
  if (code === 'EISDIR' || code === 'ENOTDIR') return new GymError('BAD_INPUT', `sandbox path ${path}: ${(error as Error).message}`);
  return error as Error;
}

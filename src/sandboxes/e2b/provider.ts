// The `e2b` sandbox provider: one E2B cloud sandbox (a VM made from a template) per Gymflow sandbox, driven
// through E2B's official SDK; labels live in the sandbox's metadata, the API key only in the worker's env.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { CommandExitError, Sandbox as E2bSdkSandbox, type CommandHandle, type ConnectionOpts } from 'e2b';
import { z } from 'zod';
import { GymError, isGymError } from '../../errors';
import { Tail } from '../docker/demux';
import { hostUnpacker, packHostPath } from '../docker/tar';
import { checkCommandId, parseStatusReport, signalOf } from '../detached';
import { startSandboxClock } from '../meter';
import { parseInput } from '../parse';
import type { ExecOptions, PtySession, Sandbox, SandboxProvider } from '../provider';
import { type CommandStatus, ExecRequest, ExecResult, FileEntry, OUTPUT_TAIL_BYTES, SandboxSpec, type ResolvedSandboxSpec, type SandboxInfo, type SandboxLabels, type SandboxState } from '../schema';
import { gymErrorOf } from './errors';
import { DETACHED, detachedStdinPath, FOREGROUND, KILL_DETACHED, KILL_FOREGROUND, quote, SETUP, shLine, STATE_DIR, STATUS, TAR, UNTAR } from './shell';
import { checkResources, DEFAULT_USER, labelsOf, META, metadataFilter, metadataOf, networkOptions } from './spec';

export const E2bProviderOptions = z.strictObject({
  /** The worker's environment variable holding the API key (never the key itself: options may come from a workflow input). */
  apiKeyEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')
    .default('E2B_API_KEY'),
  /** E2B's domain; default E2B_DOMAIN, else e2b.app. */
  domain: z.string().min(1).optional(),
  /** The control-plane API's URL; default E2B_API_URL, else https://api.<domain>. */
  apiUrl: z.url().optional(),
  /** One URL for every sandbox's envd (a self-hosted or test deployment); default E2B_SANDBOX_URL, else per-sandbox hosts. */
  sandboxUrl: z.url().optional(),
  requestTimeoutMs: z.number().int().positive().optional(),
  /** A sandbox's E2B timeout when the spec sets no lifetime: E2B kills it then, so a dead worker's sandbox cannot outlive it. */
  defaultLifetimeMs: z.number().int().positive().default(3_600_000),
  /** Accept that `allow` opens every port of an allowed host (E2B filters by host only). */
  allowByHost: z.boolean().default(false),
});
export type E2bProviderOptions = z.input<typeof E2bProviderOptions>;

export class E2bProvider implements SandboxProvider {
  readonly name = 'e2b' as const;
  private readonly options: z.output<typeof E2bProviderOptions>;

  constructor(options: E2bProviderOptions = {}) {
    this.options = parseInput(E2bProviderOptions, options, 'e2b sandbox provider option');
  }

  async create(input: SandboxSpec): Promise<Sandbox> {
    const spec = parseInput(SandboxSpec, input, 'sandbox spec');
    if (spec.image === undefined) throw new GymError('BAD_INPUT', 'sandbox spec field "image": the e2b provider needs the name or id of an E2B template');
    checkResources(spec);
    const network = networkOptions(spec.network, this.options.allowByHost);
    const user = spec.user ?? DEFAULT_USER;
    const connection = this.connection();
    let sdk: E2bSdkSandbox;
    try {
      sdk = await E2bSdkSandbox.create(spec.image, {
        ...connection,
        metadata: metadataOf(spec, user),
        envs: spec.env,
        timeoutMs: spec.resources.lifetimeMs ?? this.options.defaultLifetimeMs,
        ...network,
      });
    } catch (e) {
      const error = gymErrorOf(e, `creating a sandbox from template ${spec.image}`, this.options.apiKeyEnv);
      if (error.code === 'NOT_FOUND')
        throw new GymError('SETUP_FAILED', `e2b: there is no template ${spec.image} for this API key: build it first (e2b template build) or name an existing one (${error.message})`);
      throw error;
    }
    const sandbox = new E2bSandbox(sdk, connection, spec.labels, user, spec.workdir, this.options.apiKeyEnv);
    try {
      await sandbox.setUp(spec);
    } catch (e) {
      await sandbox.destroy();
      throw e;
    }
    return sandbox;
  }

  async attach(id: string): Promise<Sandbox> {
    const connection = this.connection();
    const info = await E2bSdkSandbox.getInfo(id, connection).catch((e: unknown) => {
      throw this.notFound(e, id);
    });
    const labels = labelsOf(info.metadata);
    if (!labels) throw new GymError('NOT_FOUND', `e2b: sandbox ${id} is not a Gymflow sandbox`);
    // connect resumes a paused sandbox: a retried activity finds it as the first worker left it.
    const sdk = await E2bSdkSandbox.connect(id, connection).catch((e: unknown) => {
      throw this.notFound(e, id);
    });
    return new E2bSandbox(sdk, connection, labels, info.metadata[META.execUser] ?? DEFAULT_USER, info.metadata[META.workdir] ?? '/', this.options.apiKeyEnv);
  }

  async list(match: Partial<SandboxLabels> = {}): Promise<SandboxInfo[]> {
    const connection = this.connection();
    const paginator = E2bSdkSandbox.list({ ...connection, query: { metadata: metadataFilter(match) } });
    const found: SandboxInfo[] = [];
    try {
      while (paginator.hasNext) {
        for (const row of await paginator.nextItems()) {
          const labels = labelsOf(row.metadata);
          if (!labels) continue;
          found.push({
            id: row.sandboxId,
            provider: 'e2b',
            state: row.state === 'paused' ? 'paused' : 'running',
            labels,
            createdAt: row.startedAt.toISOString(),
            // E2B kills a sandbox at its end time itself; past it, gc only tidies up.
            expiresAt: row.endAt.toISOString(),
            // The sandbox is a VM in E2B's cloud: this machine cannot tell whether its worker lives.
            ownerAlive: null,
          });
        }
      }
    } catch (e) {
      throw gymErrorOf(e, 'listing sandboxes', this.options.apiKeyEnv);
    }
    return found;
  }

  /** The SDK's connection options, the key read from the worker's environment at each use. */
  private connection(): ConnectionOpts {
    const env = this.options.apiKeyEnv;
    const apiKey = process.env[env];
    if (!apiKey) throw new GymError('SETUP_FAILED', `e2b: set ${env} to an E2B API key in the worker's environment (https://e2b.dev/dashboard?tab=keys); the key is never taken from a workflow input`);
    const { domain, apiUrl, sandboxUrl, requestTimeoutMs } = this.options;
    return { apiKey, domain, apiUrl, sandboxUrl, requestTimeoutMs };
  }

  private notFound(e: unknown, id: string): GymError {
    const error = gymErrorOf(e, `sandbox ${id}`, this.options.apiKeyEnv);
    if (error.code === 'NOT_FOUND') return new GymError('NOT_FOUND', `e2b: no sandbox ${id} (it was destroyed or expired, or belongs to another API key)`);
    return error;
  }
}

interface ShellResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

class E2bSandbox implements Sandbox {
  readonly provider = 'e2b' as const;
  readonly id: string;
  // Private fields (not properties) hold the SDK objects, which carry the API key: nothing that
  // serializes or inspects a sandbox can reach them.
  #sdk: E2bSdkSandbox;
  readonly #connection: ConnectionOpts;

  constructor(
    sdk: E2bSdkSandbox,
    connection: ConnectionOpts,
    readonly labels: SandboxLabels,
    private readonly user: string,
    private readonly workdir: string,
    private readonly keyEnv: string,
  ) {
    this.id = sdk.sandboxId;
    this.#sdk = sdk;
    this.#connection = connection;
  }

  /** The workdir and state folders, then the spec's mounts uploaded (E2B has no host to mount from). */
  async setUp(spec: ResolvedSandboxSpec): Promise<void> {
    const parents = spec.mounts.map((m) => path.posix.dirname(m.path));
    await this.check(await this.shell(SETUP, [this.user, spec.workdir, ...parents], { user: 'root' }), 'setting up the sandbox');
    for (const mount of spec.mounts) {
      // As root (a mount may go anywhere); a writable one is then given to the sandbox's user.
      await this.putTree(mount.hostPath, mount.path, 'root', mount.writable ? this.user : '');
    }
  }

  async exec(input: ExecRequest, options: ExecOptions = {}): Promise<ExecResult> {
    const request = parseInput(ExecRequest, input, 'sandbox exec request');
    const execId = randomBytes(8).toString('hex');
    const started = performance.now();
    const stopClock = startSandboxClock();
    const tails = { stdout: new Tail(OUTPUT_TAIL_BYTES), stderr: new Tail(OUTPUT_TAIL_BYTES) };
    const emit = (stream: 'stdout' | 'stderr') => (text: string) => {
      const chunk = Buffer.from(text, 'utf8');
      tails[stream].push(chunk);
      options.onOutput?.(stream, chunk);
    };
    let killedBy: 'timeout' | 'abort' | undefined;
    const kill = (why: 'timeout' | 'abort') => {
      if (killedBy) return;
      killedBy = why;
      void this.shell(KILL_FOREGROUND, [execId]).catch(() => undefined);
    };
    const timer = setTimeout(() => kill('timeout'), request.timeoutMs);
    const onAbort = () => kill('abort');
    try {
      const handle = await this.guard(`running ${request.command[0]}`, () =>
        this.#sdk.commands.run(shLine(FOREGROUND, [execId, ...request.command]), {
          background: true,
          cwd: request.cwd ?? this.workdir,
          envs: request.env,
          user: this.user,
          stdin: request.stdin !== undefined,
          // The deadline is the provider's own (it kills the group); envd's would only drop the stream.
          timeoutMs: 0,
          onStdout: emit('stdout'),
          onStderr: emit('stderr'),
        }),
      );
      if (options.signal?.aborted) onAbort();
      options.signal?.addEventListener('abort', onAbort);
      if (request.stdin !== undefined) {
        await this.guard('writing stdin', async () => {
          if (request.stdin !== '') await handle.sendStdin(request.stdin!);
          await handle.closeStdin();
        });
      }
      const exitCode = await this.waitFor(handle);
      const killed = killedBy !== undefined;
      return ExecResult.parse({
        exitCode: killed || exitCode < 0 ? null : exitCode,
        signal: killed || exitCode < 0 ? 'SIGKILL' : signalOf(exitCode),
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

  /** With `commandId`, idempotent: the sandbox-side wrapper starts a command once per id. */
  async startCommand(input: ExecRequest, options: { commandId?: string } = {}): Promise<{ commandId: string }> {
    const request = parseInput(ExecRequest, input, 'sandbox exec request');
    const commandId = checkCommandId(options.commandId ?? `cmd-${randomBytes(6).toString('hex')}`);
    if (request.stdin !== undefined && !(await this.exists(`${STATE_DIR}/cmd/${commandId}.once`))) {
      await this.guard('writing stdin', () => this.#sdk.files.write(detachedStdinPath(commandId), request.stdin!, { user: this.user }));
    }
    const seconds = String(request.timeoutMs / 1000);
    const started = await this.shell(DETACHED, [commandId, seconds, ...request.command], { cwd: request.cwd ?? this.workdir, envs: request.env });
    await this.check(started, `starting command ${commandId}`);
    return { commandId };
  }

  async commandStatus(commandId: string, options: { waitMs?: number } = {}): Promise<CommandStatus> {
    const waitMs = options.waitMs ?? 0;
    const result = await this.shell(STATUS, [checkCommandId(commandId), String(Math.ceil(waitMs / 100)), String(OUTPUT_TAIL_BYTES)], { timeoutMs: waitMs + 60_000 });
    if (result.exitCode === 3) throw new GymError('NOT_FOUND', `e2b: sandbox ${this.id} has no command ${commandId}`);
    await this.check(result, `reading command ${commandId}`);
    return parseStatusReport(commandId, result.stdout, result.stderr);
  }

  async killCommand(commandId: string): Promise<void> {
    await this.check(await this.shell(KILL_DETACHED, [checkCommandId(commandId)]), `killing command ${commandId}`);
  }

  /** E2B's terminals start a login shell; the request's command replaces it (`exec`), so its exit ends the session. */
  async openPty(input: Omit<ExecRequest, 'stdin'> & { columns?: number; rows?: number }): Promise<PtySession> {
    const { columns = 80, rows = 24, ...rest } = input;
    const request = parseInput(ExecRequest, rest, 'sandbox pty request');
    const listeners: Array<(chunk: Buffer) => void> = [];
    const early: Buffer[] = [];
    const handle = await this.guard('opening a terminal', () =>
      this.#sdk.pty.create({
        cols: columns,
        rows,
        cwd: request.cwd ?? this.workdir,
        envs: request.env,
        user: this.user,
        timeoutMs: 0,
        onData: (data: Uint8Array) => {
          const chunk = Buffer.from(data);
          if (listeners.length === 0) early.push(chunk);
          for (const listener of listeners) listener(chunk);
        },
      }),
    );
    const pid = handle.pid;
    // Input goes in order: each write waits for the one before it.
    let writes: Promise<unknown> = this.#sdk.pty.sendInput(pid, Buffer.from(`exec ${request.command.map(quote).join(' ')}\n`));
    const send = (data: Uint8Array) => {
      writes = writes.then(() => this.#sdk.pty.sendInput(pid, data)).catch(() => undefined);
    };
    let killed = false;
    const kill = () => {
      killed = true;
      void this.#sdk.pty.kill(pid).catch(() => undefined);
    };
    const timer = setTimeout(kill, request.timeoutMs);
    const exited = this.waitFor(handle)
      .then((code) => (killed || code < 0 ? null : code))
      .catch(() => null)
      .finally(() => clearTimeout(timer));
    return {
      write: (data) => send(typeof data === 'string' ? Buffer.from(data) : data),
      onData: (listener) => {
        listeners.push(listener);
        for (const chunk of early.splice(0)) listener(chunk);
      },
      resize: (cols, newRows) => void this.#sdk.pty.resize(pid, { cols, rows: newRows }).catch(() => undefined),
      exited,
      kill,
    };
  }

  async readFile(file: string): Promise<Buffer> {
    const at = this.resolve(file);
    const bytes = await this.guard(`reading ${at}`, () => this.#sdk.files.read(at, { format: 'bytes', user: this.user }));
    return Buffer.from(bytes);
  }

  async writeFile(file: string, data: string | Buffer, options: { mode?: number } = {}): Promise<void> {
    const at = this.resolve(file);
    const body = typeof data === 'string' ? data : new Blob([new Uint8Array(data)]);
    await this.guard(`writing ${at}`, () => this.#sdk.files.write(at, body, { user: this.user, useOctetStream: true }));
    // envd writes files with its own mode; a requested one is applied after.
    if (options.mode !== undefined) await this.check(await this.shell('chmod "$0" "$1"', [(options.mode & 0o7777).toString(8), at]), `setting the mode of ${at}`);
  }

  async upload(hostPath: string, file: string): Promise<void> {
    await this.putTree(hostPath, this.resolve(file), this.user, '');
  }

  async download(file: string, hostPath: string): Promise<void> {
    const at = this.resolve(file);
    if (!(await this.exists(at))) throw new GymError('NOT_FOUND', `e2b: ${at} does not exist in sandbox ${this.id}`);
    const archive = `${STATE_DIR}/down-${randomBytes(6).toString('hex')}.tar`;
    try {
      await this.check(await this.shell(TAR, [path.posix.dirname(at), path.posix.basename(at), archive]), `packing ${at}`);
      const stream = await this.guard(`downloading ${at}`, () => this.#sdk.files.read(archive, { format: 'stream', user: this.user }));
      const unpacker = hostUnpacker(hostPath);
      for await (const chunk of Readable.fromWeb(stream as WebReadableStream<Uint8Array>)) unpacker.reader.push(Buffer.from(chunk as Uint8Array));
      unpacker.reader.end();
      unpacker.finish();
    } finally {
      await this.shell('rm -f "$0"', [archive]).catch(() => undefined);
    }
  }

  async listFiles(folder: string): Promise<FileEntry[]> {
    const at = this.resolve(folder);
    const entries = await this.guard(`listing ${at}`, () => this.#sdk.files.list(at, { user: this.user }));
    return entries
      .map((e) => FileEntry.parse({ name: e.name, type: e.type === 'dir' ? 'directory' : e.type === 'file' ? 'file' : e.type === 'symlink' ? 'symlink' : 'other', sizeBytes: Math.max(0, e.size) }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  async status(): Promise<SandboxState> {
    try {
      const info = await E2bSdkSandbox.getInfo(this.id, this.#connection);
      return info.state === 'paused' ? 'paused' : 'running';
    } catch (e) {
      const error = gymErrorOf(e, `sandbox ${this.id}`, this.keyEnv);
      if (error.code === 'NOT_FOUND') return 'gone';
      throw error;
    }
  }

  /** E2B's timeout can be set shorter as well as longer: it is only ever moved later here. */
  async keepalive(ms: number): Promise<void> {
    await this.guard('extending its timeout', async () => {
      const info = await E2bSdkSandbox.getInfo(this.id, this.#connection);
      if (Date.now() + ms > info.endAt.getTime()) await E2bSdkSandbox.setTimeout(this.id, ms, this.#connection);
    });
  }

  async pause(): Promise<void> {
    await this.guard('pausing', () => E2bSdkSandbox.pause(this.id, this.#connection));
  }

  /** Connecting is how E2B resumes; the resumed sandbox may come back with a new envd token. */
  async resume(): Promise<void> {
    this.#sdk = await this.guard('resuming', () => E2bSdkSandbox.connect(this.id, this.#connection));
  }

  async destroy(): Promise<void> {
    try {
      await E2bSdkSandbox.kill(this.id, this.#connection);
    } catch (e) {
      const error = gymErrorOf(e, `destroying sandbox ${this.id}`, this.keyEnv);
      // Gone already (expired, or gc racing the rollout's own cleanup): what was asked for holds.
      if (error.code !== 'NOT_FOUND') throw error;
    }
  }

  /** Packs a host file or folder, sends it as one tar and unpacks it at `at` as `asUser` (then gives it to `owner`). */
  private async putTree(hostPath: string, at: string, asUser: string, owner: string): Promise<void> {
    const archive = `${STATE_DIR}/up-${randomBytes(6).toString('hex')}.tar`;
    const body = Readable.toWeb(Readable.from(packHostPath(hostPath, path.posix.basename(at)))) as unknown as ReadableStream<Uint8Array>;
    await this.guard(`uploading ${hostPath}`, () => this.#sdk.files.write(archive, body, { user: asUser }));
    const result = await this.shell(UNTAR, [archive, path.posix.dirname(at), path.posix.basename(at), owner], { user: asUser });
    await this.check(result, `unpacking ${hostPath} at ${at}`);
  }

  private async exists(at: string): Promise<boolean> {
    return this.guard(`looking for ${at}`, () => this.#sdk.files.exists(at, { user: this.user }));
  }

  /** Runs a bookkeeping script to its end (as the sandbox's user unless told), its exit status returned, not thrown. */
  private async shell(script: string, args: string[], options: { user?: string; cwd?: string; envs?: Record<string, string>; timeoutMs?: number } = {}): Promise<ShellResult> {
    return this.guard('running a provider script', async () => {
      try {
        const result = await this.#sdk.commands.run(shLine(script, args), { user: options.user ?? this.user, cwd: options.cwd ?? '/', envs: options.envs, timeoutMs: options.timeoutMs ?? 60_000 });
        return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr };
      } catch (e) {
        if (e instanceof CommandExitError) return { exitCode: e.exitCode, stdout: e.stdout, stderr: e.stderr };
        throw e;
      }
    });
  }

  private async check(result: ShellResult, what: string): Promise<void> {
    if (result.exitCode === 0) return;
    const why = result.stderr.trim() || `exit status ${result.exitCode}`;
    throw new GymError(/no such file/i.test(why) ? 'NOT_FOUND' : 'ENV_ERROR', `e2b: ${what} in sandbox ${this.id} failed: ${why}`);
  }

  /** A command's exit code once it ends (the SDK throws for non-zero ones). */
  private async waitFor(handle: CommandHandle): Promise<number> {
    try {
      return (await handle.wait()).exitCode;
    } catch (e) {
      if (e instanceof CommandExitError) return e.exitCode;
      throw gymErrorOf(e, `sandbox ${this.id}`, this.keyEnv);
    }
  }

  private async guard<T>(what: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (e) {
      if (isGymError(e)) throw e;
      throw gymErrorOf(e, `${what} in sandbox ${this.id}`, this.keyEnv);
    }
  }

  private resolve(file: string): string {
    return path.posix.resolve(this.workdir, file);
  }
}

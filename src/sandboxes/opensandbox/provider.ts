// The `opensandbox` sandbox provider: one OpenSandbox sandbox per Gymflow sandbox, driven through the official
// SDK (lifecycle API for create/list/pause/renew/delete, each sandbox's execd for commands and files).
import { randomBytes } from 'node:crypto';
import { lstatSync } from 'node:fs';
import { lstat, mkdir, readdir, readFile, readlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Sandbox as SdkSandbox, SandboxInfo as SdkSandboxInfo, NetworkPolicy as SdkNetworkPolicy, FileInfo as SdkFileInfo } from '@alibaba-group/opensandbox';
import { z } from 'zod';
import { GymError, isGymError } from '../../errors';
import { checkCommandId, parseStatusReport, signalOf } from '../detached';
import { startSandboxClock } from '../meter';
import { isAlive, processIdentity } from '../local/record';
import { parseInput } from '../parse';
import type { ExecOptions, Sandbox, SandboxProvider } from '../provider';
import { CommandStatus, ExecRequest, ExecResult, FileEntry, OUTPUT_TAIL_BYTES, SandboxSpec, type ResolvedSandboxSpec, type SandboxInfo, type SandboxLabels, type SandboxState } from '../schema';
import { Tail } from '../docker/demux';
import { labelsMetadata, MARKER, ownerMetadata, readMetadata, sandboxMetadata } from './metadata';
import { DETACHED, FOREGROUND, KILL, shLine, STATE_DIR, STATUS, STDIN_DIR, SYMLINKS } from './shell';

type Sdk = typeof import('@alibaba-group/opensandbox');

/** Where the provider finds its server and key: the worker's environment, never a workflow's input. */
export const ENV = { domain: 'OPEN_SANDBOX_DOMAIN', apiKey: 'OPEN_SANDBOX_API_KEY' } as const;

export const OpenSandboxProviderOptions = z.strictObject({
  /** The server (`host:port` or a URL); default $OPEN_SANDBOX_DOMAIN. The key is only ever read from $OPEN_SANDBOX_API_KEY. */
  domain: z.string().min(1).optional(),
  /** Reach each sandbox's execd through the server (when this machine cannot reach sandboxes directly). */
  useServerProxy: z.boolean().default(false),
  /** How long a new or resumed sandbox may take to answer. */
  readyTimeoutSeconds: z.number().positive().default(60),
});
export type OpenSandboxProviderOptions = z.input<typeof OpenSandboxProviderOptions>;

/** What the server needs from an image-started sandbox: a main process that idles. */
const ENTRYPOINT = ['tail', '-f', '/dev/null'];
/** A command's deadline is the provider's; the server's (this much later) only catches a client that died. */
const SERVER_GRACE_MS = 30_000;
const MIB = 1024 * 1024;

function serverState(state: string | undefined): SandboxState {
  switch (state) {
    case 'Running':
    case 'Pending':
    case 'Creating':
    case 'Resuming':
      return 'running';
    case 'Paused':
    case 'Pausing':
      return 'paused';
    case 'Terminated':
    case 'Deleted':
      return 'gone';
    default:
      return 'stopped';
  }
}

/** An SDK or transport failure as a GymError, with the server's message and never a header (the key is one). */
function sdkError(error: unknown, what: string, domain: string): Error {
  if (isGymError(error)) return error;
  const e = error as { statusCode?: number; message?: string; name?: string; cause?: { code?: string } };
  const message = `opensandbox: ${what}: ${e.message ?? String(error)}`;
  switch (e.statusCode) {
    case 400:
    case 422:
      return new GymError('BAD_INPUT', message);
    case 401:
    case 403:
      return new GymError('SETUP_FAILED', `opensandbox: the server at ${domain} refused the key in $${ENV.apiKey} (${what}): set it to a valid API key`);
    case 404:
      return new GymError('NOT_FOUND', message);
    case 409:
      return new GymError('CONFLICT', message);
  }
  if (e.name === 'SandboxReadyTimeoutException' || e.statusCode === undefined) {
    return new GymError('UNREACHABLE', `opensandbox: ${what}: no answer from the server at ${domain} ($${ENV.domain}): ${e.cause?.code ?? e.message ?? String(error)}`);
  }
  return new GymError('ENV_ERROR', message);
}

/** The server's egress policy for a network mode: it takes domain names only, and cannot hold a port. */
export function networkPolicy(network: ResolvedSandboxSpec['network']): SdkNetworkPolicy {
  if (network.mode === 'none') return { defaultAction: 'deny', egress: [] };
  if (network.mode === 'host') return { defaultAction: 'allow', egress: [] };
  for (const [i, endpoint] of network.endpoints.entries()) {
    if (/^[\d.]+$/.test(endpoint.host) || endpoint.host.includes(':') || endpoint.host === 'localhost') {
      throw new GymError(
        'BAD_INPUT',
        `sandbox spec field "network.endpoints.${i}": ${endpoint.host}:${endpoint.port}: an opensandbox egress policy allows domain names only (no IP address, no localhost: the sandbox runs on the server, not on this machine)`,
      );
    }
  }
  return { defaultAction: 'deny', egress: [...new Set(network.endpoints.map((e) => e.host))].map((target) => ({ action: 'allow' as const, target })) };
}

/** Refuses what an OpenSandbox sandbox cannot do, naming the field, instead of running without it. */
function checkSupported(spec: ResolvedSandboxSpec): void {
  const refuse = (field: string, why: string) => {
    throw new GymError('BAD_INPUT', `sandbox spec field "${field}": ${why}`);
  };
  if (spec.image === undefined) refuse('image', 'the opensandbox provider needs a container image name');
  if (spec.user !== undefined) refuse('user', "the opensandbox provider runs commands as the image's execd user and cannot switch to another one");
  if (spec.resources.pids !== undefined) refuse('resources.pids', 'OpenSandbox has no process-count limit (its resource limits are cpu and memory)');
  if (spec.resources.fileSizeBytes !== undefined) refuse('resources.fileSizeBytes', 'OpenSandbox has no file-size limit (its resource limits are cpu and memory)');
  for (const [i, mount] of spec.mounts.entries()) {
    if (mount.writable) refuse(`mounts.${i}.writable`, `the sandbox runs on the OpenSandbox server and cannot write back to ${mount.hostPath} on this machine: upload it, and download what you need`);
    if (!lstatSync(mount.hostPath, { throwIfNoEntry: false })) refuse(`mounts.${i}.hostPath`, `${mount.hostPath} does not exist`);
  }
  if (spec.network.mode === 'allow') networkPolicy(spec.network);
}

function resourceLimits(resources: ResolvedSandboxSpec['resources']): Record<string, string> {
  return {
    cpu: resources.cpus === undefined ? '1' : `${Math.max(1, Math.round(resources.cpus * 1000))}m`,
    memory: resources.memoryBytes === undefined ? '2Gi' : `${Math.max(1, Math.ceil(resources.memoryBytes / MIB))}Mi`,
  };
}

export class OpenSandboxProvider implements SandboxProvider {
  readonly name = 'opensandbox' as const;
  private readonly options: z.output<typeof OpenSandboxProviderOptions>;
  private sdk?: Promise<Sdk>;

  constructor(options: OpenSandboxProviderOptions = {}) {
    this.options = parseInput(OpenSandboxProviderOptions, options, 'opensandbox sandbox provider option');
  }

  /** The server's address and key from the environment; SETUP_FAILED saying what to set when one is missing. */
  private connection(): { domain: string; connectionConfig: Record<string, unknown> } {
    const domain = this.options.domain ?? process.env[ENV.domain];
    const apiKey = process.env[ENV.apiKey];
    if (!domain)
      throw new GymError('SETUP_FAILED', `opensandbox: no server: set $${ENV.domain} (host:port or URL of the OpenSandbox server) in the worker's environment, or the provider option "domain"`);
    if (!apiKey) throw new GymError('SETUP_FAILED', `opensandbox: no API key: set $${ENV.apiKey} in the worker's environment`);
    return {
      domain,
      connectionConfig: { domain, apiKey, useServerProxy: this.options.useServerProxy, disableMetrics: true, requestTimeoutSeconds: 60 },
    };
  }

  private load(): Promise<Sdk> {
    return (this.sdk ??= import('@alibaba-group/opensandbox'));
  }

  async create(input: SandboxSpec): Promise<Sandbox> {
    const spec = parseInput(SandboxSpec, input, 'sandbox spec');
    checkSupported(spec);
    const { domain, connectionConfig } = this.connection();
    const { Sandbox: SdkSandboxClass } = await this.load();
    let sdk: SdkSandbox;
    try {
      sdk = await SdkSandboxClass.create({
        connectionConfig,
        image: spec.image!,
        entrypoint: ENTRYPOINT,
        env: spec.env,
        metadata: sandboxMetadata(spec.labels, { workdir: spec.workdir, owner: processIdentity() }),
        networkPolicy: networkPolicy(spec.network),
        resource: resourceLimits(spec.resources),
        // No lifetime: the server keeps it until it is deleted (by its rollout, or gc once its owner is gone).
        timeoutSeconds: spec.resources.lifetimeMs === undefined ? null : Math.ceil(spec.resources.lifetimeMs / 1000),
        readyTimeoutSeconds: this.options.readyTimeoutSeconds,
      });
    } catch (error) {
      throw sdkError(error, `creating a sandbox from ${spec.image}`, domain);
    }
    const sandbox = new OpenSandboxSandbox(sdk, spec.labels, spec.workdir, domain, this.options.readyTimeoutSeconds);
    try {
      await sandbox.setUp(spec.mounts);
    } catch (error) {
      await sandbox.destroy().catch(() => undefined);
      throw error;
    }
    return sandbox;
  }

  async attach(id: string): Promise<Sandbox> {
    const { domain, connectionConfig } = this.connection();
    const { Sandbox: SdkSandboxClass, SandboxManager } = await this.load();
    const manager = SandboxManager.create({ connectionConfig });
    let info: SdkSandboxInfo;
    try {
      info = await manager.getSandboxInfo(id);
      const state = serverState(info.status.state);
      const gymflow = readMetadata(info.metadata);
      if (!gymflow || state === 'gone') throw new GymError('NOT_FOUND', `opensandbox: no Gymflow sandbox ${id} (it was destroyed, or is not one of Gymflow's)`);
      // This process uses it now: gc must not take it for a dead worker's.
      await manager.patchSandboxMetadata(id, ownerMetadata(processIdentity()));
      const sdk = await SdkSandboxClass.connect({ sandboxId: id, connectionConfig, skipHealthCheck: state !== 'running', readyTimeoutSeconds: this.options.readyTimeoutSeconds });
      return new OpenSandboxSandbox(sdk, gymflow.labels, gymflow.notes.workdir, domain, this.options.readyTimeoutSeconds);
    } catch (error) {
      if (isGymError(error)) throw error;
      const mapped = sdkError(error, `attaching to sandbox ${id}`, domain);
      if (isGymError(mapped) && mapped.code === 'NOT_FOUND') throw new GymError('NOT_FOUND', `opensandbox: no sandbox ${id} (it was destroyed, or never made on ${domain})`);
      throw mapped;
    } finally {
      await manager.close();
    }
  }

  async list(match: Partial<SandboxLabels> = {}): Promise<SandboxInfo[]> {
    const { domain, connectionConfig } = this.connection();
    const { SandboxManager } = await this.load();
    const manager = SandboxManager.create({ connectionConfig });
    const infos: SandboxInfo[] = [];
    try {
      for (let page = 1; ; page++) {
        const result = await manager.listSandboxInfos({ metadata: { [MARKER.key]: MARKER.value, ...labelsMetadata(match) }, page, pageSize: 100 });
        for (const item of result.items) {
          const gymflow = readMetadata(item.metadata);
          // The server matched the first part of a long label's pieces only: the whole value decides.
          if (!gymflow || Object.entries(match).some(([k, v]) => v !== undefined && gymflow.labels[k as keyof SandboxLabels] !== v)) continue;
          infos.push({
            id: item.id,
            provider: 'opensandbox',
            state: serverState(item.status.state),
            labels: gymflow.labels,
            createdAt: item.createdAt.toISOString(),
            expiresAt: item.expiresAt ? item.expiresAt.toISOString() : null,
            ownerAlive: isAlive(gymflow.notes.owner),
          });
        }
        if (!result.pagination?.hasNextPage) return infos;
      }
    } catch (error) {
      throw sdkError(error, 'listing sandboxes', domain);
    } finally {
      await manager.close();
    }
  }
}

interface RawResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

class OpenSandboxSandbox implements Sandbox {
  readonly provider = 'opensandbox' as const;
  readonly id: string;
  // Private (#): the SDK object holds the connection config, key included, which must never be
  // serialized or logged with this sandbox.
  #sdk: SdkSandbox;
  /** Set by destroy: the handle's connections are closed, and the sandbox is gone for this object. */
  #gone = false;

  constructor(
    sdk: SdkSandbox,
    readonly labels: SandboxLabels,
    private readonly workdir: string,
    private readonly domain: string,
    private readonly readyTimeoutSeconds: number,
  ) {
    this.#sdk = sdk;
    this.id = sdk.id;
  }

  private fail(error: unknown, what: string): Error {
    return sdkError(error, `sandbox ${this.id}: ${what}`, this.domain);
  }

  /** The workdir and the provider's folders, then the mounts uploaded to where they would be seen. */
  async setUp(mounts: ResolvedSandboxSpec['mounts']): Promise<void> {
    try {
      await this.#sdk.files.createDirectories([this.workdir, `${STATE_DIR}/cmd`, STDIN_DIR].map((p) => ({ path: p, mode: 755 })));
    } catch (error) {
      throw this.fail(error, 'making its folders');
    }
    for (const mount of mounts) await this.upload(mount.hostPath, mount.path);
  }

  private resolve(file: string): string {
    return path.posix.resolve(this.workdir, file);
  }

  /** Puts `stdin` in a file of its own in the sandbox, for a command to read. */
  private async stdinFile(stdin: string | undefined): Promise<string> {
    if (stdin === undefined) return '';
    const file = `${STDIN_DIR}/${randomBytes(8).toString('hex')}`;
    await this.writeFile(file, stdin, { mode: 0o600 });
    return file;
  }

  async exec(input: ExecRequest, options: ExecOptions = {}): Promise<ExecResult> {
    const request = parseInput(ExecRequest, input, 'sandbox exec request');
    const started = performance.now();
    const stopClock = startSandboxClock();
    const tails = { stdout: new Tail(OUTPUT_TAIL_BYTES), stderr: new Tail(OUTPUT_TAIL_BYTES) };
    let execdId: string | undefined;
    let killedBy: 'timeout' | 'abort' | undefined;
    const transport = new AbortController();
    const interrupt = () => {
      if (!execdId) return;
      void this.#sdk.commands.interrupt(execdId).catch(() => undefined);
      // The stream should end at once; if the server does not answer, dropping it kills the command too.
      setTimeout(() => transport.abort(), 10_000).unref();
    };
    const kill = (why: 'timeout' | 'abort') => {
      if (killedBy) return;
      killedBy = why;
      interrupt();
    };
    const timer = setTimeout(() => kill('timeout'), request.timeoutMs);
    const onAbort = () => kill('abort');
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener('abort', onAbort);
    try {
      const stdinFile = await this.stdinFile(request.stdin);
      const emit = (stream: 'stdout' | 'stderr') => (message: { text: string }) => {
        const chunk = Buffer.from(message.text, 'utf8');
        tails[stream].push(chunk);
        options.onOutput?.(stream, chunk);
      };
      let execution;
      try {
        execution = await this.#sdk.commands.run(
          shLine(FOREGROUND, [stdinFile, ...request.command]),
          { workingDirectory: request.cwd ?? this.workdir, envs: request.env, timeoutSeconds: (request.timeoutMs + SERVER_GRACE_MS) / 1000 },
          {
            skipAccumulation: true,
            onInit: (init) => {
              execdId = init.id;
              if (killedBy) interrupt();
            },
            onStdout: emit('stdout'),
            onStderr: emit('stderr'),
          },
          transport.signal,
        );
      } catch (error) {
        if (!killedBy) throw this.fail(error, `running ${request.command[0]}`);
      }
      const value = execution?.error?.value?.trim() ?? '';
      if (execution?.error && !/^-?\d+$/.test(value) && !killedBy) throw new GymError('ENV_ERROR', `opensandbox: sandbox ${this.id}: could not run ${request.command[0]}: ${value}`);
      const exitCode = execution?.error ? Number(value) : 0;
      const killed = killedBy !== undefined || exitCode < 0;
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

  /** A provider script run to its end (bookkeeping, not the sandbox's own commands). */
  private async runScript(script: string, args: string[], timeoutMs = 60_000): Promise<RawResult> {
    const out = { stdout: [] as string[], stderr: [] as string[] };
    try {
      const execution = await this.#sdk.commands.run(
        shLine(script, args),
        { workingDirectory: '/', timeoutSeconds: timeoutMs / 1000 },
        { skipAccumulation: true, onStdout: (m) => void out.stdout.push(m.text), onStderr: (m) => void out.stderr.push(m.text) },
      );
      const value = execution.error?.value?.trim() ?? '0';
      return { exitCode: /^-?\d+$/.test(value) ? Number(value) : -1, stdout: out.stdout.join(''), stderr: out.stderr.join('') };
    } catch (error) {
      throw this.fail(error, 'running a provider script');
    }
  }

  /** With `commandId`, idempotent: the sandbox's wrapper starts an id once. */
  async startCommand(input: ExecRequest, options: { commandId?: string } = {}): Promise<{ commandId: string }> {
    const request = parseInput(ExecRequest, input, 'sandbox exec request');
    const commandId = checkCommandId(options.commandId ?? `cmd-${randomBytes(6).toString('hex')}`);
    const stdinFile = await this.stdinFile(request.stdin);
    try {
      await this.#sdk.commands.run(shLine(DETACHED, [commandId, String(Math.ceil(request.timeoutMs / 1000)), stdinFile, ...request.command]), {
        background: true,
        workingDirectory: request.cwd ?? this.workdir,
        envs: request.env,
        timeoutSeconds: (request.timeoutMs + SERVER_GRACE_MS) / 1000,
      });
    } catch (error) {
      throw this.fail(error, `starting ${request.command[0]}`);
    }
    return { commandId };
  }

  async commandStatus(commandId: string, options: { waitMs?: number } = {}): Promise<CommandStatus> {
    const waitMs = options.waitMs ?? 0;
    const result = await this.runScript(STATUS, [checkCommandId(commandId), String(Math.ceil(waitMs / 100)), String(OUTPUT_TAIL_BYTES)], waitMs + 60_000);
    if (result.exitCode === 3) throw new GymError('NOT_FOUND', `opensandbox: sandbox ${this.id} has no command ${commandId}`);
    return parseStatusReport(commandId, result.stdout, result.stderr);
  }

  async killCommand(commandId: string): Promise<void> {
    await this.runScript(KILL, [checkCommandId(commandId)]);
  }

  private async info(file: string): Promise<SdkFileInfo> {
    try {
      const infos = await this.#sdk.files.getFileInfo([file]);
      return infos[file]!;
    } catch (error) {
      const mapped = this.fail(error, `reading ${file}`);
      if (isGymError(mapped) && mapped.code === 'NOT_FOUND') throw new GymError('NOT_FOUND', `sandbox path ${file} does not exist`);
      throw mapped;
    }
  }

  async readFile(file: string): Promise<Buffer> {
    const at = this.resolve(file);
    const info = await this.info(at);
    if (info.type !== 'file') throw new GymError('BAD_INPUT', `opensandbox: ${at} in sandbox ${this.id} is not a file`);
    try {
      return Buffer.from(await this.#sdk.files.readBytes(at));
    } catch (error) {
      throw this.fail(error, `reading ${at}`);
    }
  }

  async writeFile(file: string, data: string | Buffer, options: { mode?: number } = {}): Promise<void> {
    const at = this.resolve(file);
    try {
      // execd takes modes as octal digits written in decimal (644 for rw-r--r--); it makes missing folders.
      await this.#sdk.files.writeFiles([{ path: at, data: typeof data === 'string' ? data : new Uint8Array(data), mode: Number((options.mode ?? 0o644).toString(8)) }]);
    } catch (error) {
      throw this.fail(error, `writing ${at}`);
    }
  }

  async upload(hostPath: string, file: string): Promise<void> {
    const at = this.resolve(file);
    const links: string[] = [];
    const walk = async (host: string, inside: string): Promise<void> => {
      const stat = await lstat(host);
      if (stat.isSymbolicLink()) links.push(await readlink(host), inside);
      else if (stat.isFile()) await this.writeFile(inside, await readFile(host), { mode: stat.mode & 0o777 });
      else if (stat.isDirectory()) {
        try {
          await this.#sdk.files.createDirectories([{ path: inside, mode: Number((stat.mode & 0o777).toString(8)) }]);
        } catch (error) {
          throw this.fail(error, `making ${inside}`);
        }
        for (const name of (await readdir(host)).sort()) await walk(path.join(host, name), path.posix.join(inside, name));
      }
    };
    try {
      await walk(hostPath, at);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new GymError('BAD_INPUT', `upload: ${hostPath} does not exist on this machine`);
      throw error;
    }
    // execd's file API makes no symlinks: one script makes them all.
    if (links.length > 0) {
      const made = await this.runScript(SYMLINKS, links);
      if (made.exitCode !== 0) throw new GymError('ENV_ERROR', `opensandbox: sandbox ${this.id}: making symlinks under ${at} failed: ${made.stderr.trim()}`);
    }
  }

  async download(file: string, hostPath: string): Promise<void> {
    const at = this.resolve(file);
    const info = await this.info(at);
    const fetchFile = async (inside: string, host: string, mode: number | undefined) => {
      try {
        await writeFile(host, await this.#sdk.files.readBytes(inside), { mode: mode === undefined ? 0o644 : parseInt(String(mode), 8) });
      } catch (error) {
        throw isGymError(error) || (error as NodeJS.ErrnoException).code ? error : this.fail(error, `reading ${inside}`);
      }
    };
    if (info.type === 'file') return fetchFile(at, hostPath, info.mode);
    if (info.type !== 'directory') throw new GymError('BAD_INPUT', `opensandbox: ${at} in sandbox ${this.id} is neither a file nor a folder`);
    let entries: SdkFileInfo[];
    try {
      entries = await this.#sdk.files.listDirectory({ path: at, depth: 64 });
    } catch (error) {
      throw this.fail(error, `listing ${at}`);
    }
    await mkdir(hostPath, { recursive: true });
    // Symlinks stay behind: one the sandbox made would point at this machine's files once outside.
    for (const entry of entries.sort((a, b) => a.path.localeCompare(b.path))) {
      const host = path.join(hostPath, path.posix.relative(at, entry.path));
      if (entry.type === 'directory') await mkdir(host, { recursive: true });
      else if (entry.type === 'file') await fetchFile(entry.path, host, entry.mode);
    }
  }

  async listFiles(folder: string): Promise<FileEntry[]> {
    const at = this.resolve(folder);
    let entries: SdkFileInfo[];
    try {
      entries = await this.#sdk.files.listDirectory({ path: at, depth: 1 });
    } catch (error) {
      const mapped = this.fail(error, `listing ${at}`);
      // execd answers 400 for a path that is not a folder, 404 for one that does not exist.
      if (isGymError(mapped) && (mapped.code === 'NOT_FOUND' || mapped.code === 'BAD_INPUT')) throw new GymError('NOT_FOUND', `opensandbox: ${at} in sandbox ${this.id} is not a folder`);
      throw mapped;
    }
    return entries
      .map((e) => FileEntry.parse({ name: path.posix.basename(e.path), type: e.type ?? 'other', sizeBytes: e.type === 'file' ? (e.size ?? 0) : 0 }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  async status(): Promise<SandboxState> {
    if (this.#gone) return 'gone';
    try {
      return serverState((await this.#sdk.getInfo()).status.state);
    } catch (error) {
      const mapped = this.fail(error, 'reading its state');
      if (isGymError(mapped) && mapped.code === 'NOT_FOUND') return 'gone';
      throw mapped;
    }
  }

  async keepalive(ms: number): Promise<void> {
    try {
      const { expiresAt } = await this.#sdk.getInfo();
      // No lifetime: nothing to push; and an expiry is never moved earlier.
      if (!expiresAt || expiresAt.getTime() >= Date.now() + ms) return;
      await this.#sdk.renew(Math.ceil(ms / 1000));
    } catch (error) {
      throw this.fail(error, 'renewing its expiry');
    }
  }

  async pause(): Promise<void> {
    try {
      await this.#sdk.pause();
      // The server pauses in the background (Pausing → Paused).
      for (let i = 0; (await this.#sdk.getInfo()).status.state !== 'Paused'; i++) {
        if (i >= 300) throw new GymError('ENV_ERROR', `opensandbox: sandbox ${this.id} did not pause within a minute`);
        await new Promise((r) => setTimeout(r, 200));
      }
    } catch (error) {
      throw this.fail(error, 'pausing');
    }
  }

  async resume(): Promise<void> {
    try {
      // Its execd may answer at a new address afterwards: the SDK gives a fresh handle.
      // (It shares the old handle's connections, so the old one is not closed.)
      this.#sdk = await this.#sdk.resume({ readyTimeoutSeconds: this.readyTimeoutSeconds });
    } catch (error) {
      throw this.fail(error, 'resuming');
    }
  }

  async destroy(): Promise<void> {
    if (this.#gone) return;
    try {
      await this.#sdk.kill();
    } catch (error) {
      const mapped = this.fail(error, 'deleting');
      if (!(isGymError(mapped) && mapped.code === 'NOT_FOUND')) throw mapped;
    }
    this.#gone = true;
    await this.#sdk.close();
  }
}

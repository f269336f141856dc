// The `apptainer` sandbox provider: one Apptainer instance per sandbox, driven through the `apptainer` CLI
// (instance start/list/stop, exec instance://), over a host folder like the local provider's (record, workspace).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants, existsSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { GymError } from '../../errors';
import { stateDir } from '../../util/paths';
import { startSandboxClock } from '../meter';
import { findOnPath, type JailExit } from '../local/bwrap';
import { checkCommandId } from '../detached';
import { detachedStatus, killDetached, startDetached } from '../local/commands';
import { MARKER, killSandboxProcesses } from '../local/processes';
import { LocalSandbox } from '../local/provider';
import { ptyCommand, relaySession } from '../local/pty';
import { isAlive, processIdentity, readRecord, resolvedSpec, writeRecord, type SandboxRecord } from '../local/record';
import { parseInput } from '../parse';
import type { ExecOptions, OutputStream, PtySession, Sandbox, SandboxProvider } from '../provider';
import {
  ExecRequest,
  ExecResult,
  OUTPUT_TAIL_BYTES,
  PtyRequest,
  SandboxSpec,
  type CommandStatus,
  type FileEntry,
  type ResolvedSandboxSpec,
  type SandboxInfo,
  type SandboxLabels,
  type SandboxState,
} from '../schema';
import { Tail } from '../docker/demux';

export const BINARY_ENV = 'GYM_APPTAINER_BIN';

export const ApptainerProviderOptions = z.strictObject({
  /** The apptainer binary; default $GYM_APPTAINER_BIN, else `apptainer` on PATH. */
  binary: z.string().min(1).optional(),
  /** Folder holding one folder per sandbox (default $GYMFLOW_SANDBOX_ROOT/apptainer, else .gymflow/apptainer). */
  root: z.string().min(1).optional(),
});
export type ApptainerProviderOptions = z.input<typeof ApptainerProviderOptions>;

const SANDBOX_ID = /^gymflow-[0-9a-f]{16}$/;

function shQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

function signalNumber(signal: string): number {
  return osConstants.signals[signal as NodeJS.Signals] ?? 9;
}

/** Runs the CLI to its end; the caller reads its status and output. */
function runCli(binary: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.once('error', (e) => reject(new GymError('SETUP_FAILED', `apptainer: cannot run ${binary}: ${e.message}`)));
    child.once('close', (code, signal) => resolve({ code: code ?? 128 + signalNumber(signal ?? 'SIGKILL'), stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
  });
}

/** What apptainer's FATAL line says, without its prefix. */
const fatal = (stderr: string) => stderr.replace(/^(FATAL|ERROR|WARNING|INFO):\s*/gm, '').trim();

/** Refuses what an Apptainer instance cannot do, naming the field, instead of running without it. */
function checkSupported(spec: ResolvedSandboxSpec): void {
  const refuse = (field: string, why: string) => {
    throw new GymError('BAD_INPUT', `sandbox spec field "${field}": ${why}`);
  };
  if (spec.image === undefined) refuse('image', 'the apptainer provider needs an image: a .sif file, a sandbox folder, or a docker:// / oras:// URI');
  if (!/^[a-z]+:\/\//.test(spec.image!) && !existsSync(spec.image!)) refuse('image', `${spec.image} does not exist`);
  if (spec.network.mode === 'allow') refuse('network', 'apptainer has no per-endpoint allowlist: use mode "none" (no network) or "host"');
  if (spec.user !== undefined) refuse('user', 'apptainer runs commands as the user running the worker and cannot switch to another one');
  if (spec.resources.fileSizeBytes !== undefined) refuse('resources.fileSizeBytes', 'apptainer has no file-size limit (its limits are --cpus, --memory and --pids-limit)');
  for (const [i, mount] of spec.mounts.entries()) if (!existsSync(mount.hostPath)) refuse(`mounts.${i}.hostPath`, `${mount.hostPath} does not exist`);
}

/** `apptainer instance start` for a spec: contained, no home, writable only in binds and a tmpfs overlay, no network unless host. */
export function startArgs(spec: ResolvedSandboxSpec, dir: string, name: string): string[] {
  const args = ['instance', 'start', '--containall', '--no-home', '--writable-tmpfs'];
  if (spec.network.mode === 'none') args.push('--net', '--network', 'none');
  args.push('--bind', `${path.join(dir, 'workspace')}:${spec.workdir}`, '--bind', `${path.join(dir, 'tmp')}:/tmp`);
  for (const m of spec.mounts) args.push('--bind', `${m.hostPath}:${m.path}${m.writable ? '' : ':ro'}`);
  const { cpus, memoryBytes, pids } = spec.resources;
  if (cpus !== undefined) args.push('--cpus', String(cpus));
  if (memoryBytes !== undefined) args.push('--memory', String(memoryBytes));
  if (pids !== undefined) args.push('--pids-limit', String(pids));
  args.push(spec.image!, name);
  return args;
}

interface InstanceListing {
  instances: { instance: string; pid: number; img: string }[];
}

export class ApptainerProvider implements SandboxProvider {
  readonly name = 'apptainer' as const;
  readonly root: string;
  private readonly binaryOption?: string;

  constructor(options: ApptainerProviderOptions = {}) {
    const parsed = parseInput(ApptainerProviderOptions, options, 'apptainer sandbox provider option');
    this.binaryOption = parsed.binary;
    this.root = path.resolve(parsed.root ?? path.join(process.env.GYMFLOW_SANDBOX_ROOT ?? path.join(stateDir(), 'sandboxes'), 'apptainer'));
  }

  /** The binary to run; SETUP_FAILED naming the option and variable when there is none. */
  binary(): string {
    const named = this.binaryOption ?? process.env[BINARY_ENV];
    const found = named ?? findOnPath('apptainer');
    if (found) {
      try {
        accessSync(found, constants.X_OK);
        return found;
      } catch {
        // Reported below.
      }
    }
    throw new GymError(
      'SETUP_FAILED',
      `apptainer: ${named ? `${named} is not an executable file` : 'no apptainer on PATH'}: install Apptainer, or name its binary with the provider option "binary" or $${BINARY_ENV}`,
    );
  }

  /** The CLI's environment: this process's, so it finds its own configuration and instance folder. */
  cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    return runCli(this.binary(), args, process.env);
  }

  async running(): Promise<Map<string, number>> {
    const result = await this.cli(['instance', 'list', '--json']);
    if (result.code !== 0) throw new GymError('ENV_ERROR', `apptainer instance list failed: ${fatal(result.stderr)}`);
    const listing = (result.stdout.trim() ? JSON.parse(result.stdout) : { instances: [] }) as InstanceListing;
    return new Map((listing.instances ?? []).map((i) => [i.instance, i.pid]));
  }

  async create(input: SandboxSpec): Promise<Sandbox> {
    const spec = parseInput(SandboxSpec, input, 'sandbox spec');
    checkSupported(spec);
    this.binary();
    const id = `gymflow-${randomBytes(8).toString('hex')}`;
    const dir = path.join(this.root, id);
    await mkdir(this.root, { recursive: true });
    await mkdir(dir, { mode: 0o700 });
    for (const sub of ['workspace', 'tmp', 'commands']) await mkdir(path.join(dir, sub), { mode: sub === 'commands' ? 0o700 : 0o755 });
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
    const started = await this.cli(startArgs(spec, dir, id));
    if (started.code !== 0) {
      await rm(dir, { recursive: true, force: true });
      throw new GymError('SETUP_FAILED', `apptainer: could not start an instance of ${spec.image}: ${fatal(started.stderr)}`);
    }
    return new ApptainerSandbox(this, dir, record);
  }

  async attach(id: string): Promise<Sandbox> {
    if (!SANDBOX_ID.test(id)) throw new GymError('NOT_FOUND', `${JSON.stringify(id)} is not an apptainer sandbox id`);
    const dir = path.join(this.root, id);
    const record = await readRecord(dir);
    if (!record || record.destroying) throw new GymError('NOT_FOUND', `apptainer sandbox ${id} is gone (no ${dir})`);
    if (!(await this.running()).has(id)) throw new GymError('NOT_FOUND', `apptainer sandbox ${id}: its instance is not running any more`);
    // Whoever attaches owns it now: gc must not take it from a live retry.
    const owned = { ...record, owner: processIdentity() };
    await writeRecord(dir, owned);
    return new ApptainerSandbox(this, dir, owned);
  }

  async list(labels: Partial<SandboxLabels> = {}): Promise<SandboxInfo[]> {
    const names = (await readdir(this.root).catch(() => [] as string[])).filter((n) => SANDBOX_ID.test(n)).sort();
    if (names.length === 0) return [];
    const running = await this.running();
    const infos: SandboxInfo[] = [];
    for (const name of names) {
      const record = await readRecord(path.join(this.root, name)).catch(() => undefined);
      if (!record || Object.entries(labels).some(([k, v]) => v !== undefined && record.labels[k as keyof SandboxLabels] !== v)) continue;
      infos.push({
        id: record.id,
        provider: 'apptainer',
        state: !record.destroying && running.has(record.id) ? 'running' : 'stopped',
        labels: record.labels,
        createdAt: record.createdAt,
        expiresAt: record.expiresAt,
        ownerAlive: isAlive(record.owner),
      });
    }
    return infos;
  }
}

class ApptainerSandbox implements Sandbox {
  readonly provider = 'apptainer' as const;
  readonly id: string;
  readonly labels: SandboxLabels;
  private readonly spec: ResolvedSandboxSpec;
  /** File operations go through the bound host folders, exactly as the local provider's do. */
  private readonly files: LocalSandbox;

  constructor(
    private readonly owner: ApptainerProvider,
    private readonly dir: string,
    private record: SandboxRecord,
  ) {
    this.id = record.id;
    this.labels = record.labels;
    this.spec = resolvedSpec(record);
    this.files = new LocalSandbox(dir, record, 'none');
  }

  private async ensureLive(): Promise<void> {
    if (!existsSync(path.join(this.dir, 'sandbox.json'))) throw new GymError('NOT_FOUND', `apptainer sandbox ${this.id} is gone`);
  }

  /**
   * `apptainer exec` into the instance. The environment goes in a file of its own (owner-only, removed
   * with the sandbox), so keys never show in a process list; with --containall nothing else of this
   * process's environment enters.
   */
  private async execArgv(request: z.output<typeof ExecRequest>): Promise<{ argv: string[]; envFile: string }> {
    const env = { HOME: this.spec.workdir, ...this.spec.env, ...request.env };
    const envFile = path.join(this.dir, 'commands', `.env-${randomBytes(6).toString('hex')}`);
    await writeFile(
      envFile,
      Object.entries(env)
        .map(([k, v]) => `${k}=${shQuote(v)}\n`)
        .join(''),
      { mode: 0o600 },
    );
    return { argv: [this.owner.binary(), 'exec', '--env-file', envFile, '--pwd', request.cwd ?? this.spec.workdir, `instance://${this.id}`, ...request.command], envFile };
  }

  /** The environment of the apptainer process itself: what the CLI needs, and the marker that finds it at destroy. */
  private cliEnv(): Record<string, string> {
    const keep = Object.entries(process.env).filter(([k]) => k === 'PATH' || k === 'HOME' || k === 'USER' || k.startsWith('APPTAINER'));
    return { ...(Object.fromEntries(keep) as Record<string, string>), [MARKER]: this.id };
  }

  async exec(input: ExecRequest, options: ExecOptions = {}): Promise<ExecResult> {
    await this.ensureLive();
    const request = parseInput(ExecRequest, input, 'sandbox exec request');
    const started = performance.now();
    const stopClock = startSandboxClock();
    const { argv, envFile } = await this.execArgv(request);
    const child = spawn(argv[0]!, argv.slice(1), { env: this.cliEnv(), detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    const tails = { stdout: new Tail(OUTPUT_TAIL_BYTES), stderr: new Tail(OUTPUT_TAIL_BYTES) };
    const collect = (stream: OutputStream) => (chunk: Buffer) => {
      tails[stream].push(chunk);
      options.onOutput?.(stream, chunk);
    };
    child.stdout.on('data', collect('stdout'));
    child.stderr.on('data', collect('stderr'));
    child.stdin.on('error', () => undefined);
    child.stdin.end(request.stdin ?? '');
    let killedBy: 'timeout' | 'abort' | undefined;
    const kill = (why: 'timeout' | 'abort') => {
      killedBy ??= why;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Gone already.
      }
    };
    const timer = setTimeout(() => kill('timeout'), request.timeoutMs);
    const onAbort = () => kill('abort');
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener('abort', onAbort);
    try {
      const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
        child.once('error', (e) => reject(new GymError('SETUP_FAILED', `apptainer: cannot run ${argv[0]}: ${e.message}`)));
        child.once('close', (c, s) => resolve([c, s]));
      });
      const killed = killedBy !== undefined;
      return ExecResult.parse({
        exitCode: killed ? null : code,
        signal: killed ? 'SIGKILL' : (signal ?? null),
        timedOut: killedBy === 'timeout',
        stdout: tails.stdout.text(),
        stderr: tails.stderr.text(),
        durationMs: performance.now() - started,
      });
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      stopClock();
      await rm(envFile, { force: true });
    }
  }

  /**
   * A terminal: the local provider's pty relay (pty.ts) run by the instance's python3, so the pty is made
   * inside the container; killed with its process group, like an exec, at kill() or its deadline.
   */
  async openPty(input: PtyRequest): Promise<PtySession> {
    await this.ensureLive();
    const { columns, rows, ...request } = parseInput(PtyRequest, input, 'sandbox pty request');
    const { argv, envFile } = await this.execArgv({ ...request, command: ptyCommand('python3', request.command, columns, rows) });
    const child = spawn(argv[0]!, argv.slice(1), { env: this.cliEnv(), detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin.on('error', () => undefined);
    let killed = false;
    const kill = () => {
      killed = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Gone already.
      }
    };
    const timer = setTimeout(kill, request.timeoutMs);
    const done = new Promise<JailExit>((resolve, reject) => {
      child.once('error', (e) => reject(new GymError('SETUP_FAILED', `apptainer: cannot run ${argv[0]}: ${e.message}`)));
      child.once('close', (code, signal) => {
        clearTimeout(timer);
        void rm(envFile, { force: true });
        resolve({ exitCode: killed ? null : code, signal: killed ? 'SIGKILL' : signal, timedOut: false, stderr: '' });
      });
    });
    return relaySession({ stdin: child.stdin, stdout: child.stdout, stderr: child.stderr, done, kill });
  }

  /** Under the local provider's supervisor (outliving this worker); with `commandId`, started once per id. */
  async startCommand(input: ExecRequest, options: { commandId?: string } = {}): Promise<{ commandId: string }> {
    await this.ensureLive();
    const request = parseInput(ExecRequest, input, 'sandbox exec request');
    const commandId = checkCommandId(options.commandId ?? `cmd-${randomBytes(6).toString('hex')}`);
    if (existsSync(path.join(this.dir, 'commands', commandId))) return { commandId };
    const { argv } = await this.execArgv(request);
    await startDetached(
      path.join(this.dir, 'commands'),
      commandId,
      this.id,
      { argv, env: this.cliEnv(), cwd: path.join(this.dir, 'workspace'), infoFd: false },
      Date.now() + request.timeoutMs,
      request.stdin,
    );
    return { commandId };
  }

  async commandStatus(commandId: string, options: { waitMs?: number } = {}): Promise<CommandStatus> {
    await this.ensureLive();
    return detachedStatus(path.join(this.dir, 'commands'), commandId, options.waitMs);
  }

  async killCommand(commandId: string): Promise<void> {
    await this.ensureLive();
    const folder = path.join(this.dir, 'commands', checkCommandId(commandId));
    // A command started a moment ago may not have its supervisor yet, and killDetached skips one it
    // cannot name: wait (bounded) until the supervisor says who it is, or the command has ended.
    for (let i = 0; i < 300 && existsSync(folder) && !existsSync(path.join(folder, 'supervisor.json')) && !existsSync(path.join(folder, 'status.json')); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    await killDetached(path.join(this.dir, 'commands'), commandId);
  }

  readFile(file: string): Promise<Buffer> {
    return this.files.readFile(file);
  }

  writeFile(file: string, data: string | Buffer, options?: { mode?: number }): Promise<void> {
    return this.files.writeFile(file, data, options);
  }

  upload(hostPath: string, file: string): Promise<void> {
    return this.files.upload(hostPath, file);
  }

  download(file: string, hostPath: string): Promise<void> {
    return this.files.download(file, hostPath);
  }

  listFiles(folder: string): Promise<FileEntry[]> {
    return this.files.listFiles(folder);
  }

  async status(): Promise<SandboxState> {
    const record = await readRecord(this.dir).catch(() => undefined);
    if (!record || record.destroying) return 'gone';
    return (await this.owner.running()).has(this.id) ? 'running' : 'stopped';
  }

  async keepalive(ms: number): Promise<void> {
    await this.ensureLive();
    const record = (await readRecord(this.dir)) ?? this.record;
    this.record = { ...record, expiresAt: new Date(Date.now() + ms).toISOString() };
    await writeRecord(this.dir, this.record);
  }

  async destroy(): Promise<void> {
    const record = await readRecord(this.dir).catch(() => undefined);
    if (!record) return;
    if (!record.destroying) await writeRecord(this.dir, { ...record, destroying: true }).catch(() => undefined);
    const stopped = await this.owner.cli(['instance', 'stop', this.id]);
    // "no instance found": stopped already (by another caller, or it died); anything else is a failure.
    if (stopped.code !== 0 && !/no instance found/i.test(stopped.stderr)) throw new GymError('ENV_ERROR', `apptainer instance stop ${this.id} failed: ${fatal(stopped.stderr)}`);
    await killSandboxProcesses(this.id);
    await rm(this.dir, { recursive: true, force: true });
  }
}

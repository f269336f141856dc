// The contract a sandbox provider (local bubblewrap, Docker, Apptainer, E2B, OpenSandbox) fulfils, so a
// rollout's steps, the harness adapters and `gym sandbox list|gc` never know which one runs their code.
import type { CommandStatus, ExecRequest, ExecResult, FileEntry, ProviderName, PtyRequest, SandboxInfo, SandboxLabels, SandboxSpec, SandboxState } from './schema';

export type OutputStream = 'stdout' | 'stderr';

export interface ExecOptions {
  /** Every chunk as it arrives (the result keeps only a tail). */
  onOutput?: (stream: OutputStream, chunk: Buffer) => void;
  /** Aborting kills the command, as a timeout does. */
  signal?: AbortSignal;
}

/** An interactive terminal in the sandbox (a harness's TUI, a shell a tool drives). */
export interface PtySession {
  write(data: string | Buffer): void;
  onData(listener: (chunk: Buffer) => void): void;
  /** Throws BAD_INPUT for a size outside 1-65535 cells. */
  resize(columns: number, rows: number): void;
  /** Resolves with the exit code once the session's process is gone. */
  readonly exited: Promise<number | null>;
  kill(): void;
}

export interface Sandbox {
  readonly id: string;
  readonly provider: ProviderName;
  readonly labels: SandboxLabels;

  exec(request: ExecRequest, options?: ExecOptions): Promise<ExecResult>;
  /**
   * Starts a long command and returns at once; its output is kept by the provider for `commandStatus`.
   * With `commandId` (letters, digits, `._-`) it is idempotent: a command already started under that id
   * is not started again, so a retried activity re-attaches to it instead of running it twice.
   */
  startCommand(request: ExecRequest, options?: { commandId?: string }): Promise<{ commandId: string }>;
  /** Where a detached command is; with `waitMs`, waits up to that long for it to exit (bounded polling). */
  commandStatus(commandId: string, options?: { waitMs?: number }): Promise<CommandStatus>;
  killCommand(commandId: string): Promise<void>;
  /** Absent where the provider has no terminals. */
  openPty?(request: PtyRequest): Promise<PtySession>;

  readFile(path: string): Promise<Buffer>;
  writeFile(path: string, data: string | Buffer, options?: { mode?: number }): Promise<void>;
  /** Copies a host file or folder into the sandbox at `path`. */
  upload(hostPath: string, path: string): Promise<void>;
  /** Copies a sandbox file or folder out to `hostPath`. */
  download(path: string, hostPath: string): Promise<void>;
  listFiles(path: string): Promise<FileEntry[]>;

  status(): Promise<SandboxState>;
  /** Pushes the sandbox's expiry `ms` into the future (a long harness turn keeps it alive). */
  keepalive(ms: number): Promise<void>;
  /** Absent where the provider cannot pause. */
  pause?(): Promise<void>;
  resume?(): Promise<void>;
  /** Idempotent: destroying a sandbox that is already gone succeeds. */
  destroy(): Promise<void>;
}

export interface SandboxProvider {
  readonly name: ProviderName;
  /** Throws SETUP_FAILED saying what to install or configure when the provider cannot run here. */
  create(spec: SandboxSpec): Promise<Sandbox>;
  /** Reconnects to a sandbox by id (a retried activity on another worker); NOT_FOUND when it is gone. */
  attach(id: string): Promise<Sandbox>;
  /** Every sandbox of this provider that carries Gymflow's labels, optionally only those matching `labels`. */
  list(labels?: Partial<SandboxLabels>): Promise<SandboxInfo[]>;
}

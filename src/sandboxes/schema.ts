// The shapes every sandbox provider speaks, defined once: what a sandbox is created from, how it is
// labelled (so leftovers can be found and removed), and what an exec, a detached command or a file op returns.
import { z } from 'zod';

export const ProviderName = z.enum(['local', 'docker', 'apptainer', 'e2b', 'opensandbox']);
export type ProviderName = z.infer<typeof ProviderName>;

/** Who a sandbox belongs to: `gym sandbox list|gc` and the orphan reaper select on these. */
export const SandboxLabels = z.strictObject({
  run: z.string().min(1),
  rollout: z.string().min(1),
  attempt: z.number().int().nonnegative(),
  user: z.string().min(1),
});
export type SandboxLabels = z.infer<typeof SandboxLabels>;

/**
 * What leaves the sandbox. `none`: nothing (no interface but loopback). `allow`: only these host
 * endpoints (the rollout's gateway, typically), each forwarded into the sandbox at the same host:port
 * through a Unix socket, so the sandbox still has no route anywhere else. `host`: the machine's own
 * network, an explicit opt-out.
 */
export const NetworkPolicy = z.discriminatedUnion('mode', [
  z.strictObject({ mode: z.literal('none') }),
  z.strictObject({
    mode: z.literal('allow'),
    endpoints: z.array(z.strictObject({ host: z.string().min(1), port: z.number().int().min(1).max(65_535) })).min(1),
  }),
  z.strictObject({ mode: z.literal('host') }),
]);
export type NetworkPolicy = z.infer<typeof NetworkPolicy>;

export const SandboxResources = z.strictObject({
  /** CPUs the sandbox may use (fractions allowed where the provider can). */
  cpus: z.number().positive().optional(),
  memoryBytes: z.number().int().positive().optional(),
  /** Processes at once: bounds a fork bomb. */
  pids: z.number().int().positive().optional(),
  /** Largest file the sandbox may write. */
  fileSizeBytes: z.number().int().positive().optional(),
  /** Wall-clock life of the whole sandbox: past it, the provider (or the reaper) destroys it. */
  lifetimeMs: z.number().int().positive().optional(),
});
export type SandboxResources = z.infer<typeof SandboxResources>;

export const SandboxSpec = z.strictObject({
  /**
   * What the sandbox's root is made from: a provider's image or template name (docker, e2b,
   * opensandbox), an image file (apptainer), or for `local` a root file system folder (e.g. made by
   * mmdebstrap); absent, `local` shows the host's system folders read-only.
   */
  image: z.string().min(1).optional(),
  /** Where commands start and the only place (with /tmp) they may write. */
  workdir: z.string().startsWith('/').default('/workspace'),
  env: z.record(z.string(), z.string()).default({}),
  resources: SandboxResources.default({}),
  network: NetworkPolicy.default({ mode: 'none' }),
  /**
   * Host folders or files shown inside (a harness's installed CLI and its Node, a task's repository):
   * read-only unless `writable`. Providers without a host (e2b, opensandbox) upload them instead.
   */
  mounts: z.array(z.strictObject({ hostPath: z.string().startsWith('/'), path: z.string().startsWith('/'), writable: z.boolean().default(false) })).default([]),
  /** Run as this user inside (docker's `--user`); default the provider's unprivileged user. */
  user: z.string().min(1).optional(),
  labels: SandboxLabels,
});
export type SandboxSpec = z.input<typeof SandboxSpec>;
export type ResolvedSandboxSpec = z.output<typeof SandboxSpec>;

export const ExecRequest = z.strictObject({
  /** argv; a shell line is `['sh', '-c', line]`. */
  command: z.array(z.string()).min(1),
  cwd: z.string().startsWith('/').optional(),
  env: z.record(z.string(), z.string()).default({}),
  stdin: z.string().optional(),
  /** Past it the command and everything it started are killed and the result says `timedOut`. */
  timeoutMs: z.number().int().positive(),
});
export type ExecRequest = z.input<typeof ExecRequest>;

const TERMINAL_CELLS = z.number().int().min(1).max(65_535);

/** A terminal's size in character cells. */
export const PtySize = z.strictObject({ columns: TERMINAL_CELLS, rows: TERMINAL_CELLS });

/** An interactive command on a terminal: an exec without stdin (the session writes to it), with a size. */
export const PtyRequest = ExecRequest.omit({ stdin: true }).extend({ columns: TERMINAL_CELLS.default(80), rows: TERMINAL_CELLS.default(24) });
export type PtyRequest = z.input<typeof PtyRequest>;

export const ExecResult = z.strictObject({
  exitCode: z.number().int().nullable(),
  /** The signal that ended it, when one did. */
  signal: z.string().nullable(),
  timedOut: z.boolean(),
  /** The last `OUTPUT_TAIL_BYTES` of each stream (the whole stream goes to `onOutput`). */
  stdout: z.string(),
  stderr: z.string(),
  durationMs: z.number().nonnegative(),
});
export type ExecResult = z.infer<typeof ExecResult>;

export const OUTPUT_TAIL_BYTES = 1 << 20;

export const CommandStatus = z.strictObject({
  commandId: z.string(),
  state: z.enum(['running', 'exited']),
  exitCode: z.number().int().nullable(),
  timedOut: z.boolean(),
  stdoutTail: z.string(),
  stderrTail: z.string(),
});
export type CommandStatus = z.infer<typeof CommandStatus>;

export const FileEntry = z.strictObject({
  name: z.string(),
  type: z.enum(['file', 'directory', 'symlink', 'other']),
  sizeBytes: z.number().int().nonnegative(),
});
export type FileEntry = z.infer<typeof FileEntry>;

export const SandboxState = z.enum(['running', 'paused', 'stopped', 'gone']);
export type SandboxState = z.infer<typeof SandboxState>;

/** One sandbox as `gym sandbox list` shows it. */
export const SandboxInfo = z.strictObject({
  id: z.string(),
  provider: ProviderName,
  state: SandboxState,
  labels: SandboxLabels,
  createdAt: z.string(),
  /** Past it the sandbox is gc's to remove (null: no lifetime set; absent: the provider does not say). */
  expiresAt: z.string().nullable().optional(),
  /** Whether the process that owns it still runs: false makes it an orphan; null when this machine cannot tell. */
  ownerAlive: z.boolean().nullable().optional(),
});
export type SandboxInfo = z.infer<typeof SandboxInfo>;

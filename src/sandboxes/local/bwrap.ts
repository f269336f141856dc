// Runs an untrusted command on this machine inside a bubblewrap jail built from a policy: only the
// listed paths visible (read-only), one writable workspace, no network, a clean environment, resource
// limits, and a deadline after which every process of the jail (daemons included) is killed.
import { spawn } from 'node:child_process';
import { accessSync, chownSync, constants, existsSync, lstatSync, readFileSync, readlinkSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { delimiter, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { GymError } from '../../errors';
import { startSandboxClock } from '../meter';
import { failSpan, startSpan } from '../../tracing/spans';

export interface ResourceLimits {
  /** CPU seconds per process (RLIMIT_CPU). */
  cpuSeconds?: number;
  /** Address space per process (RLIMIT_AS). */
  addressSpaceBytes?: number;
  /**
   * Processes of the jail's user (RLIMIT_NPROC): bounds a fork bomb until the deadline. Applied only
   * where the jail has a user of its own (nobody, when started as root): elsewhere it would count
   * every process of the caller's user.
   */
  processes?: number;
  /** Largest file the jail may write (RLIMIT_FSIZE). */
  fileSizeBytes?: number;
  /** Open files per process (RLIMIT_NOFILE). */
  openFiles?: number;
  /** CPUs the jail may run on (its affinity: the first ⌈cpus⌉ of the machine's), not a quota. */
  cpus?: number;
}

/** A host path shown inside the jail at a path of its own. */
export interface JailMount {
  hostPath: string;
  path: string;
  writable: boolean;
}

export interface JailPolicy {
  /** Host directory the command may write; its working directory. */
  workspace: string;
  /** Where the workspace appears inside the jail (default: its host path). */
  workspaceAt?: string;
  /** Host files and directories visible read-only at the same path; nothing else of the host is. */
  readOnly: readonly string[];
  /** Host paths at paths of their own bound before the workspace (an image's top-level folders). */
  rootMounts?: readonly JailMount[];
  /** Further host paths at paths of their own (a sandbox's /tmp, its mounts), bound after the workspace. */
  mounts?: readonly JailMount[];
  /** Where the command starts, as the jail names it (default the workspace). */
  cwd?: string;
  /** Symlinks made at the jail's root (an image's `/bin -> usr/bin`), so programs' linked paths resolve. */
  symlinks?: readonly { target: string; path: string }[];
  /** `host` shares this machine's network; default none (loopback only). */
  network?: 'none' | 'host';
  /** The user inside the jail's user namespace (default the caller's, or nobody as root). */
  innerUser?: { uid: number; gid: number };
  /**
   * Variables only in the environment of the jail's own outer process (never the command's, under
   * bwrap): how every jail of one sandbox is found again from any process.
   */
  hostEnv?: Readonly<Record<string, string>>;
  /** The command's whole environment. */
  env: Readonly<Record<string, string>>;
  limits: ResourceLimits;
  /** Wall-clock limit: past it the jail and everything started in it are killed. */
  deadlineMs: number;
  /**
   * `bwrap` jails the command; `none` runs it as a plain process (same limits, deadline and
   * environment, but it sees the whole machine): an explicit, unsafe opt-out for hosts without bwrap.
   */
  isolation: 'bwrap' | 'none';
}

export interface JailExit {
  /** The command's exit status (bwrap passes it on); null when a signal ended the jail. */
  exitCode: number | null;
  signal: string | null;
  /** The deadline passed and the jail was killed. */
  timedOut: boolean;
  /** The last 64 KiB of what the jail (bwrap's own errors included) wrote to stderr. */
  stderr: string;
}

export interface Jail {
  stdin: Writable;
  stdout: Readable;
  /** Everything the jail writes to stderr (its tail is also in `done`'s result). */
  stderr: Readable;
  /** Resolves once every process of the jail is gone. */
  done: Promise<JailExit>;
  /** Kills every process of the jail now. */
  kill(): void;
}

/**
 * The host's shared-library directories (and the merged-/usr symlinks the dynamic loader is found
 * through): what a dynamically linked program needs, without the host's other programs or its /etc.
 */
export const SYSTEM_LIBRARIES: readonly string[] = ['/usr/lib', '/usr/lib64', '/usr/lib32', '/usr/libx32', '/lib', '/lib64', '/lib32', '/libx32'].filter((p) => existsSync(p));

/** A root that runs untrusted code drops to this user, so an escape from the jail lands unprivileged. */
const NOBODY = 65534;
const STDERR_TAIL = 65_536;

export function findOnPath(name: string, path = process.env.PATH ?? ''): string | undefined {
  for (const dir of path.split(delimiter).filter(Boolean)) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not in this directory.
    }
  }
  return undefined;
}

/** The bwrap binary, or a SETUP_FAILED error saying how to install it (and how to opt out: `unsafeHint`). */
export function requireBwrap(unsafeHint: string): string {
  const bwrap = findOnPath('bwrap');
  if (bwrap) return bwrap;
  throw new GymError(
    'SETUP_FAILED',
    `untrusted code runs in a bubblewrap jail, and bwrap is not installed: install Debian's "bubblewrap" package ` +
      `(apt-get install -y bubblewrap), or ${unsafeHint} to run it without isolation, where it can read this ` +
      `machine's files and keys and reach its network`,
  );
}

/**
 * The jailed user, when this process could otherwise hand root to untrusted code: the workspace is
 * given to it, and the read-only paths must be readable by it.
 */
export function jailUser(): { uid: number; gid: number } | undefined {
  return process.getuid?.() === 0 ? { uid: NOBODY, gid: NOBODY } : undefined;
}

/** bwrap's arguments for a policy, up to and excluding the command. */
function bwrapArgs(policy: JailPolicy): string[] {
  const args = [
    // Every namespace, the user one included: no network, own pids (the first one's death takes all
    // others with it), no capabilities, and no tie to the caller's terminal.
    '--unshare-all',
    '--unshare-user',
    '--cap-drop',
    'ALL',
    '--die-with-parent',
    '--new-session',
    '--clearenv',
  ];
  if (policy.network === 'host') args.push('--share-net');
  if (policy.innerUser) args.push('--uid', String(policy.innerUser.uid), '--gid', String(policy.innerUser.gid));
  for (const [key, value] of Object.entries(policy.env)) args.push('--setenv', key, value);
  for (const link of policy.symlinks ?? []) args.push('--symlink', link.target, link.path);
  for (const path of policy.readOnly) {
    const link = symlinkTarget(path);
    // A symlink at the root (merged /usr: /lib64 -> usr/lib64) is recreated, not followed, so the
    // paths programs were linked against still resolve.
    if (link !== undefined && path.split('/').length === 2) args.push('--symlink', link, path);
    else args.push('--ro-bind', path, path);
  }
  const bind = (mount: JailMount) => args.push(mount.writable ? '--bind' : '--ro-bind', mount.hostPath, mount.path);
  for (const mount of policy.rootMounts ?? []) bind(mount);
  args.push('--dev', '/dev', '--remount-ro', '/dev', '--proc', '/proc');
  const workspaceAt = policy.workspaceAt ?? policy.workspace;
  args.push('--bind', policy.workspace, workspaceAt);
  for (const mount of policy.mounts ?? []) bind(mount);
  args.push('--chdir', policy.cwd ?? workspaceAt);
  // Last, once every mount point exists: nothing outside the workspace is writable.
  args.push('--remount-ro', '/');
  return args;
}

function symlinkTarget(path: string): string | undefined {
  try {
    return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : undefined;
  } catch {
    return undefined;
  }
}

function firstPid(info: string): number | undefined {
  const pid = /"child-pid"\s*:\s*(\d+)/.exec(info)?.[1];
  return pid ? Number(pid) : undefined;
}

/**
 * Waits for a jail's first process to be gone or a zombie: the kernel has then killed and reaped the
 * rest of its pid namespace (a daemon that closed its pipes included). Bounded, in case of pid reuse.
 */
async function untilGone(pid: number | undefined): Promise<void> {
  for (let waited = 0; pid !== undefined && waited < 10_000; waited += 20) {
    let state: string;
    try {
      state = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0] ?? '';
    } catch {
      return;
    }
    if (state === 'Z' || state === 'X') return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function prlimitArgs(limits: ResourceLimits): string[] {
  const flags: [string, number | undefined][] = [
    ['cpu', limits.cpuSeconds],
    ['as', limits.addressSpaceBytes],
    ['nproc', limits.processes],
    ['fsize', limits.fileSizeBytes],
    ['nofile', limits.openFiles],
  ];
  return flags.filter(([, v]) => v !== undefined).map(([name, v]) => `--${name}=${Math.ceil(v!)}`);
}

/** The CPUs `cpus` asks for, as taskset's list; undefined when that is every CPU of the machine anyway. */
function cpuList(cpus: number | undefined): string | undefined {
  const count = cpus === undefined ? undefined : Math.max(1, Math.ceil(cpus));
  return count === undefined || count >= availableParallelism() ? undefined : `0-${count - 1}`;
}

/** The full argv: limits (inherited by bwrap and all it starts), then the jail, then the command. */
function jailArgv(policy: JailPolicy, command: readonly string[], bwrap: string, prlimit: string | undefined): string[] {
  const limits = prlimitArgs(policy.limits);
  if (limits.length && !prlimit) throw new GymError('SETUP_FAILED', 'resource limits need prlimit (Debian package "util-linux"), which is not installed');
  // bwrap names the jail's first process on fd 3: once it is gone, so is every process of the jail.
  let jailed = policy.isolation === 'bwrap' ? [bwrap, '--info-fd', '3', ...bwrapArgs(policy), '--', ...command] : [...command];
  const cpus = cpuList(policy.limits.cpus);
  if (cpus) {
    const taskset = findOnPath('taskset', `${process.env.PATH ?? ''}${delimiter}/usr/bin:/bin`);
    if (!taskset) throw new GymError('SETUP_FAILED', 'a CPU limit needs taskset (Debian package "util-linux"), which is not installed');
    jailed = [taskset, '-c', cpus, ...jailed];
  }
  return limits.length ? [prlimit!, ...limits, '--', ...jailed] : jailed;
}

/** How to start a jail: what `launchJail` spawns, and what a detached command's supervisor spawns. */
export interface JailLaunch {
  argv: string[];
  env: Record<string, string>;
  cwd: string;
  uid?: number;
  gid?: number;
  /** bwrap reports the jail's first process on fd 3. */
  infoFd: boolean;
}

/** The process that runs the command (paths as the host names them) in a jail under `policy`. */
export function jailLaunch(policy: JailPolicy, command: readonly string[], unsafeHint: string): JailLaunch {
  const bwrap = policy.isolation === 'bwrap' ? requireBwrap(unsafeHint) : '';
  const user = jailUser();
  const limits = user ? policy.limits : { ...policy.limits, processes: undefined };
  const prlimit = findOnPath('prlimit', `${process.env.PATH ?? ''}${delimiter}/usr/bin:/bin`);
  const argv = jailArgv({ ...policy, limits }, command, bwrap, prlimit);
  if (user) chownSync(policy.workspace, user.uid, user.gid);
  return {
    argv,
    // bwrap's own processes keep the environment they were started with, readable in the jail's
    // /proc/1/environ: give them the command's, never this process's keys.
    env: { ...policy.env, ...policy.hostEnv },
    cwd: policy.workspace,
    ...user,
    infoFd: policy.isolation === 'bwrap',
  };
}

/**
 * Starts the command (paths as the host names them) in a jail. The jail is its own process group;
 * under bwrap, killing it ends the jail's pid namespace, and with it every process the command
 * started, setsid daemons included.
 */
export function launchJail(policy: JailPolicy, command: readonly string[], unsafeHint: string): Jail {
  const launch = jailLaunch(policy, command, unsafeHint);
  const argv = launch.argv;
  const clock = startSandboxClock();
  const span = startSpan('sandbox', { 'gymflow.sandbox.isolation': policy.isolation, 'gymflow.sandbox.deadline_ms': policy.deadlineMs });
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd: launch.cwd,
    detached: true,
    stdio: launch.infoFd ? ['pipe', 'pipe', 'pipe', 'pipe'] : ['pipe', 'pipe', 'pipe'],
    env: launch.env,
    uid: launch.uid,
    gid: launch.gid,
  });
  let timedOut = false;
  let exitCode: number | null = null;
  let signal: string | null = null;
  const stderr: Buffer[] = [];
  let stderrBytes = 0;
  let info = '';
  let infoOpen = launch.infoFd;
  // The jail's first process is in a session of its own and dies with bwrap only once it has set its
  // parent-death signal: a kill before bwrap has named it waits (bounded by the pipe's end) for the name.
  const kill = () => {
    const first = firstPid(info);
    if (infoOpen && first === undefined) {
      setTimeout(kill, 20).unref();
      return;
    }
    for (const target of [-child.pid!, first]) {
      try {
        if (target) process.kill(target, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    kill();
  }, policy.deadlineMs);
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr.push(chunk);
    stderrBytes += chunk.length;
    while (stderrBytes - (stderr[0]?.length ?? 0) >= STDERR_TAIL) stderrBytes -= stderr.shift()!.length;
  });
  child.stdio[3]?.on('data', (chunk: Buffer) => (info += chunk.toString('utf8')));
  child.stdio[3]?.on('close', () => (infoOpen = false));
  setTimeout(() => (infoOpen = false), 2_000).unref();
  child.stdin!.on('error', () => {
    // The command may exit before reading what it was sent; its exit says so.
  });
  const done = new Promise<JailExit>((resolve, reject) => {
    child.on('error', (error) => {
      clearTimeout(timer);
      failSpan(span, error);
      span.end();
      reject(new GymError('SETUP_FAILED', `cannot start ${argv[0]}: ${error.message}`));
    });
    child.on('exit', (code, sig) => {
      exitCode = code;
      signal = sig;
      // Whatever the command left behind goes too (without bwrap, only its process group can be
      // reached); a survivor holding the pipes must not keep this promise waiting.
      kill();
      setTimeout(() => {
        for (const stream of [child.stdout, child.stderr, child.stdio[3]]) stream?.destroy();
      }, 1_000).unref();
    });
    child.on('close', () => {
      clearTimeout(timer);
      void untilGone(firstPid(info)).then(() => {
        clock();
        span.setAttribute('gymflow.sandbox.timed_out', timedOut);
        span.end();
        resolve({ exitCode, signal, timedOut, stderr: Buffer.concat(stderr).toString('utf8').slice(-STDERR_TAIL) });
      });
    });
  });
  return { stdin: child.stdin!, stdout: child.stdout!, stderr: child.stderr!, done, kill };
}

// Real Jupyter kernels for the notebook environments, each in a bubblewrap jail that sees only the
// kernel venv (scripts/setup-notebook-kernel.sh), the host's libraries, its workspace and a scratch /tmp.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { GymError } from '../../errors';
import { SYSTEM_LIBRARIES, launchJail, type Jail, type JailExit } from '../../sandboxes/local/bwrap';
import { PACKAGE_ROOT } from '../../util/paths';
import { NotebookCell, type NotebookOutput } from './view';

const RUNNER = fileURLToPath(new URL('./runner.py', import.meta.url));
const REQUIREMENTS = fileURLToPath(new URL('./requirements.txt', import.meta.url));
const UNSAFE_HINT = 'give the environment the setting unsafe_no_isolation=true (--env-option unsafe_no_isolation=true)';
const SETUP_HINT = 'run bash scripts/setup-notebook-kernel.sh (or set GYMFLOW_NOTEBOOK_PYTHON to a python with ipykernel, jupyter-client, nbformat and nbclient)';

/** How a notebook environment runs its kernels. */
export interface KernelSettings {
  /** `none` runs the kernel as a plain process that sees the whole machine: for hosts without bubblewrap, and unsafe. */
  isolation: 'bwrap' | 'none';
  /** Address space of each process in the jail. */
  memoryBytes: number;
}

/** A kernel's folders: the workspace (its working directory, at `at` in the jail) and a scratch /tmp. */
export interface KernelFolders {
  workspace: string;
  scratch: string;
  at: string;
}

/** The kernel venv's python: GYMFLOW_NOTEBOOK_PYTHON, else the venv scripts/setup-notebook-kernel.sh made from requirements.txt. */
export function kernelPython(): { python: string; prefix: string } {
  const given = process.env.GYMFLOW_NOTEBOOK_PYTHON;
  if (given) return { python: given, prefix: path.dirname(path.dirname(given)) };
  // pinned-venv.sh names the venv by the hash of its pins, space-separated as the setup script passes them.
  const pins = readFileSync(REQUIREMENTS, 'utf8').split('\n').filter(Boolean).join(' ');
  const venv = path.join(PACKAGE_ROOT, '.gymflow/venvs', `notebook-kernel-${createHash('sha256').update(pins).digest('hex').slice(0, 12)}`);
  const python = path.join(venv, 'bin/python');
  if (!existsSync(python) || readFileSafe(path.join(venv, '.requirements')).trim() !== pins) {
    throw new GymError('SETUP_FAILED', `the notebook kernel's venv (${pins}) is not installed: ${SETUP_HINT}`);
  }
  // The jail binds real paths: .gymflow may be a symlink into another checkout.
  const prefix = realpathSync(venv);
  return { python: path.join(prefix, 'bin/python'), prefix };
}

function readFileSafe(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** Every path a symlink chain passes through, from `start` to the file it ends at. */
function symlinkChain(start: string): string[] {
  const chain = [start];
  for (let at = start; chain.length < 40;) {
    let target: string;
    try {
      target = readlinkSync(at);
    } catch {
      break;
    }
    at = path.resolve(path.dirname(at), target);
    chain.push(at);
  }
  return chain;
}

/** What the jail must show for the venv's python to run: the venv, and every hop of its interpreter symlink. */
function pythonPaths(python: string, prefix: string): string[] {
  const hops = symlinkChain(python).filter((hop) => !hop.startsWith(prefix + path.sep));
  const interpreter = realpathSync(python);
  const paths = [prefix, ...hops, interpreter, RUNNER];
  // A venv made from an interpreter outside /usr (pyenv's) needs that installation too.
  const base = path.dirname(path.dirname(interpreter));
  if (!base.startsWith('/usr')) paths.push(base);
  return [...new Set(paths)];
}

function launch(folders: KernelFolders, args: string[], settings: KernelSettings, deadlineMs: number): Jail {
  const { python, prefix } = kernelPython();
  const jailed = settings.isolation === 'bwrap';
  const tmp = jailed ? '/tmp' : folders.scratch;
  return launchJail(
    {
      workspace: folders.workspace,
      workspaceAt: jailed ? folders.at : undefined,
      readOnly: [...SYSTEM_LIBRARIES, ...pythonPaths(python, prefix)],
      mounts: jailed ? [{ hostPath: folders.scratch, path: '/tmp', writable: true }] : [],
      env: {
        PATH: `${path.join(prefix, 'bin')}:/usr/bin:/bin`,
        LANG: 'C.UTF-8',
        HOME: tmp,
        TMPDIR: tmp,
        JUPYTER_RUNTIME_DIR: path.join(tmp, 'jupyter'),
        JUPYTER_PLATFORM_DIRS: '1',
        IPYTHONDIR: path.join(tmp, 'ipython'),
        MPLCONFIGDIR: path.join(tmp, 'matplotlib'),
        PYTHONDONTWRITEBYTECODE: '1',
      },
      limits: {
        cpuSeconds: Math.ceil(deadlineMs / 1000) + 1,
        addressSpaceBytes: settings.memoryBytes,
        processes: 1024,
        fileSizeBytes: 2 * 1024 ** 3,
        openFiles: 1024,
      },
      deadlineMs,
      isolation: settings.isolation,
    },
    [python, '-I', RUNNER, ...args],
    UNSAFE_HINT,
  );
}

/** Reads the runner's reply lines in order. */
function replies(jail: Jail): () => Promise<unknown> {
  const lines = createInterface({ input: jail.stdout })[Symbol.asyncIterator]();
  return async () => {
    const next = await lines.next();
    if (next.done) throw new Error('the kernel runner ended');
    return JSON.parse(next.value) as unknown;
  };
}

function failure(exit: JailExit): string {
  return exit.stderr.trim().split('\n').slice(-20).join('\n');
}

export type NotebookRun =
  | { status: 'done'; cells: NotebookCell[] }
  /** Past the deadline: every process of the jail was killed. */
  | { status: 'timeout' }
  /** The runner failed (a kernel that died, a notebook it could not read). */
  | { status: 'failed'; exitCode: number | null; detail: string };

/** Executes every cell of `notebook` (a file in the workspace) in a fresh kernel, writing it back as nbconvert does. */
export async function runNotebook(folders: KernelFolders, notebook: string, settings: KernelSettings, deadlineMs: number): Promise<NotebookRun> {
  const jail = launch(folders, ['notebook', settings.isolation === 'bwrap' ? path.posix.join(folders.at, notebook) : path.join(folders.workspace, notebook)], settings, deadlineMs);
  jail.stdin.end();
  const next = replies(jail);
  const reply = next().catch(() => undefined);
  const [answer, exit] = await Promise.all([reply, jail.done]);
  if (exit.timedOut) return { status: 'timeout' };
  const cells = (answer as { cells?: unknown } | undefined)?.cells;
  if (exit.exitCode !== 0 || !Array.isArray(cells)) return { status: 'failed', exitCode: exit.exitCode, detail: failure(exit) };
  return { status: 'done', cells: cells.map((c) => NotebookCell.parse(c)) };
}

/** One execution's outputs, as hypotest's kernel server reports them. */
export interface Execution {
  outputs: NotebookOutput[];
  error: boolean;
  seconds: number;
  /** The code took the kernel down: its state is gone. */
  died?: boolean;
}

/** A kernel kept alive across tool calls: code runs in it one request at a time. */
export class LiveKernel {
  private queue: Promise<unknown> = Promise.resolve();
  private ended = false;

  private constructor(
    private readonly jail: Jail,
    private readonly next: () => Promise<unknown>,
  ) {
    void jail.done.then(() => (this.ended = true));
  }

  /** Starts the runner in its jail and waits for the kernel to answer; the jail ends at `lifetimeMs` whatever happens. */
  static async start(folders: KernelFolders, settings: KernelSettings, lifetimeMs: number): Promise<LiveKernel> {
    const jail = launch(folders, ['kernel'], settings, lifetimeMs);
    const kernel = new LiveKernel(jail, replies(jail));
    await kernel.request(undefined, 'start');
    return kernel;
  }

  get alive(): boolean {
    return !this.ended;
  }

  execute(code: string, timeoutSecs: number): Promise<Execution> {
    return this.request({ op: 'execute', code, timeout: timeoutSecs }, 'execute') as Promise<Execution>;
  }

  async reset(): Promise<void> {
    await this.request({ op: 'reset' }, 'reset');
  }

  close(): void {
    this.ended = true;
    this.jail.stdin.end();
    this.jail.kill();
  }

  private request(message: object | undefined, what: string): Promise<unknown> {
    const run = this.queue.then(async () => {
      if (this.ended) throw new Error(`the notebook kernel is gone (${what})`);
      if (message) this.jail.stdin.write(`${JSON.stringify(message)}\n`);
      try {
        return await this.next();
      } catch {
        const exit = await this.jail.done;
        throw new Error(`the notebook kernel ended during ${what}${exit.timedOut ? ' (its lifetime ran out)' : ''}: ${failure(exit)}`);
      }
    });
    this.queue = run.catch(() => undefined);
    return run;
  }
}

/** Whether the kernel venv is installed here (tests that need a real kernel check it first). */
export function kernelInstalled(): boolean {
  try {
    kernelPython();
    return true;
  } catch {
    return false;
  }
}

// The vcqa sandbox: one command run with `bash -lc` in a bubblewrap jail laid out like NeMo Gym's Apptainer
// one — the working tree read-only at /codebase (the working directory), a writable /tmp/scratch, no network.
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GymError } from '../../errors';
import { SYSTEM_LIBRARIES, findOnPath, launchJail } from '../../sandboxes/local/bwrap';

export const CODEBASE = '/codebase';
export const SCRATCH = '/tmp/scratch';
export const TODOS = `${SCRATCH}/todos.md`;

/** NeMo Gym's ExecResult: a timeout is exit −1 with what was written before the kill. */
export interface ExecResult {
  exit_code: number;
  stdout: string;
  stderr: string;
  timed_out: boolean;
}

/** The host's programs (and the libraries they load): NeMo Gym's image has bash, coreutils, git, rg, fd, tree. */
const PROGRAMS = ['/usr/bin', '/bin', ...SYSTEM_LIBRARIES];

/** Debian names fd `fdfind`; NeMo Gym's setup links it as `fd`, and so does the jail. */
function fdLink(): { target: string; path: string }[] {
  return !findOnPath('fd', '/usr/bin:/bin') && findOnPath('fdfind', '/usr/bin:/bin') ? [{ target: '/usr/bin/fdfind', path: '/usr/local/bin/fd' }] : [];
}

/**
 * Runs the command against the tree. `todos` is the scratchpad's content going in; what the command left in
 * /tmp/scratch/todos.md comes back, so the notes persist across calls like NeMo Gym's per-rollout scratch.
 */
export async function execInTree(tree: string, command: string, timeoutS: number, todos: string): Promise<ExecResult & { todos: string }> {
  if (!findOnPath('bwrap')) {
    throw new GymError('SETUP_FAILED', 'vcqa\'s shell runs in a bubblewrap jail, and bwrap is not installed: install Debian\'s "bubblewrap" package (apt-get install -y bubblewrap)');
  }
  const scratch = await mkdtemp(path.join(tmpdir(), 'gymflow-vcqa-scratch-'));
  try {
    await writeFile(path.join(scratch, 'todos.md'), todos);
    await chmod(path.join(scratch, 'todos.md'), 0o666);
    const jail = launchJail(
      {
        workspace: scratch,
        workspaceAt: SCRATCH,
        readOnly: PROGRAMS,
        symlinks: fdLink(),
        mounts: [{ hostPath: tree, path: CODEBASE, writable: false }],
        cwd: CODEBASE,
        env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: SCRATCH, LANG: 'C.UTF-8', TMPDIR: SCRATCH },
        limits: { cpuSeconds: timeoutS + 5, processes: 256, fileSizeBytes: 256 * 1024 ** 2, openFiles: 1024 },
        deadlineMs: timeoutS * 1000,
        isolation: 'bwrap',
      },
      ['bash', '-lc', command],
      'there is no unjailed mode for vcqa',
    );
    jail.stdin.end();
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    jail.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    jail.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    const exit = await jail.done;
    const left = await readFile(path.join(scratch, 'todos.md'), 'utf8').catch(() => todos);
    return {
      exit_code: exit.timedOut || exit.exitCode === null ? -1 : exit.exitCode,
      stdout: decodeReplace(Buffer.concat(out)),
      stderr: decodeReplace(Buffer.concat(err)),
      timed_out: exit.timedOut,
      todos: left,
    };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** `bytes.decode(errors="replace")`: each invalid sequence becomes U+FFFD, as Python decodes. */
export function decodeReplace(bytes: Uint8Array): string {
  return new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(bytes);
}

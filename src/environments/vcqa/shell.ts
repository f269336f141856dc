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

/** Output kept per stream: far more than a tool shows (32 KiB), far less than a runaway command can write. */
const KEEP_BYTES = 1024 * 1024;

/** A stream's first KEEP_BYTES, and its whole length as NeMo Gym measures it (decoded, encoded again). */
export interface Kept {
  text: string;
  bytes: number;
}

function keeper(stream: NodeJS.ReadableStream): () => Kept {
  const chunks: Buffer[] = [];
  let kept = 0;
  let total = 0;
  stream.on('data', (chunk: Buffer) => {
    total += chunk.length;
    if (kept < KEEP_BYTES) {
      chunks.push(chunk.subarray(0, KEEP_BYTES - kept));
      kept += Math.min(chunk.length, KEEP_BYTES - kept);
    }
  });
  return () => {
    const text = decodeReplace(Buffer.concat(chunks));
    // Past what is kept, bytes count as they are (exact for UTF-8 output).
    return { text, bytes: Buffer.byteLength(text) + (total - kept) };
  };
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
/** NeMo Gym's ExecResult (a timeout is exit −1 with what was written before the kill), and the scratchpad after. */
export interface ExecResult {
  exit_code: number;
  stdout: Kept;
  stderr: Kept;
  timed_out: boolean;
  todos: string;
}

export async function execInTree(tree: string, command: string, timeoutS: number, todos: string): Promise<ExecResult> {
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
    const out = keeper(jail.stdout);
    const err = keeper(jail.stderr);
    const exit = await jail.done;
    const left = await readFile(path.join(scratch, 'todos.md'), 'utf8').catch(() => todos);
    return {
      exit_code: exit.timedOut || exit.exitCode === null ? -1 : exit.exitCode,
      stdout: out(),
      stderr: err(),
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

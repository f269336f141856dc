// What sandboxed environments do through a sandbox's own shell: quote a word, write a file anywhere the
// sandbox may write (any bytes, through base64 on stdin, so every provider takes it), run a line.
import { GymError } from '../../errors';
import type { Sandbox } from '../../sandboxes/provider';
import type { ExecResult } from '../../sandboxes/schema';

/** A shell-safe single-quoted word. */
export const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** The folder part of an absolute path (`/` for a file at the root). */
const parentOf = (file: string) => file.slice(0, file.lastIndexOf('/')) || '/';

/** Writes `content` to `target` in the sandbox, making its folder; executable when asked. */
export async function writeThroughShell(sandbox: Sandbox, target: string, content: string | Buffer, options: { executable?: boolean } = {}): Promise<void> {
  const line = `mkdir -p ${quote(parentOf(target))} && base64 -d > ${quote(target)}${options.executable ? ` && chmod 0755 ${quote(target)}` : ''}`;
  const data = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  const result = await sandbox.exec({ command: ['sh', '-c', line], stdin: data.toString('base64'), timeoutMs: 60_000 });
  if (result.exitCode !== 0) throw new GymError('ENV_ERROR', `cannot write ${target} in sandbox ${sandbox.id}: ${result.stderr.trim() || `exit ${result.exitCode}`}`);
}

/** One shell line in the sandbox (`sh -c`), HOME in its /tmp so git's global config has somewhere to go. */
export function runShell(sandbox: Sandbox, line: string, options: { cwd?: string; timeoutMs?: number; env?: Record<string, string> } = {}): Promise<ExecResult> {
  return sandbox.exec({
    command: ['sh', '-c', line],
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    env: { HOME: '/tmp', ...options.env },
    timeoutMs: options.timeoutMs ?? 60_000,
  });
}

/** Whether a file exists in the sandbox (`test -f`). */
export async function fileExists(sandbox: Sandbox, file: string): Promise<boolean> {
  return (await runShell(sandbox, `test -f ${quote(file)}`, { timeoutMs: 30_000 })).exitCode === 0;
}

/**
 * A file's bytes from anywhere the sandbox can read: copied into its /tmp first, the one place besides the
 * workdir every provider's file operations reach.
 */
export async function readAnywhere(sandbox: Sandbox, file: string): Promise<Buffer> {
  const copy = `/tmp/gymflow-read-${file.replace(/[^A-Za-z0-9._-]/g, '_')}`;
  const result = await runShell(sandbox, `cp ${quote(file)} ${quote(copy)}`, { timeoutMs: 60_000 });
  if (result.exitCode !== 0) throw new GymError('ENV_ERROR', `cannot read ${file} in sandbox ${sandbox.id}: ${result.stderr.trim() || `exit ${result.exitCode}`}`);
  return sandbox.readFile(copy);
}

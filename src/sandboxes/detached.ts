// What providers whose detached commands are shell wrappers share: the command-id rule, the wrapper's
// status report read back, and a shell's 128+n exit code named as its signal (docker, opensandbox, e2b).
import { constants as osConstants } from 'node:os';
import { GymError } from '../errors';
import { CommandStatus } from './schema';

/** Command ids name files in the sandbox: letters, digits, `._-`. */
export function checkCommandId(id: string): string {
  if (!/^[A-Za-z0-9._-]{1,128}$/.test(id)) throw new GymError('BAD_INPUT', `command id ${JSON.stringify(id)} must be 1-128 letters, digits, '.', '_' or '-'`);
  return id;
}

/**
 * A status script's report: on stderr the state line (`running`, `exited <code>`, `timedout`, `killed`) and
 * then the command's stderr tail; on stdout its stdout tail.
 */
export function parseStatusReport(commandId: string, stdout: string, stderr: string): CommandStatus {
  const newline = stderr.indexOf('\n');
  const [state, code] = stderr.slice(0, newline).split(' ');
  return CommandStatus.parse({
    commandId,
    state: state === 'running' ? 'running' : 'exited',
    exitCode: state === 'exited' ? Number(code) : null,
    timedOut: state === 'timedout',
    stdoutTail: stdout,
    stderrTail: stderr.slice(newline + 1),
  });
}

/** 128+n from a shell is "killed by signal n": the name of that signal, if it is one. */
export function signalOf(exitCode: number): string | null {
  if (exitCode <= 128) return null;
  const entry = Object.entries(osConstants.signals).find(([, n]) => n === exitCode - 128);
  return entry ? entry[0] : null;
}

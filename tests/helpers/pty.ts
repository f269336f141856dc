// Drives a sandbox's terminal session in tests: everything it printed so far, and a wait for a pattern
// in it (bounded), so a test types the next line only once the last one's answer came back; and the
// sequence every provider's terminal is checked with.
import { expect } from 'vitest';
import type { PtySession } from '../../src/sandboxes/provider';

export interface PtyTranscript {
  text(): string;
  /** Resolves with the transcript once `pattern` appears in it; rejects after `timeoutMs` showing what came. */
  until(pattern: RegExp, timeoutMs?: number): Promise<string>;
}

export function transcript(session: PtySession): PtyTranscript {
  let seen = '';
  const waiters = new Set<() => void>();
  session.onData((chunk) => {
    seen += chunk.toString('utf8');
    for (const waiter of waiters) waiter();
  });
  return {
    text: () => seen,
    until(pattern, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!pattern.test(seen)) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(seen);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no ${pattern} in the terminal after ${timeoutMs} ms; it showed ${JSON.stringify(seen)}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
}

/**
 * Drives a shell (`sh` with PS1 "$ ") opened at 100×30 through what a terminal must do, asserting as it
 * goes: it is a tty of that size, a resize reaches it, ctrl-C interrupts the foreground job, and the
 * shell's exit code comes back. Answers are computed ($((…))) so the echo of a typed line never matches them.
 */
export async function exerciseShellTerminal(pty: PtySession): Promise<void> {
  const term = transcript(pty);
  pty.write('tty; stty size; test -t 0 && echo terminal-$((40+2))\n');
  await term.until(/terminal-42\r\n/);
  expect(term.text()).toMatch(/\/dev\/pts\/\d+\r\n30 100\r\n/);
  pty.resize(120, 40);
  pty.write('stty size\n');
  await term.until(/40 120\r\n/);
  // The terminal's line discipline turns ctrl-C into SIGINT for the foreground job. It is sent once the job
  // says it runs: a child the shell has forked but not yet exec'd still has the shell's own SIGINT handling.
  pty.write("sh -c 'echo started-$((2+2)); exec sleep 100'\n");
  await term.until(/started-4\r\n/);
  pty.write('\x03');
  // The interrupt flushes the terminal's pending input: type on only once the shell prompts again.
  await term.until(/started-4\r\n[^]*\$ $/);
  pty.write('echo interrupted-$((1+1))\n');
  await term.until(/interrupted-2\r\n/);
  pty.write('exit 7\n');
  expect(await pty.exited).toBe(7);
}

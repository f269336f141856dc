// Drives a sandbox's terminal session in tests: everything it printed so far, and a wait for a pattern
// in it (bounded), so a test types the next line only once the last one's answer came back.
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

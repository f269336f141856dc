// The API's background starts: a few at a time, a passing failure tried again after its pause with the
// error kept for the run's view, a permanent one handed back once, and a run queued twice started once.
import { describe, expect, it } from 'vitest';
import { QuietGate, RunStarter } from '../../src/api/run-starter';

class Permanent extends Error {}

function starter(concurrency = 2) {
  const retries: { runId: string; inMs: number }[] = [];
  const s = new RunStarter({
    concurrency,
    isPermanent: (e) => e instanceof Permanent,
    describe: (e) => ({ code: e instanceof Permanent ? 'CONFLICT' : 'UNREACHABLE', message: (e as Error).message }),
    onRetry: (runId, _e, inMs) => retries.push({ runId, inMs }),
    retryMs: () => 5,
  });
  return { s, retries };
}

const until = async (ok: () => boolean) => {
  for (let i = 0; i < 400 && !ok(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(ok()).toBe(true);
};

describe('RunStarter', () => {
  it('runs at most `concurrency` starts at once and forgets each run once started', async () => {
    const { s } = starter(2);
    let running = 0;
    let most = 0;
    const started: string[] = [];
    for (const id of ['a', 'b', 'c', 'd', 'e']) {
      s.enqueue(
        id,
        async () => {
          most = Math.max(most, ++running);
          await new Promise((r) => setTimeout(r, 10));
          running--;
          started.push(id);
        },
        () => undefined,
      );
    }
    expect(s.state('e')).toMatchObject({ attempts: 0 });
    await until(() => started.length === 5);
    expect(most).toBe(2);
    expect(s.state('a')).toBeUndefined();
  });

  it('tries a passing failure again, showing its error meanwhile, and hands back a permanent one once', async () => {
    const { s, retries } = starter();
    let attempts = 0;
    const failed: unknown[] = [];
    s.enqueue(
      'a',
      async () => {
        attempts++;
        if (attempts === 1) throw new Error('Temporal away');
        if (attempts === 2) throw new Permanent('folder holds another run');
      },
      (e) => failed.push(e),
    );
    await until(() => retries.length === 1);
    expect(retries[0]).toEqual({ runId: 'a', inMs: 5 });
    await until(() => failed.length === 1);
    expect(attempts).toBe(2);
    expect((failed[0] as Error).message).toBe('folder holds another run');
    expect(s.state('a')).toBeUndefined();
  });

  it('keeps the last error on the state of a run waiting to be tried again', async () => {
    const { s } = starter();
    s.enqueue(
      'a',
      () => Promise.reject(new Error('Temporal away')),
      () => undefined,
    );
    await until(() => s.state('a')?.lastError !== undefined);
    expect(s.state('a')!.lastError).toEqual({ code: 'UNREACHABLE', message: 'Temporal away' });
    s.close();
    expect(s.state('a')).toBeUndefined();
  });

  it('starts a run queued twice once', async () => {
    const { s } = starter();
    let calls = 0;
    const start = async () => {
      calls++;
    };
    s.enqueue('a', start, () => undefined);
    s.enqueue('a', start, () => undefined);
    await until(() => s.state('a') === undefined);
    expect(calls).toBe(1);
  });
});

describe('QuietGate', () => {
  it('holds a waiter while work is under way and lets it go when the last piece ends, or after maxWaitMs', async () => {
    const gate = new QuietGate(10_000);
    expect(gate.whenQuiet()).toBeUndefined();
    let finish!: () => void;
    const work = gate.during(() => new Promise<void>((r) => (finish = r)));
    let woke = false;
    void gate.whenQuiet()!.then(() => (woke = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(woke).toBe(false);
    finish();
    await work;
    await until(() => woke);

    const capped = new QuietGate(30);
    void capped.during(() => new Promise<void>(() => undefined));
    let released = false;
    void capped.whenQuiet()!.then(() => (released = true));
    await until(() => released);
  });

  it('waits for the quiet to last settleMs: pieces of work a moment apart (a burst of requests) hold the waiter until the burst is over', async () => {
    const gate = new QuietGate(10_000, 200);
    let woke = false;
    await gate.during(async () => undefined);
    // Just after a piece of work, it is not yet quiet.
    void gate.whenQuiet()!.then(() => (woke = true));
    let lastEnd = 0;
    for (let i = 0; i < 20; i++) {
      await gate.during(async () => undefined);
      lastEnd = performance.now();
      await new Promise((r) => setImmediate(r));
      expect(woke).toBe(false);
    }
    await until(() => woke);
    expect(performance.now() - lastEnd).toBeGreaterThanOrEqual(190);
  });
});

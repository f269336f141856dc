// The trigger API's status memory: polls answered from the last reading, one background refresh per run at
// a time, a reading past maxStaleMs served only while its refreshes are merely slow, runs that are gone forgotten.
import { describe, expect, it } from 'vitest';
import { ViewCache } from '../../src/api/view-cache';

type View = { status: string; n: number };

function cache(over: Partial<ConstructorParameters<typeof ViewCache<View>>[0]> = {}) {
  const clock = { t: 0 };
  const refreshErrors: unknown[] = [];
  const views = new ViewCache<View>({
    freshMs: 100,
    endedFreshMs: 1000,
    maxStaleMs: 5000,
    isEnded: (v) => v.status === 'completed',
    isGone: (e) => (e as Error).message === 'gone',
    onRefreshError: (_key, e) => refreshErrors.push(e),
    now: () => clock.t,
    ...over,
  });
  return { views, clock, refreshErrors };
}

/** A lookup the test answers when it chooses, counting its calls. */
function controlled() {
  const calls: { resolve: (v: View) => void; reject: (e: Error) => void }[] = [];
  const lookup = () => new Promise<View>((resolve, reject) => calls.push({ resolve, reject }));
  return { calls, lookup };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('ViewCache', () => {
  it('looks a run up once for concurrent first polls, then answers from the reading while it is fresh', async () => {
    const { views, clock } = cache();
    const { calls, lookup } = controlled();
    const first = [views.get('a', lookup), views.get('a', lookup)];
    expect(calls).toHaveLength(1);
    calls[0]!.resolve({ status: 'running', n: 1 });
    expect(await Promise.all(first)).toEqual([
      { status: 'running', n: 1 },
      { status: 'running', n: 1 },
    ]);
    clock.t = 99;
    expect(await views.get('a', lookup)).toEqual({ status: 'running', n: 1 });
    expect(calls).toHaveLength(1);
  });

  it('answers a stale reading at once and refreshes it in the background, one lookup at a time', async () => {
    const { views, clock } = cache();
    const { calls, lookup } = controlled();
    views.set('a', { status: 'running', n: 1 });
    clock.t = 150;
    expect(await views.get('a', lookup)).toEqual({ status: 'running', n: 1 });
    expect(await views.get('a', lookup)).toEqual({ status: 'running', n: 1 });
    expect(calls).toHaveLength(1);
    calls[0]!.resolve({ status: 'running', n: 2 });
    await tick();
    expect(await views.get('a', lookup)).toEqual({ status: 'running', n: 2 });
    expect(calls).toHaveLength(1);
  });

  it('keeps an ended run’s reading for endedFreshMs', async () => {
    const { views, clock } = cache();
    const { calls, lookup } = controlled();
    views.set('a', { status: 'completed', n: 1 });
    clock.t = 999;
    await views.get('a', lookup);
    expect(calls).toHaveLength(0);
    clock.t = 1000;
    await views.get('a', lookup);
    expect(calls).toHaveLength(1);
  });

  it('serves a reading past maxStaleMs while refreshes are only slow, but makes a poll wait once they fail', async () => {
    const { views, clock, refreshErrors } = cache();
    const { calls, lookup } = controlled();
    views.set('a', { status: 'running', n: 1 });
    clock.t = 6000;
    // Slow, not failed: served.
    expect(await views.get('a', lookup)).toEqual({ status: 'running', n: 1 });
    calls[0]!.reject(new Error('Temporal away'));
    await tick();
    expect(refreshErrors).toHaveLength(1);
    // Failed and too old: this poll waits for its own lookup, and gets its answer.
    const waiting = views.get('a', lookup);
    expect(calls).toHaveLength(2);
    calls[1]!.reject(new Error('still away'));
    await expect(waiting).rejects.toThrow('still away');
    const again = views.get('a', lookup);
    calls[2]!.resolve({ status: 'running', n: 3 });
    expect(await again).toEqual({ status: 'running', n: 3 });
  });

  it('forgets a run whose first lookup fails, and one that is gone', async () => {
    const { views, clock } = cache();
    const { calls, lookup } = controlled();
    const first = views.get('a', lookup);
    calls[0]!.reject(new Error('no such run'));
    await expect(first).rejects.toThrow('no such run');
    const second = views.get('a', lookup);
    expect(calls).toHaveLength(2);
    calls[1]!.resolve({ status: 'running', n: 1 });
    await second;
    clock.t = 200;
    await views.get('a', lookup);
    calls[2]!.reject(new Error('gone'));
    await tick();
    // Gone: the next poll looks it up instead of answering the old reading.
    const next = views.get('a', lookup);
    expect(calls).toHaveLength(4);
    calls[3]!.reject(new Error('gone'));
    await expect(next).rejects.toThrow('gone');
  });

  it('refreshes at most maxRefreshing runs at once in the background', async () => {
    const { views, clock } = cache({ maxRefreshing: 2 });
    const { calls, lookup } = controlled();
    for (const k of ['a', 'b', 'c']) views.set(k, { status: 'running', n: 0 });
    clock.t = 150;
    for (const k of ['a', 'b', 'c']) await views.get(k, lookup);
    expect(calls).toHaveLength(2);
    calls[0]!.resolve({ status: 'running', n: 1 });
    await tick();
    await views.get('c', lookup);
    expect(calls).toHaveLength(3);
  });
});

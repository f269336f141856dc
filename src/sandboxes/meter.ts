// Wall time spent inside sandboxes, credited to the rollout step that started them: a step runs its
// work under `metered`, and a sandbox clocks each run with `startSandboxClock`.
import { AsyncLocalStorage } from 'node:async_hooks';

const meters = new AsyncLocalStorage<{ ms: number }>();

/** Runs `work`, returning its value and the sandbox time of every sandbox it ran (summed, so parallel runs add up). */
export async function metered<T>(work: () => Promise<T>): Promise<{ value: T; sandboxMs: number }> {
  const meter = { ms: 0 };
  const value = await meters.run(meter, work);
  return { value, sandboxMs: meter.ms };
}

/** Starts timing one sandbox run; the returned stop credits it to the step it was started in (if metered). */
export function startSandboxClock(): () => void {
  const meter = meters.getStore();
  const started = performance.now();
  let stopped = false;
  return () => {
    if (stopped || !meter) return;
    stopped = true;
    meter.ms += performance.now() - started;
  };
}

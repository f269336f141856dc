// What a finished run left in its folder, read the way the end-to-end tests check it: results, sidecar,
// call log and harness traces. A file or folder the run never made reads as empty, so a test's assertion on
// its contents fails with what is missing rather than with ENOENT.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export function jsonlIfPresent(file: string): any[] {
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];
}

/** rollouts.jsonl and failures.jsonl. */
export function runOutcome(runDir: string): { records: any[]; failures: any[] } {
  return { records: jsonlIfPresent(path.join(runDir, 'rollouts.jsonl')), failures: jsonlIfPresent(path.join(runDir, 'failures.jsonl')) };
}

/** Every model call the gateway logged for the run, over all its segments. */
export function modelCalls(runDir: string): any[] {
  const dir = path.join(runDir, 'model_calls');
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.endsWith('.jsonl'))
        .flatMap((f) => jsonlIfPresent(path.join(dir, f)))
    : [];
}

/** The harness traces (one JSON file per harness rollout). */
export function harnessTraces(runDir: string): any[] {
  const dir = path.join(runDir, 'harness');
  return existsSync(dir) ? readdirSync(dir).map((f) => JSON.parse(readFileSync(path.join(dir, f), 'utf8'))) : [];
}

/**
 * Runs started together in a `beforeAll` and each awaited by its own test, so a file takes as long as its
 * slowest run rather than their sum.
 */
export function backgroundRuns<T>(): { start(name: string, run: () => Promise<T>): void; get(name: string): Promise<T>; all(): Promise<T[]>; settled(): Promise<unknown> } {
  const runs = new Map<string, Promise<T>>();
  return {
    start(name, run) {
      const promise = run();
      // Awaited by its own test; kept from being an unhandled rejection until then.
      promise.catch(() => {});
      runs.set(name, promise);
    },
    get(name) {
      const promise = runs.get(name);
      if (!promise) throw new Error(`no run named ${name} was started`);
      return promise;
    },
    all: () => Promise.all(runs.values()),
    settled: () => Promise.allSettled(runs.values()),
  };
}

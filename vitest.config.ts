import { defineConfig } from 'vitest/config';
import { DurationSequencer } from './tests/helpers/sequencer';

// Files whose tests leave no process-wide state behind (no Temporal runtime logger, tracer provider, harness
// cache or signal handler that a later file would inherit) share their worker's module cache: importing the
// environments, the gateway and the SDKs costs seconds per file, about a third of these files' time.
const SHARED = ['unit', 'environments', 'environments-server', 'python', 'reverify', 'report', 'gateway', 'api', 'store', 'workflows', 'helpers'];
const under = (dirs: string[]) => dirs.map((dir) => `tests/${dir}/**/*.test.ts`);

export default defineConfig({
  test: {
    pool: 'forks',
    // Two cores, but the end-to-end files (each with its own Temporal server and worker) mostly wait on
    // servers, subprocesses, kills and mock latency: with three files at once the suite used ~1.6 cores.
    maxWorkers: 4,
    testTimeout: 180_000,
    hookTimeout: 120_000,
    sequence: { sequencer: DurationSequencer },
    projects: [
      { extends: true, test: { name: 'shared', include: under(SHARED), isolate: false } },
      // Every other file (end-to-end runs, faults, sandboxes, CLI subprocesses) gets a fresh module graph.
      { extends: true, test: { name: 'isolated', include: ['tests/**/*.test.ts'], exclude: under(SHARED) } },
    ],
  },
});

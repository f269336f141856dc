import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    pool: 'forks',
    // Two cores, but the end-to-end files (each with its own Temporal server and worker) mostly wait on
    // servers, subprocesses, kills and mock latency: with three files at once the suite used ~1.6 cores.
    maxWorkers: 4,
    testTimeout: 180_000,
    hookTimeout: 120_000,
  },
});

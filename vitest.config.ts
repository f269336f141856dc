import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    pool: 'forks',
    // Two cores, but the end-to-end files (each with its own Temporal server and worker) mostly wait on
    // servers, subprocesses and mock latency: a third file at once uses the idle time.
    maxWorkers: 3,
    testTimeout: 180_000,
    hookTimeout: 120_000,
  },
});

// One Temporal dev server per test file for the `gym` subprocesses it runs (kept out of gym-cli.ts, which
// bench/api-load.ts also imports outside vitest).
import { afterAll, beforeAll } from 'vitest';
import { startTestServer, type TestServer } from './temporal-server';

/**
 * A Temporal dev server for a file's `gym` subprocesses, started before its tests and stopped after them.
 * The returned settings (filled in once it is up) are what each call needs to reach it.
 */
export function useGymServer(): Record<string, string> {
  const env: Record<string, string> = {};
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await startTestServer();
    Object.assign(env, { TEMPORAL_ADDRESS: server.address, GYMFLOW_HOME: server.dir });
  });
  afterAll(async () => {
    await server?.stop();
  });
  return env;
}

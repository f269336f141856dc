// Where a test's harness runs go: a folder the jails can reach (as root they run as nobody, and the Temporal
// test server's own folder is private), and the environment a `gym` call needs to run in it.
import { chmod } from 'node:fs/promises';
import path from 'node:path';
import { tempDir } from './run';
import type { TestServer } from './temporal-server';

export async function harnessRunDir(prefix: string): Promise<string> {
  const dir = await tempDir(prefix);
  await chmod(dir, 0o755);
  return dir;
}

export function harnessRunEnv(server: TestServer, dir: string): Record<string, string> {
  return { TEMPORAL_ADDRESS: server.address, GYMFLOW_HOME: server.dir, GYMFLOW_SANDBOX_ROOT: path.join(dir, 'sandboxes'), GYMFLOW_LOG_LEVEL: 'warn' };
}

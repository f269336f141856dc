// The compose stack's parts for tests: CI builds them in the background beside the suite (.ci/run), and a
// test that needs one waits for that build, or makes the part itself where nothing builds it.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { pidAlive } from '../../src/util/process';

const ROOT = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

/** CI builds the images in the background while the suite runs (.ci/run): its pid is in .setup-pid until it ends. */
export async function awaitBackgroundSetup(who: string): Promise<void> {
  let pid: number;
  try {
    pid = Number(readFileSync(path.join(ROOT, '.gymflow/cache/compose/.setup-pid'), 'utf8'));
  } catch {
    return;
  }
  if (!pid || !pidAlive(pid)) return;
  const t0 = Date.now();
  while (pidAlive(pid)) await new Promise((resolve) => setTimeout(resolve, 1000));
  console.log(`${who}: waited ${Math.round((Date.now() - t0) / 1000)} s for CI's image build (pid ${pid})`);
}

/**
 * The folder of the Go-built Temporal server, its SQL tool and the UI server (`setup-compose.sh binaries`).
 * A build under way (CI starts one first) is waited for by the script's own lock, not the whole image
 * setup; where none was made, this builds it (minutes of CPU), and throws with the script's output if it cannot.
 */
export async function composeBinaries(): Promise<string> {
  try {
    const { stdout } = await run('bash', [path.join(ROOT, 'scripts/setup-compose.sh'), 'binaries'], { cwd: ROOT, timeout: 1_500_000, maxBuffer: 1 << 26 });
    return path.resolve(ROOT, stdout.trim().split('\n').at(-1)!);
  } catch (e) {
    const err = e as Error & { stderr?: string };
    throw new Error(
      `the Temporal server binary is not built and could not be (bash scripts/setup-compose.sh binaries; it needs Go 1.25+ and the Go module proxy): ${err.message}\n${err.stderr ?? ''}`,
    );
  }
}

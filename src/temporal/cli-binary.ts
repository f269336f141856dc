// Finds the Temporal CLI (which contains the dev server) without any download from the internet:
// TEMPORAL_CLI_PATH, then `temporal` on PATH, then the project cache, then a build from the Go
// module proxy into that cache.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { GymError } from '../errors';
import { PACKAGE_ROOT } from '../util/paths';

const run = promisify(execFile);

/** The newest CLI release `go install` accepts (later ones use a replace directive in go.mod). */
export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';

export function cachedCliPath(): string {
  return path.join(process.env.GYMFLOW_CACHE_DIR ?? path.join(PACKAGE_ROOT, '.gymflow', 'bin'), 'temporal');
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, name);
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** The CLI to use, or undefined when none is installed yet. */
export function findTemporalCli(): string | undefined {
  const fromEnv = process.env.TEMPORAL_CLI_PATH;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new GymError('SETUP_FAILED', `TEMPORAL_CLI_PATH points to ${fromEnv}, which does not exist`);
    return fromEnv;
  }
  return onPath('temporal') ?? (existsSync(cachedCliPath()) ? cachedCliPath() : undefined);
}

const STAGING = /^\.staging-(\d+)$/;

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid of another process building into the cache (its staging folder is named after it), if one is. */
function buildUnderWay(dir: string): number | undefined {
  const names = existsSync(dir) ? readdirSync(dir) : [];
  for (const name of names) {
    const pid = Number(STAGING.exec(name)?.[1]);
    if (pid && pid !== process.pid && isRunning(pid)) return pid;
  }
  return undefined;
}

/**
 * Waits while another setup (or scripts/build-temporal-cli.sh) builds the CLI, rather than building it a
 * second time beside it: the build's result, or undefined once that process is gone without one.
 */
async function awaitOtherBuild(target: string, log: (line: string) => void): Promise<string | undefined> {
  const pid = buildUnderWay(path.dirname(target));
  if (pid === undefined) return undefined;
  log(`waiting for the Temporal CLI build already under way (pid ${pid})`);
  while (isRunning(pid)) {
    if (existsSync(target)) return target;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  return existsSync(target) ? target : undefined;
}

/** Builds the official CLI from the Go module proxy into the cache; needs a Go toolchain (1.25+). */
export async function installTemporalCli(log: (line: string) => void = () => {}): Promise<string> {
  const target = cachedCliPath();
  const built = await awaitOtherBuild(target, log);
  if (built) return built;
  const go = onPath('go') ?? (existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined);
  if (!go) {
    throw new GymError(
      'SETUP_FAILED',
      'the Temporal CLI is not installed and no Go toolchain was found to build it; install Go 1.25+, ' +
        'or set TEMPORAL_CLI_PATH to a temporal binary, or set TEMPORAL_ADDRESS to an existing server',
    );
  }
  const staging = `${path.dirname(target)}/.staging-${process.pid}`;
  await mkdir(staging, { recursive: true });
  log(`building the Temporal CLI (${TEMPORAL_CLI_MODULE}) from the Go module proxy; the first build takes a few minutes`);
  try {
    await run(go, ['install', '-ldflags', '-s -w', TEMPORAL_CLI_MODULE], {
      env: { ...process.env, GOBIN: staging, CGO_ENABLED: '0' },
      maxBuffer: 64 * 1024 * 1024,
    });
    // Rename is atomic, so a concurrent setup never sees a half-written binary.
    await rename(path.join(staging, 'temporal'), target);
  } catch (e) {
    throw new GymError('SETUP_FAILED', `could not build the Temporal CLI with go install: ${(e as Error).message.slice(0, 2000)}`);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return target;
}

export async function ensureTemporalCli(log?: (line: string) => void): Promise<string> {
  return findTemporalCli() ?? installTemporalCli(log);
}

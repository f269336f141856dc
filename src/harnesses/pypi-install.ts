// Installs a Python harness (a PyPI package at its pinned version) into a venv under .gymflow/venvs, made
// by scripts/pinned-venv.sh as the project's other Python venvs are, with a Python of the machine new enough
// for it; and keeps a copy of that Python's installation in the cache for the sandbox (below).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { cp, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { GymError } from '../errors';
import { PACKAGE_ROOT } from '../util/paths';
import type { PinnedPackage, PypiInstall } from './types';

/** Where scripts/pinned-venv.sh makes its venvs. */
export function venvRoot(): string {
  return path.join(PACKAGE_ROOT, '.gymflow', 'venvs');
}

const requirement = (pkg: PinnedPackage) => `${pkg.name}==${pkg.version}`;

/** The venv pinned-venv.sh makes for this one requirement: named by the requirement's hash, as it names it. */
export function venvDir(pkg: PinnedPackage): string {
  return path.join(venvRoot(), `${pkg.name}-${createHash('sha256').update(requirement(pkg)).digest('hex').slice(0, 12)}`);
}

/** Written into the venv once it and its Python's copy are complete: which Python it was made with. */
const PYTHON_FILE = '.gymflow-python.json';
const COMPLETE = '.gymflow-complete';

interface FoundPython {
  executable: string;
  version: string;
  /** `sys.base_prefix`: the installation a venv's python links to (its symlink and pyvenv.cfg name it). */
  prefix: string;
}

/**
 * A venv's python is a symlink into its base installation, and the base's binary finds libpython by an
 * absolute run path there too; a sandbox shows neither when the installation is outside the host's
 * system folders (pyenv's is under /root, which the jail's user cannot even read). So the installation
 * is copied into the cache and shown inside the sandbox at its original path, where every such link
 * resolves as it does on the host.
 */
function copyDir(python: FoundPython): string {
  return path.join(venvRoot(), `python-${python.version}-${createHash('sha256').update(python.prefix).digest('hex').slice(0, 8)}`);
}

const systemPrefix = (prefix: string) => prefix === '/usr' || prefix.startsWith('/usr/');

/** What a sandbox must show for the venv to run: the venv itself, and its Python's copy at the original prefix. */
export interface PypiInstalled {
  dirs: string[];
  mounts: { hostPath: string; path: string }[];
  command: string;
  path: string[];
}

export function pypiInstalled(install: PypiInstall): PypiInstalled | undefined {
  const venv = venvDir(install.package);
  const file = path.join(venv, PYTHON_FILE);
  if (!existsSync(file)) return undefined;
  const python = JSON.parse(readFileSync(file, 'utf8')) as FoundPython;
  const mounts = [{ hostPath: venv, path: venv }];
  if (!systemPrefix(python.prefix)) {
    const copy = copyDir(python);
    if (!existsSync(path.join(copy, COMPLETE))) return undefined;
    mounts.push({ hostPath: copy, path: python.prefix });
  }
  // The venv's bin stays off PATH: the commands the agent runs for the model must find the task's python3, not the harness's.
  return { dirs: mounts.map((m) => m.hostPath), mounts, command: path.join(venv, 'bin', 'python'), path: [] };
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env, timeoutMs = 30_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { env, timeout: timeoutMs, maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr || (error && !stderr ? error.message : '')) });
    });
  });
}

/** Pythons to try, in order: the one named by GYMFLOW_HARNESS_PYTHON, versioned ones on PATH, then pyenv's installs (oldest first). */
function candidates(): string[] {
  const named = process.env.GYMFLOW_HARNESS_PYTHON ? [process.env.GYMFLOW_HARNESS_PYTHON] : [];
  const pyenv = path.join(process.env.PYENV_ROOT ?? path.join(os.homedir(), '.pyenv'), 'versions');
  const versions = existsSync(pyenv)
    ? readdirSync(pyenv)
        .filter((v) => /^3\.\d+\.\d+$/.test(v))
        .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
        .map((v) => path.join(pyenv, v, 'bin', 'python3'))
    : [];
  return [...named, 'python3.12', 'python3.13', 'python3.14', 'python3', ...versions];
}

const PROBE = 'import json, sys; print(json.dumps({"executable": sys.executable, "version": "%d.%d.%d" % sys.version_info[:3], "prefix": sys.base_prefix}))';

async function findPython(min: readonly [number, number], name: string): Promise<FoundPython> {
  const tried: string[] = [];
  for (const candidate of candidates()) {
    const probe = await run(candidate, ['-c', PROBE]);
    if (probe.code !== 0) continue;
    const found = JSON.parse(probe.stdout) as FoundPython;
    const [major, minor] = found.version.split('.').map(Number) as [number, number];
    if (major > min[0] || (major === min[0] && minor >= min[1])) return found;
    tried.push(`${candidate} (${found.version})`);
  }
  throw new GymError(
    'SETUP_FAILED',
    `${name} needs Python ≥ ${min.join('.')} and none was found (${tried.length ? `too old: ${tried.join(', ')}` : 'no Python ran'}); name one with GYMFLOW_HARNESS_PYTHON=/path/to/python3`,
  );
}

async function copyPython(python: FoundPython): Promise<void> {
  const dir = copyDir(python);
  if (existsSync(path.join(dir, COMPLETE))) return;
  // Copied beside its place and moved there whole, so a cut-off copy is never taken for one.
  const staging = `${dir}.partial-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  try {
    await cp(python.prefix, staging, { recursive: true, verbatimSymlinks: true });
    await writeFile(path.join(staging, COMPLETE), `${JSON.stringify(python)}\n`);
    await rm(dir, { recursive: true, force: true });
    await rename(staging, dir);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

const installing = new Map<string, Promise<{ installed: PypiInstalled; did: boolean }>>();

/** Makes the venv (pip from PyPI's wheels only) and the Python copy unless both are there; `did` when it made anything. */
export function installPypi(install: PypiInstall, name: string): Promise<{ installed: PypiInstalled; did: boolean }> {
  const key = venvDir(install.package);
  let pending = installing.get(key);
  if (!pending) {
    pending = doInstall(install, name).finally(() => installing.delete(key));
    installing.set(key, pending);
  }
  return pending;
}

async function doInstall(install: PypiInstall, name: string): Promise<{ installed: PypiInstalled; did: boolean }> {
  const ready = pypiInstalled(install);
  if (ready) return { installed: ready, did: false };
  const python = await findPython(install.python, `${name} (${requirement(install.package)})`);
  if (!systemPrefix(python.prefix)) await copyPython(python);
  const script = path.join(PACKAGE_ROOT, 'scripts', 'pinned-venv.sh');
  const made = await run('bash', [script, install.package.name, requirement(install.package)], { ...process.env, PYTHON: python.executable }, 1_800_000);
  if (made.code !== 0) throw new GymError('SETUP_FAILED', `pip could not install ${requirement(install.package)} with ${python.executable} (exit ${made.code}):\n${made.stderr.trim().slice(-4000)}`);
  const venv = made.stdout.trim().split('\n').at(-1)!;
  if (path.resolve(venv) !== venvDir(install.package)) throw new GymError('SETUP_FAILED', `scripts/pinned-venv.sh made ${venv}, not ${venvDir(install.package)} as expected`);
  await writeFile(path.join(venv, PYTHON_FILE), `${JSON.stringify(python)}\n`);
  return { installed: pypiInstalled(install)!, did: true };
}

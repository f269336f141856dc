// Where the peer frameworks live on this machine: one Python venv each under .gymflow/venvs (ignored by
// git), made by bench/peers/setup.sh, and the shared mcqa rows every peer plays.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { GymError } from '../../src/errors';
import { PACKAGE_ROOT } from '../../src/util/paths';

export const MCQA_ROWS = path.join(PACKAGE_ROOT, 'src', 'environments', 'mcqa', 'data', 'example.jsonl');
export const BENCH_STATE = path.join(PACKAGE_ROOT, '.gymflow', 'bench');

export interface Venv {
  dir: string;
  python: string;
  bin(name: string): string;
  sitePackages: string;
}

export function requireVenv(name: 'inspect' | 'nemo-gym'): Venv {
  const dir = path.join(PACKAGE_ROOT, '.gymflow', 'venvs', name);
  const python = path.join(dir, 'bin', 'python');
  if (!existsSync(python)) throw new GymError('SETUP_FAILED', `the ${name} venv is missing (${dir}); run: bash bench/peers/setup.sh`);
  const version = readFileSync(path.join(dir, 'pyvenv.cfg'), 'utf8').match(/^version(?:_info)?\s*=\s*(\d+\.\d+)/m)?.[1];
  if (!version) throw new GymError('SETUP_FAILED', `${dir}/pyvenv.cfg names no Python version; remove the venv and run bash bench/peers/setup.sh`);
  return { dir, python, bin: (b) => path.join(dir, 'bin', b), sitePackages: path.join(dir, 'lib', `python${version}`, 'site-packages') };
}

/** Number of non-empty lines in a JSONL file. */
export function countRows(file: string): number {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim()).length;
}

// Where relative config and dataset paths are looked for, in NeMo Gym's order: the search dirs
// (--search-dir, GYMFLOW_CONFIG_ROOTS, NEMO_GYM_EXTRA_ROOTS), cwd, the including file's folder, the install root.
import path from 'node:path';
import type { LoadOptions } from './load';

export function searchRoots(opts: LoadOptions, includer: string | undefined): string[] {
  const extra = [opts.env.GYMFLOW_CONFIG_ROOTS, opts.env.NEMO_GYM_EXTRA_ROOTS].flatMap((v) => (v ? v.split(path.delimiter).filter(Boolean) : []));
  return [...(opts.searchDirs ?? []), ...extra, opts.cwd, ...(includer ? [path.dirname(includer)] : []), ...(opts.installRoot ? [opts.installRoot] : [])];
}

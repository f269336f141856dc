// Where relative config and dataset paths are looked for, in NeMo Gym's order: the search dirs
// (--search-dir, GYMFLOW_CONFIG_ROOTS, NEMO_GYM_EXTRA_ROOTS), cwd, the including file's folder, the install root.
import path from 'node:path';

/** What finding a relative path depends on (a part of the load options). */
export interface SearchOptions {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Looked in first for relative config paths (NeMo Gym's --search-dir), then GYMFLOW_CONFIG_ROOTS / NEMO_GYM_EXTRA_ROOTS. */
  readonly searchDirs?: readonly string[];
  /** Looked in last, after cwd and the including file's folder. */
  readonly installRoot?: string;
}

export function searchRoots(opts: SearchOptions, includer: string | undefined): string[] {
  const extra = [opts.env.GYMFLOW_CONFIG_ROOTS, opts.env.NEMO_GYM_EXTRA_ROOTS].flatMap((v) => (v ? v.split(path.delimiter).filter(Boolean) : []));
  return [...(opts.searchDirs ?? []), ...extra, opts.cwd, ...(includer ? [path.dirname(includer)] : []), ...(opts.installRoot ? [opts.installRoot] : [])];
}

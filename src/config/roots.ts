// Where relative config and dataset paths are looked for, in NeMo Gym's order: the search dirs
// (--search-dir, GYMFLOW_CONFIG_ROOTS, NEMO_GYM_EXTRA_ROOTS), cwd, the including file's folder, the install root.
// Under each root, NeMo Gym's `environments/…` is also looked for in Gymflow's `configs/environments/…`.
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

/** The places a relative path may be under one root: as written, and an `environments/…` path in Gymflow's `configs/`. */
export function underRoot(root: string, p: string): string[] {
  const asWritten = path.join(root, p);
  return p.split(/[\\/]/)[0] === 'environments' ? [asWritten, path.join(root, 'configs', p)] : [asWritten];
}

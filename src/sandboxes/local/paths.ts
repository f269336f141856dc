// Paths as a local sandbox's commands name them, mapped onto its host folder for the file operations:
// only the workspace and /tmp are reachable, and `..` or a symlink (resolved as the jail would) cannot leave them.
import { lstat, readlink } from 'node:fs/promises';
import { posix } from 'node:path';
import { GymError } from '../../errors';

/** A part of the sandbox's file system that lives in its host folder. */
export interface Area {
  /** Where commands see it. */
  jailPath: string;
  hostPath: string;
}

const MAX_LINKS = 40;

function toHost(areas: readonly Area[], jailPath: string, asked: string): string {
  const area = [...areas].sort((a, b) => b.jailPath.length - a.jailPath.length).find((a) => jailPath === a.jailPath || jailPath.startsWith(`${a.jailPath}/`));
  if (!area) {
    throw new GymError('BAD_INPUT', `sandbox path ${asked} is outside ${areas.map((a) => a.jailPath).join(' and ')}, the only places file operations reach`);
  }
  return area.hostPath + jailPath.slice(area.jailPath.length);
}

/**
 * The host path of `path` (absolute, or relative to `cwd`) with every symlink on the way resolved in the
 * sandbox's own terms, so one pointing at `/etc/passwd` means the jail's, which is outside every area.
 * `followLast: false` leaves a final symlink itself (to list or remove it). Missing components are fine
 * (a file about to be written); the result has no symlink in it that existed when it was checked.
 */
export async function hostPathOf(areas: readonly Area[], path: string, cwd: string, followLast = true): Promise<string> {
  let pending = posix
    .normalize(posix.isAbsolute(path) ? path : posix.join(cwd, path))
    .split('/')
    .filter(Boolean);
  let resolved = '';
  let links = 0;
  while (pending.length) {
    const name = pending.shift()!;
    const candidate = `${resolved}/${name}`;
    const host = toHost(areas, candidate, path);
    const stat = await lstat(host).catch(() => undefined);
    if (!stat) {
      // Nothing more on disk below: what remains is created under a checked folder.
      resolved = posix.join(candidate, ...pending);
      break;
    }
    if (stat.isSymbolicLink() && (pending.length || followLast)) {
      if (++links > MAX_LINKS) throw new GymError('BAD_INPUT', `sandbox path ${path} has too many levels of symbolic links`);
      const target = await readlink(host);
      pending = posix
        .normalize(posix.isAbsolute(target) ? posix.join(target, ...pending) : posix.join(resolved || '/', target, ...pending))
        .split('/')
        .filter(Boolean);
      resolved = '';
      continue;
    }
    resolved = candidate;
  }
  return toHost(areas, resolved || '/', path);
}

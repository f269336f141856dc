// Paths in the working tree as the model names them (/codebase/...), checked and resolved the way they
// resolve inside NeMo Gym's sandbox: `..` may not climb out, and a symlink is followed only within the tree.
import { lstat, readlink } from 'node:fs/promises';
import path from 'node:path';
import { CODEBASE } from './shell';

/** posixpath.normpath, without touching the disk. */
function normpath(p: string): string {
  const absolute = p.startsWith('/');
  const parts: string[] = [];
  for (const segment of p.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (parts.length && parts.at(-1) !== '..') parts.pop();
      else if (!absolute) parts.push('..');
      continue;
    }
    parts.push(segment);
  }
  if (absolute) return `/${parts.join('/')}`;
  return parts.join('/') || '.';
}

const underCodebase = (p: string) => p === CODEBASE || p.startsWith(`${CODEBASE}/`);

/** NeMo Gym's _resolve_under_codebase: the absolute /codebase path, or null when it would leave the tree. */
export function resolveUnderCodebase(p: string): string | null {
  if (!p) return CODEBASE;
  const normalized = normpath(p.startsWith('/') ? p : `${CODEBASE}/${p}`);
  return underCodebase(normalized) ? normalized : null;
}

/** A /codebase path's host path, without following symlinks. */
export function hostPath(tree: string, virtual: string): string {
  return path.join(tree, virtual.slice(CODEBASE.length));
}

/**
 * The host path a /codebase path names once its symlinks are followed, as the sandbox follows them; null when
 * a link leads out of the tree (the sandbox has nothing there but the tree) or too many links are followed.
 */
export async function followInTree(tree: string, virtual: string): Promise<string | null> {
  let pending = virtual.slice(CODEBASE.length).split('/').filter(Boolean);
  let resolved: string[] = [];
  for (let hops = 0; pending.length;) {
    const part = pending.shift()!;
    if (part === '.') continue;
    if (part === '..') {
      // Above /codebase is the sandbox's own root, not the tree.
      if (!resolved.length) return null;
      resolved.pop();
      continue;
    }
    const host = path.join(tree, ...resolved, part);
    const info = await lstat(host).catch(() => null);
    if (!info?.isSymbolicLink()) {
      resolved.push(part);
      continue;
    }
    if (++hops > 40) return null;
    const target = await readlink(host);
    if (target.startsWith('/')) {
      const normalized = normpath(target);
      if (!underCodebase(normalized)) return null;
      resolved = [];
      pending = [...normalized.slice(CODEBASE.length).split('/').filter(Boolean), ...pending];
    } else {
      pending = [...target.split('/').filter(Boolean), ...pending];
    }
  }
  return path.join(tree, ...resolved);
}

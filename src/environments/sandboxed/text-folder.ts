// A folder on this machine as the text files a sandbox is given: every file under it by relative path,
// in a sorted order so every machine writes the same, each required to be UTF-8 text.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { GymError } from '../../errors';
import { PACKAGE_ROOT } from '../../util/paths';

/** Where a row's repo-relative folders are resolved from: the project's root, as NeMo Gym resolves them from its own. */
export const PROJECT_ROOT = PACKAGE_ROOT;

/** Every file under `root`, by path relative to it (sorted, so the order is the same everywhere). */
export function walkFiles(root: string): string[] {
  const out: string[] = [];
  const visit = (rel: string) => {
    for (const name of readdirSync(path.join(root, rel)).sort()) {
      const child = rel ? `${rel}/${name}` : name;
      const stat = statSync(path.join(root, child));
      if (stat.isDirectory()) visit(child);
      else if (stat.isFile()) out.push(child);
    }
  };
  visit('');
  return out;
}

/** The file's bytes as text, or `problem` (what the caller's error says) when they are not UTF-8. */
export function utf8Text(data: Buffer, problem: () => GymError): string {
  const text = data.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(data)) throw problem();
  return text;
}

/** The folder's files as text by relative path; `label` names the folder in errors. */
export function readTextFolder(dir: string, label: string): Record<string, string> {
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new GymError('BAD_TASK', `${label}: ${dir} is not a folder on this machine`);
  const files: Record<string, string> = {};
  for (const rel of walkFiles(dir)) {
    files[rel] = utf8Text(readFileSync(path.join(dir, rel)), () => new GymError('BAD_TASK', `${label}: ${rel} is not UTF-8 text; the sandbox is given text files only`));
  }
  return files;
}

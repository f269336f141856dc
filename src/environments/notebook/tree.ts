// A workspace folder read as the notebook tools list it: file names, and sub-folders. A symlink is listed
// as a file and never followed (Python's is_dir() follows it): the listing runs outside the jail, and the
// model's code can make links to anywhere.
import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';

export interface Tree {
  files: string[];
  dirs: Record<string, Tree>;
}

export function readTree(dir: string): Tree {
  const tree: Tree = { files: [], dirs: {} };
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (lstatSync(full).isDirectory()) tree.dirs[name] = readTree(full);
    else tree.files.push(name);
  }
  return tree;
}

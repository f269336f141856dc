// Where Gymflow keeps things on disk: the package root (for the cached Temporal CLI) and the state
// folder (embedded server database, pid files), which defaults to ./.gymflow in the working directory.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export function stateDir(): string {
  return path.resolve(process.env.GYMFLOW_HOME ?? path.join(process.cwd(), '.gymflow'));
}

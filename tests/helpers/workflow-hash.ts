// The fingerprint of the code bundled into workflows, one sha256 per file (the `sha256sum` format), so
// a test notices when workflow code changed after the committed replay histories were captured.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** Files outside workflows/ that workflow code imports as values (everything else it imports is types only). */
const BUNDLED_FROM_ELSEWHERE = ['src/errors.ts', 'src/temporal/search-attributes.ts'];

export const WORKFLOWS_HASH_FILE = path.join(ROOT, 'tests/fixtures/histories/WORKFLOWS.sha256');

export function workflowSourceFiles(): string[] {
  const workflows = readdirSync(path.join(ROOT, 'workflows'))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `workflows/${f}`);
  return [...workflows, ...BUNDLED_FROM_ELSEWHERE].sort();
}

/** `<sha256>  <path>` per file, sorted by path, newline-terminated. */
export function workflowsFingerprint(): string {
  return workflowSourceFiles()
    .map(
      (f) =>
        `${createHash('sha256')
          .update(readFileSync(path.join(ROOT, f)))
          .digest('hex')}  ${f}\n`,
    )
    .join('');
}

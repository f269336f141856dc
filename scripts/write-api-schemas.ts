// Writes the published schemas (docs/api/openapi.json, docs/api/run-workflow-input.schema.json) from the
// zod schemas; run after changing them: npx tsx scripts/write-api-schemas.ts
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { publishedSchemaFiles } from '../src/api/published';

const root = path.resolve(import.meta.dirname, '..');
for (const [file, text] of Object.entries(publishedSchemaFiles())) {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), text);
  process.stdout.write(`wrote ${file}\n`);
}

// The schemas Gymflow publishes for other languages, as the files committed under docs/api/:
// written by scripts/write-api-schemas.ts, and a test fails when they fall behind the zod schemas.
import { runInputJsonSchema } from '../runs/run-input';
import { openApiDocument } from './openapi';

export function publishedSchemaFiles(): Record<string, string> {
  const text = (doc: unknown) => JSON.stringify(doc, null, 2) + '\n';
  return {
    'docs/api/openapi.json': text(openApiDocument()),
    'docs/api/run-workflow-input.schema.json': text(runInputJsonSchema()),
  };
}

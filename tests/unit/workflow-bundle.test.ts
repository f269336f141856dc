// The workflow bundle cache (workers/bundle.ts): an entry is used only while every project file it lists
// is unchanged; otherwise webpack bundles again and the entry is replaced. Each case imports the module
// afresh, as a new worker process would.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const WORKFLOWS = path.join(ROOT, 'workflows/index.ts');
const sha = (rel: string) =>
  createHash('sha256')
    .update(readFileSync(path.join(ROOT, rel)))
    .digest('hex');

async function fresh() {
  vi.resetModules();
  return import('../../workers/bundle');
}

describe('the workflow bundle cache', () => {
  // A key of its own (a made-up interceptor list), so no worker of another test reads these entries.
  const interceptors = ['/nowhere/test-only-interceptors.js'];

  it('serves a cached bundle whose files are unchanged, and rebundles when one of them changed', { timeout: 120_000 }, async () => {
    const { CACHE_DIR, bundleKey, workflowBundle } = await fresh();
    const entry = path.join(CACHE_DIR, `${bundleKey(WORKFLOWS, interceptors)}.json`);
    mkdirSync(CACHE_DIR, { recursive: true });
    writeFileSync(entry, JSON.stringify({ files: { 'workflows/run.ts': sha('workflows/run.ts') }, code: '/* cached */' }));
    expect((await workflowBundle(WORKFLOWS, interceptors)).code).toBe('/* cached */');

    writeFileSync(entry, JSON.stringify({ files: { 'workflows/run.ts': 'f'.repeat(64) }, code: '/* stale */' }));
    const again = await fresh();
    await expect(again.workflowBundle(WORKFLOWS, interceptors)).rejects.toThrow(); // the made-up interceptor module cannot be bundled
    const { code } = JSON.parse(readFileSync(entry, 'utf8')) as { code: string };
    expect(code).toBe('/* stale */'); // a failed bundle leaves the entry as it was, and never serves it
  });

  it('bundles and records every project file in it, then serves that entry to the next process', { timeout: 120_000 }, async () => {
    const { CACHE_DIR, bundleKey, workflowBundle } = await fresh();
    const entry = path.join(CACHE_DIR, `${bundleKey(WORKFLOWS, [])}.json`);
    writeFileSync(entry, JSON.stringify({ files: { 'workflows/run.ts': 'f'.repeat(64) }, code: '/* stale */' }));
    const built = await workflowBundle(WORKFLOWS, []);
    expect(built.code).not.toBe('/* stale */');
    expect(built.code).toContain('evalRunWorkflow');
    const saved = JSON.parse(readFileSync(entry, 'utf8')) as { files: Record<string, string>; code: string };
    expect(Object.keys(saved.files).sort()).toEqual(expect.arrayContaining(['src/errors.ts', 'workflows/run.ts', 'workflows/shard.ts']));
    expect(saved.files['workflows/run.ts']).toBe(sha('workflows/run.ts'));
    expect((await (await fresh()).workflowBundle(WORKFLOWS, [])).code).toBe(saved.code);
  });
});

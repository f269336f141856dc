// The workflow bundle a worker runs, built once per version of the workflow code and kept in the project
// cache: webpack takes seconds of CPU per bundle, and tests, scaled-out runs and replays start many workers.
// A cached bundle is used only when every project file webpack put in it is byte for byte unchanged.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { bundleWorkflowCode, type WorkflowBundle } from '@temporalio/worker';
import type { Logger } from 'pino';
import { PACKAGE_ROOT } from '../src/util/paths';

export const CACHE_DIR = path.join(PACKAGE_ROOT, '.gymflow', 'cache', 'workflow-bundles');
const SDK_VERSION = (createRequire(import.meta.url)('@temporalio/workflow/package.json') as { version: string }).version;

interface CachedBundle {
  /** Project file (relative to the package root) → sha256 of its content when the bundle was made. */
  files: Record<string, string>;
  code: string;
}

const inProcess = new Map<string, Promise<WorkflowBundle>>();

const digest = (file: string): string | undefined => {
  try {
    return createHash('sha256')
      .update(readFileSync(path.join(PACKAGE_ROOT, file)))
      .digest('hex');
  } catch {
    return undefined;
  }
};

/** The bundle of `workflowsPath` with these interceptor modules: from this process, the cache, or webpack. */
export function workflowBundle(workflowsPath: string, interceptorModules: readonly string[], logger?: Logger): Promise<WorkflowBundle> {
  const key = bundleKey(workflowsPath, interceptorModules);
  let bundle = inProcess.get(key);
  if (!bundle) {
    bundle = load(key, workflowsPath, interceptorModules, logger);
    inProcess.set(key, bundle);
    bundle.catch(() => inProcess.delete(key));
  }
  return bundle;
}

/** The cache entry's name: the SDK, the entry point and the interceptors; the files' content is checked inside. */
export function bundleKey(workflowsPath: string, interceptorModules: readonly string[]): string {
  return createHash('sha256')
    .update(JSON.stringify([SDK_VERSION, path.relative(PACKAGE_ROOT, workflowsPath), interceptorModules]))
    .digest('hex')
    .slice(0, 16);
}

async function load(key: string, workflowsPath: string, interceptorModules: readonly string[], logger?: Logger): Promise<WorkflowBundle> {
  const entry = path.join(CACHE_DIR, `${key}.json`);
  try {
    const cached = JSON.parse(readFileSync(entry, 'utf8')) as CachedBundle;
    if (Object.entries(cached.files).every(([file, sha]) => digest(file) === sha)) return { code: cached.code };
  } catch {
    // No entry, or an unreadable one: bundle afresh.
  }
  const cwd = process.cwd();
  const { code } = await bundleWorkflowCode({ workflowsPath, workflowInterceptorModules: [...interceptorModules], logger: quiet });
  // Webpack names each module by its path from the working folder; the project's own are the ones to watch.
  const files: Record<string, string> = {};
  for (const [, id] of code.matchAll(/"(\.{1,2}\/[^"\s]+?\.(?:ts|js|mjs|cjs|json))"/g)) {
    const rel = path.relative(PACKAGE_ROOT, path.resolve(cwd, id!));
    if (rel.startsWith('..') || rel.split(path.sep).includes('node_modules')) continue;
    const sha = digest(rel);
    if (sha) files[rel] = sha;
  }
  if (!Object.keys(files).some((f) => f.startsWith('workflows'))) return { code }; // names not understood: never cache
  try {
    mkdirSync(CACHE_DIR, { recursive: true });
    const tmp = `${entry}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ files, code } satisfies CachedBundle));
    renameSync(tmp, entry);
  } catch (e) {
    logger?.debug({ err: (e as Error).message }, 'workflow bundle not cached');
  }
  return { code };
}

/** webpack's report of every module goes nowhere; its errors still throw. */
const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} };

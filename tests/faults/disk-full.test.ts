// Fault matrix (docs/faults.md): the disk under the run store fills up mid-run (a small tmpfs, filled by
// the test). `gym eval run` must stop with "disk full at <path>" and leave no torn or invalid line; once
// the space is back, `gym eval resume` must finish the run with every task × repeat exactly once.
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bounded, expectFaultInvariants, expectValidResultLines } from '../helpers/fault-invariants';
import { GYM, gym } from '../helpers/gym-cli';
import { tempDir } from '../helpers/run';
import { startTestServer, type TestServer } from '../helpers/temporal-server';
import { waitFor } from '../helpers/worker-process';

const INPUT = path.resolve(import.meta.dirname, '../fixtures/nemo-gym/example_multi_step/example.jsonl');
const TASKS = 5;
const REPEATS = 6;

/** Whether this process may mount a tmpfs (root, outside a restricted container); why not, if not. */
function mountRefusal(): string | undefined {
  if (process.platform !== 'linux') return `tmpfs mounts need Linux (this is ${process.platform})`;
  const probe = path.join(process.env.TMPDIR ?? '/tmp', `gymflow-mount-probe-${process.pid}`);
  mkdirSync(probe, { recursive: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe], { stdio: 'pipe' });
    execFileSync('umount', [probe], { stdio: 'pipe' });
    return undefined;
  } catch (e) {
    return `mount -t tmpfs is not permitted here: ${String((e as { stderr?: Buffer }).stderr ?? e).trim()}`;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}
const refusal = mountRefusal();

/** Writes zeros until the file system says ENOSPC: nothing is left for the run. */
function fillDisk(file: string): void {
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
    // The last, partial chunks: down to the final bytes.
    for (let size = 32 * 1024; size >= 1; size = Math.floor(size / 2)) {
      try {
        for (;;) writeSync(fd, chunk.subarray(0, size));
      } catch (inner) {
        if ((inner as NodeJS.ErrnoException).code !== 'ENOSPC') throw inner;
      }
    }
  } finally {
    closeSync(fd);
  }
}

let server: TestServer;
let mountDir: string | undefined;
beforeAll(async () => {
  if (refusal) return;
  server = await startTestServer();
  mountDir = await tempDir('gymflow-fault-disk-');
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', mountDir]);
});
afterAll(async () => {
  if (mountDir) execFileSync('umount', ['-l', mountDir]);
  await server?.stop();
});

describe.skipIf(refusal !== undefined)(`a full disk under the run store${refusal ? ` (skipped: ${refusal})` : ''}`, () => {
  it('stops the run with "disk full at <path>", no torn line, and the resumed run finishes exactly once', async () => {
    const env = { TEMPORAL_ADDRESS: server.address, GYMFLOW_HOME: server.dir };
    const out = path.join(mountDir!, 'run');
    const filler = path.join(mountDir!, 'filler');
    const args = [
      'eval',
      'run',
      '--env',
      'example_multi_step',
      '--model',
      'mock',
      '--input',
      INPUT,
      '--output',
      out,
      '--num-repeats',
      String(REPEATS),
      '--concurrency',
      '2',
      '--mock-latency-ms',
      '150',
    ];
    const child = spawn(process.execPath, [GYM, ...args], { env: { ...process.env, GYMFLOW_LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const recorded = () => (existsSync(path.join(out, 'rollouts.jsonl')) ? readFileSync(path.join(out, 'rollouts.jsonl'), 'utf8').split('\n').filter(Boolean).length : 0);
    await waitFor(() => recorded() >= 2 || child.exitCode !== null, 'the first records', 300_000);
    expect(child.exitCode, stderr).toBeNull();
    fillDisk(filler);
    const code = await bounded('gym eval run on a full disk', 300_000, exited);

    expect(code, `${stdout}\n${stderr}`).toBe(10);
    expect(stderr).toMatch(new RegExp(`disk full at ${out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/\\S+`));
    expect(stderr).not.toMatch(/\n\s+at /); // no stack trace
    const partial = expectValidResultLines(out);
    expect(partial.records.length).toBeLessThan(TASKS * REPEATS);

    rmSync(filler);
    const resumed = await bounded('gym eval resume after space returned', 300_000, gym(['eval', 'resume', out], env, { timeoutMs: 300_000 }));
    expect(resumed.code, `${resumed.stdout}\n${resumed.stderr}`).toBe(0);
    await expectFaultInvariants(out, { tasks: TASKS, repeats: REPEATS, env: 'example_multi_step' });
    // No temp file of an atomic write was left behind by the failed writes.
    expect(execFileSync('find', [out, '-name', '*.tmp*'], { encoding: 'utf8' })).toBe('');
  }, 900_000);
});

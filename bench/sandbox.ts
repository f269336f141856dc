// The `local` sandbox provider's costs: one exec against the same command as a plain spawn (the overhead the
// issue's target is about: ≤ 50 ms added at p50), create → exec → destroy, a detached command, and an exec
// behind the `allow` network forwarder. Sequential, one at a time: latency, not throughput.
//   node --import tsx bench/sandbox.ts [--iterations 100] [--repeats 3]
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { LocalProvider } from '../src/sandboxes/local/provider';
import { measure, printResults, type CaseResult, type Sample } from './lib/cases';
import { parseFlags, runMain } from './lib/flags';

const labels = { run: 'bench', rollout: 'bench', attempt: 0, user: 'bench' };
const COMMAND = ['/bin/true'];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Times `one` `n` times in a row; p50/p99 in milliseconds. */
async function latencies(n: number, one: () => Promise<void>): Promise<Sample> {
  const times: number[] = [];
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await one();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { units: n, seconds: (performance.now() - started) / 1000, p50_ms: percentile(times, 50), p99_ms: percentile(times, 99) };
}

const plainSpawn = () =>
  new Promise<void>((resolve, reject) => {
    const child = spawn(COMMAND[0]!, COMMAND.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin.end();
    child.on('error', reject);
    child.on('close', () => resolve());
  });

async function main(): Promise<void> {
  const flags = parseFlags('node --import tsx bench/sandbox.ts', {
    iterations: { kind: 'int', default: 100, min: 1, help: 'operations per repeat' },
    repeats: { kind: 'int', default: 3, min: 1, help: 'runs; the medians are reported' },
  });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gymflow-bench-sandbox-'));
  await chmod(dir, 0o755);
  const provider = new LocalProvider({ root: path.join(dir, 'sandboxes') });
  const opts = { unit: 'operations', repeats: flags.repeats, params: { iterations: flags.iterations, command: COMMAND.join(' ') } };
  const cases: CaseResult[] = [];
  try {
    cases.push(await measure('plain spawn', () => latencies(flags.iterations, plainSpawn), opts));
    const sandbox = await provider.create({ labels });
    cases.push(await measure('sandbox exec', () => latencies(flags.iterations, async () => void (await sandbox.exec({ command: COMMAND, timeoutMs: 60_000 }))), opts));
    cases.push(
      await measure(
        'sandbox detached command (start, wait)',
        () =>
          latencies(flags.iterations, async () => {
            const { commandId } = await sandbox.startCommand({ command: COMMAND, timeoutMs: 60_000 });
            await sandbox.commandStatus(commandId, { waitMs: 60_000 });
          }),
        opts,
      ),
    );
    await sandbox.destroy();
    cases.push(
      await measure(
        'sandbox create, exec, destroy',
        () =>
          latencies(flags.iterations, async () => {
            const s = await provider.create({ labels });
            await s.exec({ command: COMMAND, timeoutMs: 60_000 });
            await s.destroy();
          }),
        opts,
      ),
    );
    const allowed = await provider.create({ labels, network: { mode: 'allow', endpoints: [{ host: '127.0.0.1', port: 9 }] } });
    cases.push(await measure('sandbox exec, network allow (forwarder)', () => latencies(flags.iterations, async () => void (await allowed.exec({ command: COMMAND, timeoutMs: 60_000 }))), opts));
    await allowed.destroy();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const p50 = (name: string) => cases.find((c) => c.case === name)!.median.p50_ms!;
  printResults('sandbox', cases, { exec_overhead_p50_ms: p50('sandbox exec') - p50('plain spawn') });
}

runMain(main);

// The docker sandbox provider's latencies on a private dockerd (tests/helpers/docker-engine.ts, the task
// image): create+destroy, create→exec→destroy, and one exec's overhead over spawning the same command here.
//   node --import tsx bench/sandbox-docker.ts [--sandboxes 20] [--execs 50] [--repeats 3]   (as root)
import { spawn } from 'node:child_process';
import { measure, printResults, type CaseResult } from './lib/cases';
import { parseFlags, runMain } from './lib/flags';
import { DockerProvider } from '../src/sandboxes/docker/provider';
import { startTestDockerEngine } from '../tests/helpers/docker-engine';

const flags = parseFlags('node --import tsx bench/sandbox-docker.ts [flags]', {
  sandboxes: { kind: 'int', default: 20, min: 1, help: 'sandboxes made one after another per repeat' },
  execs: { kind: 'int', default: 50, min: 1, help: 'execs of `true` in one sandbox per repeat' },
  repeats: { kind: 'int', default: 3, min: 1, help: 'repeats of each case (medians are reported)' },
});

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function hostSpawn(): Promise<void> {
  return new Promise((resolve, reject) =>
    spawn('true')
      .once('exit', () => resolve())
      .once('error', reject),
  );
}

async function main(): Promise<void> {
  const docker = await startTestDockerEngine();
  const provider = new DockerProvider({ socketPath: docker.socketPath });
  const labels = { run: 'bench', rollout: 'r', attempt: 1, user: 'bench' };
  const spec = { image: docker.image, labels, resources: { memoryBytes: 512 * 1024 * 1024, pids: 256 } };
  const cases: CaseResult[] = [];
  try {
    cases.push(
      await measure(
        'create+destroy',
        async () => {
          const ms: number[] = [];
          for (let i = 0; i < flags.sandboxes; i++) {
            const started = performance.now();
            await (await provider.create(spec)).destroy();
            ms.push(performance.now() - started);
          }
          return { units: flags.sandboxes, p50_ms: percentile(ms, 50), p90_ms: percentile(ms, 90) };
        },
        { unit: 'sandboxes', params: { sandboxes: flags.sandboxes }, repeats: flags.repeats },
      ),
    );
    cases.push(
      await measure(
        'create+exec+destroy',
        async () => {
          const ms: number[] = [];
          for (let i = 0; i < flags.sandboxes; i++) {
            const started = performance.now();
            const sandbox = await provider.create(spec);
            await sandbox.exec({ command: ['python3', '-c', 'print(1)'], timeoutMs: 60_000 });
            await sandbox.destroy();
            ms.push(performance.now() - started);
          }
          return { units: flags.sandboxes, p50_ms: percentile(ms, 50), p90_ms: percentile(ms, 90) };
        },
        { unit: 'sandboxes', params: { sandboxes: flags.sandboxes, command: 'python3 -c print(1)' }, repeats: flags.repeats },
      ),
    );
    const sandbox = await provider.create(spec);
    cases.push(
      await measure(
        'exec overhead',
        async () => {
          const exec: number[] = [];
          const host: number[] = [];
          for (let i = 0; i < flags.execs; i++) {
            let started = performance.now();
            await sandbox.exec({ command: ['true'], timeoutMs: 60_000 });
            exec.push(performance.now() - started);
            started = performance.now();
            await hostSpawn();
            host.push(performance.now() - started);
          }
          const p50 = percentile(exec, 50);
          return { units: flags.execs, exec_p50_ms: p50, exec_p90_ms: percentile(exec, 90), host_spawn_p50_ms: percentile(host, 50), overhead_p50_ms: p50 - percentile(host, 50) };
        },
        { unit: 'execs', params: { execs: flags.execs, command: 'true' }, repeats: flags.repeats },
      ),
    );
    await sandbox.destroy();
  } finally {
    await provider.close();
    await docker.stop();
  }
  printResults('sandbox-docker', cases, { engine: 'dockerd 20.10 (Debian docker.io), overlay2 where it starts, else vfs; tests/helpers/docker-engine.ts' });
}

runMain(main);

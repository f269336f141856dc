// Harness start-up per CLI in the local (bubblewrap) sandbox, and many sandboxed harness rollouts at once.
//   node --import tsx bench/harness-startup.ts [--harnesses pi,opencode,...] [--repeats 3] [--concurrent 32]
// Start-up: a no-op rollout (the mock model, played wrong, answers the first call with "done"): seconds from
// the harness's spawn in its sandbox to its first model call reaching the gateway, and the harness's whole run.
// Concurrency: --concurrent pi rollouts (mock, played right) at once, then the sandboxes and harness
// processes left behind are counted (both must be 0). The gateway runs in this process.
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { getEnvironment } from '../src/environments/registry';
import { startGateway, type Gateway } from '../src/gateway/server';
import { requireInstalled } from '../src/harnesses/install';
import { getHarness, harnessNames } from '../src/harnesses/registry';
import { runHarnessRollout } from '../src/harnesses/run';
import { attemptCalls } from '../src/harnesses/trajectory';
import type { ExecOptions, SandboxProvider } from '../src/sandboxes/provider';
import { sandboxProvider } from '../src/sandboxes/registry';
import type { ExecRequest } from '../src/sandboxes/schema';
import { GymError } from '../src/errors';
import { measure, printResults, type CaseResult } from './lib/cases';
import { parseFlags, runMain } from './lib/flags';

const TASKS = path.resolve(import.meta.dirname, '../src/environments/swe_repair/data/example.jsonl');
const TIMEOUT_MS = 600_000;
const RUN_LABEL = `bench-harness-startup-${process.pid}`;

const flags = parseFlags('node --import tsx bench/harness-startup.ts [flags]', {
  harnesses: { kind: 'string', default: harnessNames().join(','), help: 'comma-separated harnesses to time' },
  repeats: { kind: 'int', default: 3, min: 1, help: 'no-op runs per harness' },
  concurrent: { kind: 'int', default: 32, min: 0, help: 'pi rollouts at once in the concurrency case (0 skips it)' },
});

const env = getEnvironment('swe_repair');
const task = env.taskSchema.parse(JSON.parse(readFileSync(TASKS, 'utf8').split('\n')[0]!));

interface Played {
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  reward?: number;
  firstCallMs?: number;
  calls: number;
}

/** The local provider, noting when a sandbox starts `command` (the harness's spawn, after the files are written). */
function spawnNoting(provider: SandboxProvider, command: string, spawned: (at: number) => void): SandboxProvider {
  const bound = <T extends object>(target: T, key: string | symbol) => {
    const value = Reflect.get(target, key);
    return typeof value === 'function' ? value.bind(target) : value;
  };
  return new Proxy(provider, {
    get: (target, key) =>
      key !== 'create'
        ? bound(target, key)
        : async (spec: Parameters<SandboxProvider['create']>[0]) => {
            const sandbox = await target.create(spec);
            return new Proxy(sandbox, {
              get: (inner, k) =>
                k !== 'exec'
                  ? bound(inner, k)
                  : (request: ExecRequest, options?: ExecOptions) => {
                      if (request.command[0] === command) spawned(Date.now());
                      return inner.exec(request, options);
                    },
            });
          },
  });
}

let attempts = 0;
async function playOnce(gateway: Gateway, harnessName: string, accuracy: number): Promise<Played> {
  const harness = getHarness(harnessName);
  const runDir = await mkdtemp(path.join(os.tmpdir(), 'gymflow-bench-harness-'));
  try {
    const model = gateway.register({ backend: 'mock', env: 'swe_repair', tasks_file: TASKS, accuracy });
    const rollout = `${harnessName}-${++attempts}`;
    const scope = gateway.registerRollout({ id: `${rollout}.a1.t1`, rollout_id: rollout, attempt: 1, run_dir: runDir, model });
    let spawnedAt = 0;
    try {
      const run = await runHarnessRollout({
        harness,
        provider: spawnNoting(await sandboxProvider('local'), requireInstalled(harness).command, (at) => (spawnedAt = at)),
        env,
        task,
        labels: { run: RUN_LABEL, rollout, attempt: 1, user: os.userInfo().username },
        baseUrl: scope.baseUrl,
        apiKey: gateway.token,
        model,
        timeoutMs: TIMEOUT_MS,
      });
      const calls = await attemptCalls(runDir, scope.id);
      const first = calls
        .map((c) => c.started_at)
        .filter((t): t is number => t !== undefined)
        .sort((a, b) => a - b)[0];
      return {
        exitCode: run.exitCode,
        timedOut: run.timedOut,
        durationMs: run.durationMs,
        reward: run.verify?.reward,
        firstCallMs: first === undefined ? undefined : first - spawnedAt,
        calls: calls.length,
      };
    } finally {
      gateway.unregisterRollout(scope.id);
    }
  } finally {
    await rm(runDir, { recursive: true, force: true });
  }
}

/** Processes on this machine whose command line runs one of these harness installs. */
function harnessProcesses(dirs: string[]): number {
  let n = 0;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (dirs.some((d) => cmdline.includes(d))) n++;
    } catch {
      // Gone meanwhile.
    }
  }
  return n;
}

async function main(): Promise<void> {
  const names = flags.harnesses.split(',').filter(Boolean);
  for (const name of names) requireInstalled(getHarness(name));
  const gateway = await startGateway({ logger: pino({ level: 'error' }) });
  const results: CaseResult[] = [];
  try {
    for (const name of names) {
      results.push(
        await measure(
          `${name} start-up (no-op run)`,
          async () => {
            const played = await playOnce(gateway, name, 0);
            if (played.exitCode !== 0 || played.firstCallMs === undefined) throw new GymError('ENV_ERROR', `${name}'s no-op run did not finish cleanly: ${JSON.stringify(played)}`);
            return { units: 1, first_call_s: played.firstCallMs / 1000, run_s: played.durationMs / 1000, seconds: played.durationMs / 1000 };
          },
          { unit: 'runs', params: { harness: name, package: getHarness(name).install.package }, repeats: flags.repeats },
        ),
      );
    }
    if (flags.concurrent > 0) {
      const provider = await sandboxProvider('local');
      const dirs = requireInstalled(getHarness('pi')).dirs;
      results.push(
        await measure(
          `${flags.concurrent} concurrent pi rollouts`,
          async () => {
            const started = performance.now();
            const played = await Promise.all(Array.from({ length: flags.concurrent }, () => playOnce(gateway, 'pi', 1)));
            const seconds = (performance.now() - started) / 1000;
            return {
              units: played.length,
              seconds,
              rewarded: played.filter((p) => p.reward === 1).length,
              failed: played.filter((p) => p.exitCode !== 0 || p.timedOut).length,
              slowest_run_s: Math.max(...played.map((p) => p.durationMs)) / 1000,
              leftover_sandboxes: (await provider.list({ run: RUN_LABEL })).length,
              leftover_processes: harnessProcesses(dirs),
            };
          },
          { unit: 'rollouts', params: { harness: 'pi', concurrent: flags.concurrent, cores: os.availableParallelism() }, repeats: 1 },
        ),
      );
    }
  } finally {
    await gateway.close();
  }
  printResults('harness-startup', results);
}

runMain(main);

// Gymflow's own throughput on this machine, beside the same agent code without Temporal: durable runs on
// the embedded dev server (one in-process worker, created once and reused), for each grain, environment,
// concurrency and mock latency asked for; plus worker CPU and RSS, history events and run-store bytes
// per rollout. `--model openai` points the policy at bench/mock-openai-server.ts (the peers' model hop).
//   node --import tsx bench/gymflow.ts --env mcqa --grains turn,rollout,inprocess --concurrency 16,256 --latency-ms 0 --rollouts 2000
import { readdirSync, statSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { NativeConnection } from '@temporalio/worker';
import { collate } from '../activities/collate';
import { createRolloutSteps } from '../activities/rollout-steps';
import { resolveEnvironment } from '../src/environments/registry';
import { GymError } from '../src/errors';
import { parseModelSpec, type ModelSpecInput } from '../src/gateway/spec';
import { RunConfig } from '../src/runs/manifest';
import { prepareRun, startRun, validateRunInput } from '../src/runs/client';
import { MemoryJournal } from '../src/store/journal';
import { captureRunHistories } from '../tests/helpers/histories';
import { quietLogger, runConfig, tempDir } from '../tests/helpers/run';
import { startTestServer } from '../tests/helpers/temporal-server';
import { createGymWorker } from '../workers/worker';
import { playRollout } from '../workflows/agent-loop';
import { runWorkflowId, type RunResult } from '../workflows/definitions';
import { measure, printResults, type CaseResult, type Sample } from './lib/cases';
import { parseFlags, runMain } from './lib/flags';
import { startMockOpenAI } from './mock-openai-server';

const USAGE = 'usage: node --import tsx bench/gymflow.ts [flags]';
const INPUTS: Record<string, string> = {
  mcqa: 'src/environments/mcqa/data/example.jsonl',
  example_multi_step: 'src/environments/example_multi_step/data/example.jsonl',
};
const BENCH_QUEUE = 'gymflow-bench';
/** Model calls one rollout makes, for sizing a case by time (`--case-seconds`). */
const CALLS_PER_ROLLOUT: Record<string, number> = { mcqa: 1, example_multi_step: 3 };

/** What a model call is taken to cost at zero latency when sizing a case by time: the slow corners' order of magnitude. */
const SIZING_FLOOR_MS = 25;

/**
 * Rollouts for one case: `--rollouts`, or with `--case-seconds`, as many as take about that long if every slot
 * were busy (a call taking its latency, at least SIZING_FLOOR_MS), at least one per slot and at most
 * `--rollouts`: a sweep's slow corners (one rollout in flight against a 1 s model) take seconds, not an hour.
 */
function rolloutsForCase(o: { rollouts: number; caseSeconds: number; concurrency: number; latencyMs: number; callsPerRollout: number }): number {
  if (!o.caseSeconds) return o.rollouts;
  const ideal = Math.ceil((o.concurrency * o.caseSeconds * 1000) / (Math.max(o.latencyMs, SIZING_FLOOR_MS) * o.callsPerRollout));
  return Math.min(o.rollouts, Math.max(o.concurrency, ideal));
}

const list = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

function cpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/**
 * Samples this process's memory (the worker and the load generator) while a case runs, then reports the peak
 * in each quarter of its wall time: flat memory over a long campaign shows as four similar figures. RSS
 * includes garbage not yet collected; under `node --expose-gc` each sample also collects first and reads the
 * live heap, which is what a leak would grow.
 */
function memoryByQuarter(): { stop(): Record<string, number> } {
  const collect = (globalThis as { gc?: () => void }).gc;
  const rss: number[] = [];
  const live: number[] = [];
  const take = () => {
    rss.push(process.memoryUsage.rss() / 2 ** 20);
    if (collect) {
      collect();
      live.push(process.memoryUsage().heapUsed / 2 ** 20);
    }
  };
  take();
  const timer = setInterval(take, collect ? 2000 : 250);
  const quarters = (name: string, samples: number[]) => {
    const n = samples.length;
    return Object.fromEntries(
      [0, 1, 2, 3].map((q) => {
        const from = Math.floor((q * n) / 4);
        return [`${name}_q${q + 1}`, Math.max(...samples.slice(from, Math.max(Math.floor(((q + 1) * n) / 4), from + 1)))];
      }),
    );
  };
  return {
    stop() {
      clearInterval(timer);
      take();
      return { ...quarters('rss_mib', rss), ...(collect ? quarters('live_heap_mib', live) : {}) };
    },
  };
}

function folderBytes(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    total += e.isDirectory() ? folderBytes(p) : statSync(p).size;
  }
  return total;
}

runMain(async () => {
  const flags = parseFlags(USAGE, {
    env: { kind: 'string', default: 'mcqa', help: 'environments, comma-separated: mcqa, example_multi_step' },
    grains: { kind: 'string', default: 'turn,rollout,inprocess', help: 'turn, rollout, inprocess (the same agent code without Temporal)' },
    concurrency: { kind: 'string', default: '256', help: 'rollouts in flight, comma-separated' },
    'latency-ms': { kind: 'string', default: '0', help: 'mock model latency per call, comma-separated' },
    rollouts: { kind: 'int', default: 2000, help: 'rollouts per case (at most, with --case-seconds)', min: 1 },
    'case-seconds': { kind: 'int', default: 0, help: 'size each case to about this many seconds at the ideal rate, at most --rollouts (0: always --rollouts)', min: 0 },
    repeats: { kind: 'int', default: 3, help: 'repeats per case (medians reported)', min: 1 },
    model: { kind: 'string', default: 'mock', help: 'mock (in-gateway) or openai (bench/mock-openai-server.ts over HTTP)' },
    shards: { kind: 'int', default: 0, help: 'shards per run (0: the default for the concurrency)', min: 0 },
    histories: { kind: 'int', default: 1, help: '1: read back every workflow history (events per rollout)', min: 0 },
  });
  for (const env of list(flags.env)) if (!INPUTS[env]) throw new GymError('BAD_FLAG', `--env: no bench input for "${env}"; known: ${Object.keys(INPUTS).join(', ')}`);
  for (const g of list(flags.grains)) if (!['turn', 'rollout', 'inprocess'].includes(g)) throw new GymError('BAD_FLAG', `--grains: unknown grain "${g}"`);
  if (!['mock', 'openai'].includes(flags.model)) throw new GymError('BAD_FLAG', `--model must be mock or openai, got "${flags.model}"`);

  const server = await startTestServer();
  const connection = await NativeConnection.connect({ address: server.address });
  const worker = await createGymWorker({ connection, namespace: 'default', taskQueue: BENCH_QUEUE, logger: quietLogger });
  const running = worker.run();
  const client = await server.client();
  const mocks = new Map<number, Awaited<ReturnType<typeof startMockOpenAI>>>();
  const cases: CaseResult[] = [];
  process.env.GYMFLOW_BENCH_KEY = 'bench-key';
  try {
    for (const env of list(flags.env)) {
      for (const latency of list(flags['latency-ms']).map(Number)) {
        if (flags.model === 'openai' && !mocks.has(latency)) mocks.set(latency, await startMockOpenAI({ latencyMs: latency }));
        for (const concurrency of list(flags.concurrency).map(Number)) {
          for (const grain of list(flags.grains)) {
            const rollouts = rolloutsForCase({ rollouts: flags.rollouts, caseSeconds: flags['case-seconds'], concurrency, latencyMs: latency, callsPerRollout: CALLS_PER_ROLLOUT[env]! });
            const params = { env, grain, concurrency, latency_ms: latency, rollouts, model: flags.model };
            const result = await measure(
              `${env} ${grain}`,
              async (): Promise<Sample> => {
                const runDir = await tempDir(`gymflow-bench-${env}-`);
                const tasks = 5;
                const model: ModelSpecInput =
                  flags.model === 'openai'
                    ? { backend: 'openai', model: 'mock-model', base_url: mocks.get(latency)!.url, api_key_env: 'GYMFLOW_BENCH_KEY' }
                    : { backend: 'mock', env, accuracy: 0.7, latency_ms: latency, tasks_file: path.join(runDir, 'tasks.jsonl') };
                const base = runConfig({
                  runDir,
                  envName: env,
                  inputFile: path.resolve(INPUTS[env]!),
                  numRepeats: Math.ceil(rollouts / tasks),
                  concurrency,
                  durability: grain === 'rollout' ? 'rollout' : 'turn',
                });
                const config = RunConfig.parse({
                  ...base,
                  model: parseModelSpec(model),
                  taskQueue: BENCH_QUEUE,
                  ...(flags.shards ? { shards: flags.shards } : { shards: Math.max(1, Math.ceil(concurrency / 128)) }),
                });
                const cpu0 = cpuSeconds();
                const memory = memoryByQuarter();
                const started = performance.now();
                let recorded: number;
                if (grain === 'inprocess') recorded = await inProcess(config, worker.gateway);
                else {
                  const { manifest } = await prepareRun(config, await validateRunInput(config));
                  const out = (await (await startRun(client, manifest)).result()) as RunResult;
                  recorded = out.metrics.rollouts_recorded;
                }
                const seconds = (performance.now() - started) / 1000;
                const cpu = cpuSeconds() - cpu0;
                const memoryQuarters = memory.stop();
                const sample: Sample = {
                  units: recorded,
                  seconds,
                  cpu_ms_per_rollout: (cpu * 1000) / recorded,
                  bench_rss_mib: process.memoryUsage().rss / 2 ** 20,
                  ...memoryQuarters,
                  store_bytes_per_rollout: folderBytes(runDir) / recorded,
                };
                if (grain !== 'inprocess' && flags.histories) {
                  const histories = await captureRunHistories(client, runWorkflowId(config.runId));
                  const events = histories.map((h) => (JSON.parse(h.json) as { events: unknown[] }).events.length);
                  sample.history_events_per_rollout = events.reduce((a, b) => a + b, 0) / recorded;
                  sample.max_events_per_execution = Math.max(...events);
                }
                return sample;
              },
              { unit: 'rollouts', params, repeats: flags.repeats },
            );
            cases.push(result);
          }
        }
      }
    }
  } finally {
    worker.worker.shutdown();
    await running;
    await connection.close();
    for (const m of mocks.values()) await m.close();
    await server.stop();
  }
  printResults('gymflow', cases);
});

/** The same steps and agent loop, run in one process with a sliding window and no Temporal. */
async function inProcess(config: RunConfig, gateway: Parameters<typeof createRolloutSteps>[0]['gateway']): Promise<number> {
  await mkdir(config.runDir, { recursive: true });
  await writeFile(path.join(config.runDir, 'manifest.json'), '{}');
  const collated = await collate({ runDir: config.runDir, inputFile: config.inputFile, env: config.env, numRepeats: config.numRepeats });
  const steps = createRolloutSteps({ gateway });
  const spec = { runDir: config.runDir, epoch: 'inprocess', env: config.env, agent: resolveEnvironment(config.env).agent ?? 'simple_agent', model: config.model, maxSteps: config.maxSteps };
  let next = 0;
  let recorded = 0;
  const lane = async () => {
    for (let i = next++; i < collated.rolloutCount; i = next++) {
      const key = { taskIndex: Math.floor(i / config.numRepeats), rolloutIndex: i % config.numRepeats };
      const journal = new MemoryJournal();
      const outcome = await playRollout({ takeTurn: (s) => steps.takeTurn(spec, key, s, journal), finish: () => steps.finishRollout(spec, key, journal) });
      if (outcome.status === 'recorded') recorded++;
    }
  };
  await Promise.all(Array.from({ length: config.concurrency }, lane));
  return recorded;
}

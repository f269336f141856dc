// Health checks over a synthetic run folder of --rollouts rollouts (two model calls each, token ids on
// every call, 1% in the sidecar after three failed calls): wall time and the checking process's peak RSS.
//   node --import tsx bench/health.ts [--rollouts 100000] [--repeats 3]
// The folder is written first; each repeat checks it in a fresh child process, so the peak RSS is the
// checks' own and not the generator's.
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseModelSpec } from '../src/gateway/spec';
import { runHealthChecks } from '../src/health/run-health';
import { RunConfig, buildManifest, runTaskQueue } from '../src/runs/manifest';
import { DEFAULT_RETRY } from '../workflows/definitions';
import { measure, printResults } from './lib/cases';
import { parseFlags, runMain } from './lib/flags';

const REPEATS_PER_TASK = 4;
const PROMPT_IDS = 120;
const GENERATION_IDS = 24;

async function put(stream: WriteStream, line: string): Promise<void> {
  if (!stream.write(line)) await once(stream, 'drain');
}

async function close(stream: WriteStream): Promise<void> {
  stream.end();
  await once(stream, 'finish');
}

const ids = (n: number, seed: number) => Array.from({ length: n }, (_, i) => (seed * 31 + i * 7) % 50_000);

async function writeRun(dir: string, rollouts: number): Promise<void> {
  const tasks = Math.ceil(rollouts / REPEATS_PER_TASK);
  const config = RunConfig.parse({
    runId: 'bench-health',
    runDir: dir,
    env: { name: 'example_single_tool_call', options: {} },
    inputFile: path.join(dir, 'input.jsonl'),
    model: parseModelSpec({ backend: 'mock', env: 'example_single_tool_call', tasks_file: path.join(dir, 'tasks.jsonl') }),
    numRepeats: REPEATS_PER_TASK,
    concurrency: 64,
    shards: 1,
    taskQueue: runTaskQueue('bench-health'),
    retry: DEFAULT_RETRY,
  });
  await writeFile(path.join(dir, 'manifest.json'), JSON.stringify(buildManifest(config, 'gymflow-run-bench-health', 'synthetic')));
  await mkdir(path.join(dir, 'model_calls'));
  const taskFile = createWriteStream(path.join(dir, 'tasks.jsonl'));
  const records = createWriteStream(path.join(dir, 'rollouts.jsonl'));
  const failures = createWriteStream(path.join(dir, 'failures.jsonl'));
  const calls = createWriteStream(path.join(dir, 'model_calls', 'bench-0.jsonl'));
  const input = [{ role: 'user', content: 'What is the weather in San Francisco?' }];
  for (let t = 0; t < tasks; t++) await put(taskFile, JSON.stringify({ _ng_task_index: t, responses_create_params: { input } }) + '\n');
  await close(taskFile);
  const started = Date.now();
  for (let n = 0; n < tasks * REPEATS_PER_TASK; n++) {
    const id = `${Math.floor(n / REPEATS_PER_TASK)}-${n % REPEATS_PER_TASK}`;
    const turns = [
      [{ type: 'function_call', call_id: `fc_${n}`, name: 'get_weather', arguments: '{"city": "San Francisco"}' }],
      [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'It is sunny in San Francisco.' }] }],
    ].map((output, step) => {
      const last = {
        ...output[0]!,
        prompt_token_ids: ids(PROMPT_IDS + step * 30, n + step),
        generation_token_ids: ids(GENERATION_IDS, n),
        generation_log_probs: ids(GENERATION_IDS, n).map((x) => -x / 1e5),
      };
      return {
        callId: `call-${n}-${step}`,
        step,
        output: [last],
        usage: { input_tokens: PROMPT_IDS + step * 30, output_tokens: GENERATION_IDS, total_tokens: PROMPT_IDS + step * 30 + GENERATION_IDS },
      };
    });
    const sidecar = n % 100 === 99;
    const logged = (t: (typeof turns)[number], attempt: number, at: number) => ({
      call_id: t.callId,
      rollout_id: id,
      step: t.step,
      attempt,
      backend: 'mock',
      model: 'mock-bench',
      started_at: at,
      latency_ms: 1,
      status: 200,
      request: { input_items: 1 + t.step * 2 },
      response: { id: `resp-${t.callId}`, object: 'response', status: 'completed', output: t.output, usage: t.usage },
    });
    await put(calls, JSON.stringify(logged(turns[0]!, 1, started + n)) + '\n');
    if (sidecar) {
      for (let attempt = 1; attempt <= 3; attempt++) {
        await put(
          calls,
          JSON.stringify({
            call_id: `call-${n}-1-${attempt}`,
            rollout_id: id,
            step: 1,
            attempt,
            backend: 'mock',
            model: 'mock-bench',
            started_at: started + n + attempt,
            latency_ms: 1,
            status: 500,
            error: { code: 'MODEL_ERROR', message: 'HTTP 500' },
            request: { input_items: 3 },
          }) + '\n',
        );
      }
      const failure = {
        _ng_task_index: Math.floor(n / REPEATS_PER_TASK),
        _ng_rollout_index: n % REPEATS_PER_TASK,
        message: 'model mock answered HTTP 500',
        stage: 'model',
        attempt: 3,
        failed_at: new Date(started).toISOString(),
        _ng_failure_class: 'model_error',
        _ng_rollout_id: id,
      };
      await put(failures, JSON.stringify(failure) + '\n');
      continue;
    }
    await put(calls, JSON.stringify(logged(turns[1]!, 1, started + n + 1)) + '\n');
    const usage = { input_tokens: turns[0]!.usage.input_tokens + turns[1]!.usage.input_tokens, output_tokens: 2 * GENERATION_IDS, total_tokens: 0 };
    usage.total_tokens = usage.input_tokens + usage.output_tokens;
    const record = {
      _ng_task_index: Math.floor(n / REPEATS_PER_TASK),
      responses_create_params: { input },
      response: {
        id: `resp-${n}`,
        object: 'response',
        status: 'completed',
        output: [...turns[0]!.output, { type: 'function_call_output', call_id: `fc_${n}`, output: '{"weather": "sunny"}' }, ...turns[1]!.output],
        usage,
      },
      _ng_rollout_index: n % REPEATS_PER_TASK,
      _gf_model_call_ids: turns.map((t) => t.callId),
      reward: n % 3 === 0 ? 0 : 1,
      _ng_rollout_id: id,
    };
    await put(records, JSON.stringify(record) + '\n');
  }
  await Promise.all([close(records), close(failures), close(calls)]);
}

/** The child: check the folder once and report seconds and peak RSS as one JSON line. */
async function checkOnce(dir: string): Promise<void> {
  const baseline = process.resourceUsage().maxRSS / 1024;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await runHealthChecks(dir);
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const v = result.summary.run.verdicts;
  // CPU seconds beside wall seconds: on a machine shared with other work the wall time mostly measures the others.
  process.stdout.write(
    JSON.stringify({ seconds, cpu_seconds: (used.user + used.system) / 1e6, peak_rss_mb: process.resourceUsage().maxRSS / 1024, rss_before_mb: baseline, rows: result.summary.run.rows, ...v }) + '\n',
  );
}

async function main(): Promise<void> {
  if (process.argv[2] === '--check') return checkOnce(process.argv[3]!);
  const flags = parseFlags('usage: node --import tsx bench/health.ts [flags]', {
    rollouts: { kind: 'int', default: 100_000, min: 1, help: 'rollouts in the synthetic run' },
    repeats: { kind: 'int', default: 3, min: 1, help: 'checks of the folder; the medians are reported' },
  });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gymflow-bench-health-'));
  try {
    process.stderr.write(`writing ${flags.rollouts} rollouts to ${dir}\n`);
    await writeRun(dir, flags.rollouts);
    const result = await measure(
      'health checks',
      async () => {
        const child = spawnSync(process.execPath, ['--import', 'tsx', import.meta.filename, '--check', dir], { encoding: 'utf8', maxBuffer: 1 << 20 });
        if (child.status !== 0) throw new Error(`the check failed: ${child.stderr}`);
        const out = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as Record<string, number>;
        return { units: out.rows!, ...out };
      },
      { unit: 'rollouts', params: { rollouts: flags.rollouts, calls_per_rollout: 2, prompt_token_ids: PROMPT_IDS, sidecar_share: 0.01 }, repeats: flags.repeats },
    );
    printResults('health', [result]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

runMain(main);

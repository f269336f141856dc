// Finalize's aggregation (activities/results.ts aggregateRun) over a synthetic run folder of
// --rollouts records: wall seconds and the peak RSS of the process doing it, one child process per repeat.
//   node --import tsx bench/aggregate.ts [--rollouts 100000] [--repeats 3]
import { execFileSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { aggregateRun } from '../activities/results';
import type { RolloutRecord } from '../src/schemas/records';
import { formatLine } from '../src/store/result-lines';
import { measure, printResults } from './lib/cases';
import { parseFlags, runMain } from './lib/flags';

const REPEATS_PER_TASK = 4;

/** A record the size and shape of a three-turn tool-calling rollout (~3 KB), with its diagnostics. */
function record(i: number): RolloutRecord {
  const task = Math.floor(i / REPEATS_PER_TASK);
  const turns = 1 + (i % 3);
  const text = 'The answer follows from the table above; each row is checked against the constraint. '.repeat(6);
  return {
    _ng_task_index: task,
    _ng_rollout_index: i % REPEATS_PER_TASK,
    _ng_rollout_id: `${task}-${i % REPEATS_PER_TASK}`,
    responses_create_params: { input: [{ role: 'user', content: `Task ${task}: ${text}` }] },
    response: {
      id: `resp_${i}`,
      output: [
        ...Array.from({ length: turns - 1 }, (_, t) => ({ type: 'function_call' as const, name: 'lookup', arguments: `{"row":${t}}`, call_id: `c${i}_${t}` })),
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] },
      ],
      usage: { input_tokens: 900 * turns, output_tokens: 60 * turns, total_tokens: 960 * turns },
    },
    reward: (i * 2654435761) % 7 < 4 ? 1 : 0,
    extracted_answer: String(i % 5),
    _gf_model_call_ids: Array.from({ length: turns }, (_, t) => `call_${i}_${t}`),
    _gf_diagnostics: {
      input_tokens: 900 * turns,
      output_tokens: 60 * turns,
      reasoning_tokens: 0,
      turns,
      tool_calls: turns - 1,
      failed_tool_calls: i % 50 === 0 ? 1 : 0,
      latency_ms: { model: 300 * turns + (i % 97), tool: 2 * turns, verify: 1 + (i % 5), sandbox: 0, queueing: i % 11, total: 320 * turns + (i % 131) },
      attempts: 1 + (i % 40 === 0 ? 1 : 0),
    },
  };
}

/** Writes tasks.jsonl and rollouts.jsonl (every 100th rollout in failures.jsonl instead) into a new folder. */
async function writeRun(rollouts: number): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gymflow-bench-aggregate-'));
  const tasks = Math.ceil(rollouts / REPEATS_PER_TASK);
  await writeFile(path.join(dir, 'tasks.jsonl'), Array.from({ length: tasks }, (_, t) => `${JSON.stringify({ _ng_task_index: t, responses_create_params: { input: `Task ${t}` } })}\n`).join(''));
  const out = createWriteStream(path.join(dir, 'rollouts.jsonl'));
  const failures: string[] = [];
  for (let i = 0; i < rollouts; i++) {
    const r = record(i);
    if (i % 100 === 99) {
      failures.push(
        formatLine('failure', {
          _ng_task_index: r._ng_task_index,
          _ng_rollout_index: r._ng_rollout_index,
          _ng_rollout_id: r._ng_rollout_id,
          _ng_failure_class: 'model_error',
          message: 'HTTP 500',
          stage: 'model',
          attempt: 3,
          failed_at: new Date(0).toISOString(),
        }),
      );
      continue;
    }
    if (!out.write(formatLine('rollout', r))) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  await writeFile(path.join(dir, 'failures.jsonl'), failures.join(''));
  return dir;
}

async function child(dir: string, expected: number): Promise<void> {
  const started = performance.now();
  const metrics = await aggregateRun(dir, expected);
  const seconds = (performance.now() - started) / 1000;
  // maxRSS is in KiB: the peak of this process, which did nothing but load code and aggregate.
  process.stdout.write(`${JSON.stringify({ seconds, peak_rss_mib: process.resourceUsage().maxRSS / 1024, recorded: metrics.rollouts_recorded })}\n`);
}

async function main(): Promise<void> {
  if (process.argv[2] === '--child') return child(process.argv[3]!, Number(process.argv[4]));
  const flags = parseFlags('node --import tsx bench/aggregate.ts', {
    rollouts: { kind: 'int', default: 100_000, help: 'rollouts in the synthetic run', min: 1 },
    repeats: { kind: 'int', default: 3, help: 'repeats', min: 1 },
  });
  process.stderr.write(`writing a ${flags.rollouts}-rollout run folder…\n`);
  const dir = await writeRun(flags.rollouts);
  const bytes = (await stat(path.join(dir, 'rollouts.jsonl'))).size;
  try {
    const result = await measure(
      'aggregate',
      async () => {
        const out = execFileSync(process.execPath, ['--import', 'tsx', import.meta.filename, '--child', dir, String(flags.rollouts)], { encoding: 'utf8', maxBuffer: 1 << 20 });
        const got = JSON.parse(out.trim().split('\n').at(-1)!) as { seconds: number; peak_rss_mib: number; recorded: number };
        return { units: got.recorded, seconds: got.seconds, peak_rss_mib: got.peak_rss_mib };
      },
      { unit: 'rollouts', params: { rollouts: flags.rollouts, rollouts_jsonl_mib: Math.round(bytes / 2 ** 20) }, repeats: flags.repeats },
    );
    printResults('aggregate', [result]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

runMain(main);

// `gym dataset collate` (src/datasets/collate.ts) over one declared dataset of --rows mcqa rows (the five
// example rows, varied): wall seconds and the child process's peak RSS, to show it streams in flat memory.
//   node --import tsx bench/collate.ts [--rows 1000000] [--repeats 3]
import { execFileSync } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { collate } from '../src/datasets/collate';
import type { DeclaredDataset } from '../src/datasets/declared';
import { measure, printResults } from './lib/cases';
import { parseFlags, runMain } from './lib/flags';

const EXAMPLE = path.resolve(import.meta.dirname, '../src/environments/mcqa/data/example.jsonl');

async function writeDataset(rows: number, dir: string): Promise<string> {
  const examples = readFileSync(EXAMPLE, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const file = path.join(dir, 'train.jsonl');
  const out = createWriteStream(file);
  for (let i = 0; i < rows; i++) {
    const row = { ...examples[i % examples.length]!, uuid: `row-${i}` };
    if (!out.write(JSON.stringify(row) + '\n')) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return file;
}

async function child(file: string, outDir: string): Promise<void> {
  const dataset: DeclaredDataset = {
    name: 'train',
    type: 'train',
    jsonl_fpath: file,
    license: 'Apache 2.0',
    instance: 'mcqa_agent',
    instanceType: 'responses_api_agents',
    env: 'mcqa',
    declaredIn: undefined,
  };
  const started = performance.now();
  const result = await collate({ datasets: [dataset], mode: 'train_preparation', outputDir: outDir, locate: (d) => d.jsonl_fpath });
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(`${JSON.stringify({ seconds, peak_rss_mib: process.resourceUsage().maxRSS / 1024, rows: result.outputs[0]!.rows })}\n`);
}

async function main(): Promise<void> {
  if (process.argv[2] === '--child') return child(process.argv[3]!, process.argv[4]!);
  const flags = parseFlags('node --import tsx bench/collate.ts', {
    rows: { kind: 'int', default: 1_000_000, help: 'rows in the dataset', min: 1 },
    repeats: { kind: 'int', default: 3, help: 'repeats', min: 1 },
  });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gymflow-bench-collate-'));
  try {
    process.stderr.write(`writing a ${flags.rows}-row dataset…\n`);
    const file = await writeDataset(flags.rows, dir);
    const bytes = (await stat(file)).size;
    const result = await measure(
      'collate',
      async () => {
        const out = execFileSync(process.execPath, ['--import', 'tsx', import.meta.filename, '--child', file, path.join(dir, 'out')], { encoding: 'utf8', maxBuffer: 1 << 20 });
        const got = JSON.parse(out.trim().split('\n').at(-1)!) as { seconds: number; peak_rss_mib: number; rows: number };
        return { units: got.rows, seconds: got.seconds, peak_rss_mib: got.peak_rss_mib };
      },
      { unit: 'rows', params: { rows: flags.rows, dataset_mib: Math.round(bytes / 2 ** 20) }, repeats: flags.repeats },
    );
    printResults('collate', [result]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

runMain(main);

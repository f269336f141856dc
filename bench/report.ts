// The run report at scale: `gym eval report` on a synthetic 100,000-rollout run (seconds and peak memory of
// the process), then the page in headless Chromium: time to first render, a search, a page switch.
//   node --import tsx bench/report.ts [--rollouts 100000] [--repeats 3] [--diagnostics 1]
import { spawn } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { launchChromium } from '../tests/helpers/chromium';
import { writeSyntheticRun } from '../tests/helpers/synthetic-run';
import { measure, printResults } from './lib/cases';
import { parseFlags } from './lib/flags';
import { renderReport } from '../src/report/html';
import { readRun } from '../src/report/read-run';
import { writeFileAtomic } from '../src/store/jsonl';

const REPEATS_PER_TASK = 4;

/** The measured part in a process of its own, so its peak RSS is the report's alone. */
async function child(dir: string): Promise<void> {
  const started = performance.now();
  const out = path.join(dir, 'report.html');
  await writeFileAtomic(out, renderReport(await readRun(dir)));
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage();
  process.stdout.write(
    JSON.stringify({
      read_render_write_seconds: seconds,
      cpu_seconds: (cpu.user + cpu.system) / 1e6,
      peak_rss_mib: process.resourceUsage().maxRSS / 1024,
      html_mib: (await stat(out)).size / 2 ** 20,
    }) + '\n',
  );
}

function generate(dir: string): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', import.meta.filename, '--child', dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.on('error', reject);
    p.on('close', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1)!)) : reject(new Error(`report child exited ${code}`))));
  });
}

async function inChromium(dir: string): Promise<Record<string, number>> {
  const context = await launchChromium();
  try {
    const page = await context.newPage();
    const t0 = performance.now();
    await page.goto(`file://${path.join(dir, 'report.html')}`, { timeout: 300_000 });
    await page.waitForSelector('body[data-ready="true"]', { timeout: 300_000 });
    const firstRender = performance.now() - t0;
    const rollouts = page.locator('#rollouts');
    // A search's own time, measured in the page: from the input event (after its 150 ms debounce) to the rows shown.
    const searchMs = async (q: string) => {
      const t = performance.now();
      await rollouts.locator('input.search').fill(q);
      await rollouts.locator('.count', { hasText: 'matching' }).waitFor({ timeout: 120_000 });
      return performance.now() - t - 150;
    };
    const firstSearch = await searchMs('no_boxed_answer');
    await rollouts.locator('input.search').fill('');
    await rollouts.locator('.count', { hasText: / rows$/ }).waitFor();
    const secondSearch = await searchMs('task 4711,');
    await rollouts.locator('input.search').fill('');
    await rollouts.locator('.count', { hasText: / rows$/ }).waitFor();
    const t1 = performance.now();
    await rollouts.locator('button.next').click();
    await rollouts.locator('.page', { hasText: /^page 2 of/ }).waitFor();
    const pageSwitch = performance.now() - t1;
    const domRows = await page.locator('tr').count();
    const heap = await page.evaluate(() => (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize ?? 0);
    return { first_render_ms: firstRender, first_search_ms: firstSearch, second_search_ms: secondSearch, page_switch_ms: pageSwitch, dom_rows: domRows, js_heap_mib: heap / 2 ** 20 };
  } finally {
    await context.close();
  }
}

async function mainBench(): Promise<void> {
  const flags = parseFlags('usage: node --import tsx bench/report.ts [flags]', {
    rollouts: { kind: 'int', default: 100_000, help: 'rollouts in the synthetic run', min: 4 },
    repeats: { kind: 'int', default: 3, help: 'repeats of each case', min: 1 },
    diagnostics: { kind: 'int', default: 1, help: '1: records carry _gf_diagnostics; 0: latency from the model call log' },
  });
  const dir = path.join(await mkdtemp(path.join(os.tmpdir(), 'gymflow-bench-report-')), 'run');
  try {
    const tasks = Math.ceil(flags.rollouts / REPEATS_PER_TASK);
    process.stderr.write(`writing a synthetic run of ${tasks * REPEATS_PER_TASK} rollouts in ${dir}\n`);
    await writeSyntheticRun(dir, {
      tasks,
      repeats: REPEATS_PER_TASK,
      diagnostics: flags.diagnostics === 1,
      health: true,
      failed: (t, r) => (t % 97 === 0 && r === 0 ? `HTTP 502 from upstream (task ${t})` : undefined),
    });
    const params = { rollouts: tasks * REPEATS_PER_TASK, diagnostics: flags.diagnostics === 1, rollouts_mib: (await stat(path.join(dir, 'rollouts.jsonl'))).size / 2 ** 20 };
    const report = await measure('gym eval report', async () => ({ units: params.rollouts, ...(await generate(dir)) }), { unit: 'rollouts', params, repeats: flags.repeats });
    const page = await measure('report page in Chromium', async () => ({ units: 1, ...(await inChromium(dir)) }), { unit: 'page loads', params, repeats: flags.repeats });
    printResults('report', [report, page]);
  } finally {
    await rm(path.dirname(dir), { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') await child(process.argv[3]!);
else await mainBench();

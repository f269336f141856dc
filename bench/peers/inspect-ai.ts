// Inspect AI as a peer: its mockllm/model on Gymflow's mcqa rows at the same concurrency (max_connections =
// max_samples), samples per second timed around eval(), with the Python process's CPU and memory.
//   node --import tsx bench/peers/inspect-ai.ts [--rollouts 500] [--concurrency 64] [--latency-ms 0] [--repeats 3]
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { GymError } from '../../src/errors';
import { measure, printResults } from '../lib/cases';
import { ROLLOUT_FLAGS, parseFlags, runMain } from '../lib/flags';
import { runWatched } from '../lib/processes';
import { ensureO200kCache } from './tiktoken-cache';
import { BENCH_STATE, MCQA_ROWS, requireVenv } from './venvs';

const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'inspect_mcqa.py');
const ScriptResult = z.object({ units: z.number(), seconds: z.number(), mean_reward: z.number() });

async function main(): Promise<void> {
  const flags = parseFlags('node --import tsx bench/peers/inspect-ai.ts [flags]', ROLLOUT_FLAGS);
  const venv = requireVenv('inspect');
  const cacheDir = path.join(BENCH_STATE, 'tiktoken');
  await ensureO200kCache(cacheDir, venv.sitePackages);
  const args = [SCRIPT, '--input', MCQA_ROWS, '--rollouts', String(flags.rollouts), '--concurrency', String(flags.concurrency), '--latency-ms', String(flags['latency-ms'])];
  const result = await measure(
    'inspect-ai mcqa',
    async () => {
      const run = await runWatched(venv.python, args, { env: { ...process.env, TIKTOKEN_CACHE_DIR: cacheDir } });
      const last = run.stdout.trim().split('\n').at(-1) ?? '';
      const parsed = run.code === 0 ? ScriptResult.safeParse(JSON.parse(last || 'null')) : undefined;
      if (!parsed?.success) throw new GymError('RUN_FAILED', `inspect_mcqa.py exited ${run.code}; its stderr ends:\n${run.stderrTail}`);
      return {
        units: parsed.data.units,
        seconds: parsed.data.seconds,
        mean_reward: parsed.data.mean_reward,
        process_seconds: run.seconds,
        cpu_seconds: run.usage.cpu_seconds,
        cpu_ms_per_rollout: (run.usage.cpu_seconds * 1000) / parsed.data.units,
        peak_rss_mib: run.usage.peak_rss_mib,
      };
    },
    {
      unit: 'rollouts',
      params: { rollouts: flags.rollouts, concurrency: flags.concurrency, latency_ms: flags['latency-ms'], model: 'mockllm/model' },
      repeats: flags.repeats,
    },
  );
  printResults('inspect-ai', [result], { peer: `inspect-ai (${venv.dir})` });
}

runMain(main);

// NeMo Gym 0.7.0 as a peer: its own servers (`gym env start`, mcqa + simple agent + openai_model) against the
// bench mock model, then `gym eval run --no-serve` on Gymflow's mcqa rows; rollouts/s, CPU and RSS of every NeMo Gym process.
//   node --import tsx bench/peers/nemo-gym.ts [--rollouts 500] [--concurrency 64] [--latency-ms 0] [--repeats 3]
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, realpathSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { GymError } from '../../src/errors';
import { measure, printResults } from '../lib/cases';
import { ROLLOUT_FLAGS, parseFlags, runMain } from '../lib/flags';
import { runWatched } from '../lib/processes';
import { startMockOpenAI } from '../mock-openai-server';
import { BENCH_STATE, MCQA_ROWS, countRows, requireVenv, type Venv } from './venvs';

// The servers `gym env start --resources-server mcqa --model-type openai_model` runs, as <type>/<name> folders.
const SERVER_DIRS = ['resources_servers/mcqa', 'responses_api_agents/simple_agent', 'responses_api_models/openai_model', 'environment_servers/legacy_agent'];
const READY = /All (\d+) \/ \1 servers ready/;
// Printed by `gym eval run` once its rows are prepared, right before the first rollout is sent.
const COLLECTING = /Querying with \d+ concurrent requests/;

// Ray otherwise binds the machine's external interface.
const nemoEnv = (): NodeJS.ProcessEnv => ({ ...process.env, RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER: '0' });

/** A working folder NeMo Gym reads env.yaml from, with every server's venv pointing at the one bench venv. */
async function workDir(venv: Venv, policyUrl: string): Promise<string> {
  await mkdir(BENCH_STATE, { recursive: true });
  const dir = await mkdtemp(path.join(BENCH_STATE, 'nemo-gym-'));
  for (const server of SERVER_DIRS) {
    await mkdir(path.join(dir, 'venvs', server), { recursive: true });
    // Without this NeMo Gym builds a venv per server with uv and Python 3.13, which this machine does not have.
    await symlink(venv.dir, path.join(dir, 'venvs', server, '.venv'));
  }
  const env = {
    policy_base_url: policyUrl,
    policy_api_key: 'dummy',
    policy_model_name: 'mock-model',
    uv_venv_dir: path.join(dir, 'venvs'),
    skip_venv_if_present: true,
  };
  await writeFile(
    path.join(dir, 'env.yaml'),
    Object.entries(env)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n') + '\n',
  );
  return dir;
}

/** Starts NeMo Gym's servers and resolves once it says all are ready. */
async function startServers(venv: Venv, dir: string): Promise<ChildProcess> {
  const logFile = path.join(dir, 'env-start.log');
  const log = createWriteStream(logFile);
  // Its own process group, so stopping it reaches Ray and every server; Node gives the child SIGINT's default
  // disposition, and SIGINT is the signal `gym env start` shuts down cleanly on.
  const child = spawn(venv.bin('gym'), ['env', 'start', '--resources-server', 'mcqa', '--model-type', 'openai_model'], {
    cwd: dir,
    env: nemoEnv(),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let seen = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new GymError('RUN_FAILED', `NeMo Gym's servers were not ready after 5 minutes; see ${logFile}`)), 300_000);
    const onData = (d: Buffer) => {
      log.write(d);
      seen = (seen + d.toString('utf8')).slice(-5000);
      if (READY.test(seen)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new GymError('RUN_FAILED', `gym env start exited ${code} before its servers were ready; its output ends:\n${seen.slice(-2000)}`));
    });
  });
  return child;
}

async function stopServers(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGINT');
  const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 60_000).unref());
  if ((await Promise.race([exited, timeout])) === 'timeout') process.kill(-child.pid!, 'SIGKILL');
}

async function main(): Promise<void> {
  const flags = parseFlags('node --import tsx bench/peers/nemo-gym.ts [flags]', ROLLOUT_FLAGS);
  const venv = requireVenv('nemo-gym');
  const rows = countRows(MCQA_ROWS);
  const numRepeats = Math.ceil(flags.rollouts / rows);
  const mock = await startMockOpenAI({ latencyMs: flags['latency-ms'] });
  const dir = await workDir(venv, mock.url);
  // Every NeMo Gym process, Ray's daemons included, runs from the venv; match both spellings of its path.
  const venvPaths = [...new Set([venv.dir, realpathSync(venv.dir)])].map((p) => `${p}/`);
  let servers: ChildProcess | undefined;
  try {
    servers = await startServers(venv, dir);
    const result = await measure(
      'nemo-gym mcqa',
      async (repeat) => {
        const out = path.join(dir, `out-${repeat}`, 'rollouts.jsonl');
        const args = [
          'eval',
          'run',
          '--no-serve',
          '--agent',
          'mcqa_simple_agent',
          '--input',
          MCQA_ROWS,
          '--output',
          out,
          '--num-repeats',
          String(numRepeats),
          '--concurrency',
          String(flags.concurrency),
        ];
        const before = mock.requests();
        const run = await runWatched(venv.bin('gym'), args, { cwd: dir, env: nemoEnv(), alsoWatch: { cmdlineIncludes: venvPaths }, startMarker: COLLECTING });
        if (run.code !== 0 || run.markedAt === undefined) throw new GymError('RUN_FAILED', `gym eval run exited ${run.code}; its output ends:\n${run.stderrTail || run.stdout.slice(-3000)}`);
        const rollouts = (await readFile(out, 'utf8'))
          .split('\n')
          .filter((l) => l.trim())
          .map((l) => JSON.parse(l) as { reward?: number });
        const rewards = rollouts.map((r) => r.reward ?? 0);
        return {
          units: rollouts.length,
          // From the first rollout sent to the end of the command (metrics and output files included), as Inspect's eval().
          seconds: run.seconds - run.markedAt,
          process_seconds: run.seconds,
          mean_reward: rewards.reduce((a, b) => a + b, 0) / Math.max(1, rewards.length),
          model_requests: mock.requests() - before,
          cpu_seconds: run.usage.cpu_seconds,
          cpu_ms_per_rollout: (run.usage.cpu_seconds * 1000) / Math.max(1, rollouts.length),
          peak_rss_mib: run.usage.peak_rss_mib,
          processes: run.usage.processes,
        };
      },
      {
        unit: 'rollouts',
        params: { rollouts: rows * numRepeats, concurrency: flags.concurrency, latency_ms: flags['latency-ms'], model: 'bench/mock-openai-server.ts via openai_model' },
        repeats: flags.repeats,
      },
    );
    printResults('nemo-gym', [result], { peer: `nemo-gym 0.7.0 (${venv.dir})` });
  } finally {
    if (servers) await stopServers(servers);
    await mock.close();
    await rm(dir, { recursive: true, force: true });
  }
}

runMain(main);

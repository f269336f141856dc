// One routed run that plays its rows in different ways: mcqa's by Gymflow's agent loop, the same swe_repair
// task fanned out to two agents of the real Pi CLI (in local sandboxes, the mock model scripting its tool use),
// the second capped at one model call. Each rollout is played by its own row's way, recorded once under its
// agent, the capped one routed to the sidecar; metrics per agent and environment; the same command finds it done.
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../src/util/paths';
import { gymHere } from '../helpers/gym-here';
import { harnessRunDir, harnessRunEnv } from '../helpers/harness-run';
import { startTestServer, type TestServer } from '../helpers/temporal-server';

const CONFIG = path.resolve(import.meta.dirname, '../fixtures/mixed-runs/loop-and-harnesses.yaml');
const SWE_TASKS = path.join(PACKAGE_ROOT, 'src/environments/swe_repair/data/example.jsonl');
const MCQA_TASKS = path.resolve(import.meta.dirname, '../fixtures/nemo-gym/mcqa/example.jsonl');

type Json = Record<string, any>;
const jsonl = (file: string): Json[] =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];

describe('a run mixing ways of playing', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('plays each row its own way: the loop, a harness, a capped harness; each task × agent once', async () => {
    const dir = await harnessRunDir('gymflow-mixed-');
    const input = path.join(dir, 'rows.jsonl');
    // The capped agent's rollout is meant to fail (3 of 4 rewarded). mcqa's rows first: the run's own environment (the first row's) is then one no harness plays.
    const mcqa = jsonl(MCQA_TASKS)
      .slice(0, 2)
      .map((r) => ({ ...r, task_source: 'mcqa' }));
    const swe = jsonl(SWE_TASKS)
      .slice(0, 1)
      .map((r) => ({ ...r, task_source: 'swe_repair' }));
    await writeFile(input, [...mcqa, ...swe].map((r) => JSON.stringify(r) + '\n').join(''));
    const out = path.join(dir, 'run');
    const env = harnessRunEnv(server, dir);
    const args = ['eval', 'run', '--config', CONFIG, '--env-yaml', '/dev/null', '--input', input, '--model', 'mock', '--output', out, '--min-coverage', '0.75'];
    const r = await gymHere(args, env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      "played by Gymflow's agent loop (mcqa_agent); harness pi in local (swe_pi_agent, swe_capped_agent): the run takes the rollout grain, since a harness plays whole rollouts\n",
    );

    const records = jsonl(path.join(out, 'rollouts.jsonl'));
    const played = records.map((rec) => `${rec.agent_ref.name}|${rec._gf_environment.name}|${rec._gf_harness?.name ?? 'loop'}|${rec.reward}`);
    expect(played.sort()).toEqual(['mcqa_agent|mcqa|loop|1', 'mcqa_agent|mcqa|loop|1', 'swe_pi_agent|swe_repair|pi|1']);
    const tasks = jsonl(path.join(out, 'tasks.jsonl'));
    const failures = jsonl(path.join(out, 'failures.jsonl'));
    expect(failures).toHaveLength(1);
    expect(failures[0]!._ng_failure_class).toBe('cap_exceeded');
    expect(tasks[failures[0]!._ng_task_index]!.agent_ref.name).toBe('swe_capped_agent');

    const metrics = JSON.parse(readFileSync(path.join(out, 'metrics.json'), 'utf8'));
    expect(metrics.rollouts_expected).toBe(4);
    const perAgent = Object.fromEntries(Object.entries<Json>(metrics.per_agent).map(([k, m]) => [k, [m.rollouts_recorded, m.rollouts_failed]]));
    expect(perAgent).toEqual({ mcqa_agent: [2, 0], swe_pi_agent: [1, 0], swe_capped_agent: [0, 1] });
    expect(Object.fromEntries(Object.entries<Json>(metrics.per_environment).map(([k, m]) => [k, m.rollouts_expected]))).toEqual({ mcqa: 2, swe_repair: 2 });
    const manifest = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8'));
    expect(manifest.config.durability).toBe('rollout');

    const again = await gymHere(args, env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/already complete/);
  }, 600_000);
});

// Task routing on a real run: three environments' datasets collated into one file and run from a NeMo Gym
// configuration, string_match's rows fanned out to two agents by agent_map; every task × agent is recorded,
// with metrics per agent and per environment. Then the errors that stop a run before it starts (each with
// its exact text, all at once), legacy agent_ref rows, and --dry-run against a dead and a live endpoint.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gymHere } from '../helpers/gym-here';
import { releasePort, reservePort } from '../helpers/ports';
import { tempDir } from '../helpers/run';
import { startTestServer, type TestServer } from '../helpers/temporal-server';

const CONFIG = path.resolve(import.meta.dirname, '../fixtures/routing/three-environments.yaml');
const FAN_OUT = '+agent_map={string_match: [string_match_simple_agent, string_match_second_agent]}';

type Json = Record<string, any>;
const lines = async (file: string): Promise<Json[]> =>
  (await readFile(file, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

describe('a run over three environments, routed from a NeMo Gym configuration', () => {
  let server: TestServer;
  let collated: string;
  let dir: string;

  beforeAll(async () => {
    server = await startTestServer();
    Object.assign(process.env, { TEMPORAL_ADDRESS: server.address, GYMFLOW_HOME: server.dir, GYMFLOW_LOG_LEVEL: 'warn' });
    dir = await tempDir('gymflow-routing-');
    const c = await gymHere(['dataset', 'collate', '--config', CONFIG, '--output-dir', dir]);
    expect(c.code, c.stderr).toBe(0);
    collated = path.join(dir, 'example.jsonl');
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('records every task × agent, with metrics per agent, per environment and overall', async () => {
    const run = path.join(dir, 'run');
    const args = ['eval', 'run', '--config', CONFIG, '--input', collated, '--output', run, '--model', 'mock', '--num-repeats', '2', FAN_OUT];
    const r = await gymHere(args);
    expect(r.code, r.stderr).toBe(0);

    const sources = await lines(collated);
    const records = await lines(path.join(run, 'rollouts.jsonl'));
    // What each row should be played by, from the input alone: its task_source's agent, string_match's by both.
    const expectedPlays = sources.flatMap((row) => {
      const agents = row.task_source === 'string_match' ? ['string_match_simple_agent', 'string_match_second_agent'] : [`${row.task_source.replace(/_simple_agent$/, '')}_simple_agent`];
      const env = row.task_source.replace(/_simple_agent$/, '');
      return agents.flatMap((agent) => [0, 1].map((repeat) => `${agent}|${env}|${JSON.stringify(row.responses_create_params.input)}|${repeat}`));
    });
    const played = records.map((rec) => `${rec.agent_ref.name}|${rec._gf_environment.name}|${JSON.stringify(rec.responses_create_params.input)}|${rec._ng_rollout_index}`);
    expect(played.sort()).toEqual(expectedPlays.sort());
    expect(existsSync(path.join(run, 'failures.jsonl')) ? await lines(path.join(run, 'failures.jsonl')) : []).toEqual([]);
    // The mock played each environment's own oracle (accuracy 1): a wrong environment would not score.
    for (const rec of records) expect(rec.reward, `${rec.agent_ref.name} ${rec._ng_rollout_id}`).toBe(1);
    for (const rec of records) expect(rec.task_source).toBe(sources.find((s) => JSON.stringify(s.responses_create_params) === JSON.stringify(rec.responses_create_params))!.task_source);

    const metrics = JSON.parse(await readFile(path.join(run, 'metrics.json'), 'utf8'));
    expect(metrics.rollouts_expected).toBe(expectedPlays.length);
    expect(metrics.rollouts_recorded).toBe(expectedPlays.length);
    const count = (key: (p: string[]) => string) => {
      const out: Record<string, number> = {};
      for (const p of expectedPlays) out[key(p.split('|'))] = (out[key(p.split('|'))] ?? 0) + 1;
      return out;
    };
    const perAgent = Object.fromEntries(Object.entries<Json>(metrics.per_agent).map(([k, m]) => [k, m.rollouts_recorded]));
    const perEnv = Object.fromEntries(Object.entries<Json>(metrics.per_environment).map(([k, m]) => [k, m.rollouts_recorded]));
    expect(perAgent).toEqual(count((p) => p[0]!));
    expect(perEnv).toEqual(count((p) => p[1]!));
    for (const m of [...Object.values<Json>(metrics.per_agent), ...Object.values<Json>(metrics.per_environment)]) {
      expect(m.rollouts_expected).toBe(m.rollouts_recorded);
      expect(m.coverage).toBe(1);
      expect(m.pass_at_k['pass@2']).toBe(1);
    }
    expect(metrics.per_agent.string_match_second_agent.task_set).toBe(5);
    expect(metrics.diagnostics.map((d: Json) => `${d.agent}|${d.environment}`).sort()).toEqual(Object.keys(count((p) => `${p[0]}|${p[1]}`)).sort());

    // The same command again finds the same run (the routed rows and identity are stable) and shows it.
    const again = await gymHere(args);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/already complete/);
  }, 300_000);

  it('re-verifies the finished run, each record with the environment its row was played against', async () => {
    const run = path.join(dir, 'run');
    const records = await lines(path.join(run, 'rollouts.jsonl'));
    const perEnv: Record<string, number> = {};
    for (const rec of records) perEnv[rec._gf_environment.name] = (perEnv[rec._gf_environment.name] ?? 0) + 1;
    expect(Object.keys(perEnv).sort()).toEqual(['example_multi_step', 'mcqa', 'string_match']);

    const same = await gymHere(['eval', 'reverify', path.join(run, 'rollouts.jsonl'), '--force', '--output', path.join(dir, 'reverified.jsonl')]);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).toContain(`agreement: ${records.length}/${records.length} recomputed rewards equal the recorded ones\n`);
    for (const [env, n] of Object.entries(perEnv)) expect(same.stdout).toContain(`\n  ${env}: ${n}/${n} agree\n`);

    // One mcqa record altered to claim a reward its answer does not earn is reported, under its environment.
    const altered = path.join(dir, 'altered.jsonl');
    const wrong = records.findIndex((rec) => rec._gf_environment.name === 'mcqa');
    await writeFile(altered, records.map((rec, i) => JSON.stringify(i === wrong ? { ...rec, reward: 0 } : rec) + '\n').join(''));
    const told = await gymHere(['eval', 'reverify', altered, '--tasks', path.join(run, 'tasks.jsonl'), '--force']);
    expect(told.code, told.stderr).toBe(0);
    expect(told.stdout).toContain(`\n  mcqa: ${perEnv.mcqa! - 1}/${perEnv.mcqa} agree\n`);
    expect(told.stdout).toContain(`disagreements (1):\n  line ${wrong + 1}, task ${records[wrong]!._ng_task_index} (mcqa): 0 → 1`);

    // A row that names no environment needs --env, and says so.
    const bare = path.join(dir, 'bare.jsonl');
    await writeFile(bare, JSON.stringify({ ...records[wrong], _gf_environment: undefined }) + '\n');
    const refused = await gymHere(['eval', 'reverify', bare]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('  line 1: it names no environment (_gf_environment) and none was given (--env)\n');
  }, 120_000);

  it('gives each agent its own num_repeats, the dispatched agent first; --num-repeats gives every row one', async () => {
    const run = path.join(dir, 'repeats');
    const repeats = '+num_repeats={string_match_second_agent: 3, string_match: 2, _default: 1}';
    const r = await gymHere(['eval', 'run', '--config', CONFIG, '--input', collated, '--output', run, '--model', 'mock', FAN_OUT, repeats]);
    expect(r.code, r.stderr).toBe(0);
    const sources = await lines(collated);
    const tasksOf = (source: string) => sources.filter((s) => s.task_source === source).length;
    const expected: Record<string, number> = {
      string_match_second_agent: 3 * tasksOf('string_match'),
      string_match_simple_agent: 2 * tasksOf('string_match'),
      mcqa_simple_agent: tasksOf('mcqa_simple_agent'),
      example_multi_step_simple_agent: tasksOf('example_multi_step'),
    };
    const records = await lines(path.join(run, 'rollouts.jsonl'));
    const perAgent: Record<string, number> = {};
    for (const rec of records) perAgent[rec.agent_ref.name] = (perAgent[rec.agent_ref.name] ?? 0) + 1;
    expect(perAgent).toEqual(expected);
    // Each (task, repeat) once, the repeats of a task numbered from 0.
    const pairs = records.map((rec) => `${rec._ng_task_index}/${rec._ng_rollout_index}`);
    expect(new Set(pairs).size).toBe(records.length);
    const second = records.filter((rec) => rec.agent_ref.name === 'string_match_second_agent');
    expect([...new Set(second.map((rec) => rec._ng_rollout_index))].sort()).toEqual([0, 1, 2]);
    const metrics = JSON.parse(await readFile(path.join(run, 'metrics.json'), 'utf8'));
    expect(Object.fromEntries(Object.entries<Json>(metrics.per_agent).map(([k, m]) => [k, m.rollouts_expected]))).toEqual(expected);
    expect(metrics.per_agent.string_match_second_agent.task_set).toBe(tasksOf('string_match'));
    expect(metrics.per_agent.string_match_second_agent.pass_at_k['pass@3']).toBe(1);

    const flag = await gymHere(['eval', 'run', '--config', CONFIG, '--input', collated, '--output', path.join(dir, 'flag'), '--model', 'mock', FAN_OUT, repeats, '--num-repeats', '2', '--dry-run']);
    expect(flag.code, flag.stderr).toBe(0);
    expect(flag.stdout).toContain(`rollouts: ${sources.length + tasksOf('string_match')} × 2 repeat(s)`);
  }, 300_000);

  it('refuses before anything starts, naming every problem at once', async () => {
    const out = path.join(dir, 'refused');
    const bad = await gymHere(['eval', 'run', '--config', CONFIG, '--split', 'benchmark', '--output', out, '--model', 'mock', '+agent_map={string_match: strng_match_simple_agent}']);
    expect(bad.code).toBe(3);
    expect(bad.stderr).toBe(
      'gym: the run cannot start: 2 problem(s) in its configuration, routing or data (nothing was started)\n' +
        '  agent_map.string_match: unknown agent "strng_match_simple_agent" (did you mean "string_match_simple_agent"?); the configuration\'s agents: example_multi_step_simple_agent, mcqa_simple_agent, string_match_second_agent, string_match_simple_agent\n' +
        '  No dataset of type `benchmark` is declared in this configuration, so `--split benchmark` has nothing to run. Declared datasets: mcqa_simple_agent: example (type: example); example_multi_step: example (type: example); string_match: example (type: example)\n',
    );

    // Without agent_map, string_match's two agents leave its rows unresolved; a source no instance has fails too.
    const input = path.join(dir, 'unresolvable.jsonl');
    const rows = await lines(collated);
    await writeFile(input, [...rows, { ...rows[0], agent_ref: undefined, task_source: 'no_such_server' }].map((r) => JSON.stringify(r) + '\n').join(''));
    const unresolved = await gymHere(['eval', 'run', '--config', CONFIG, '--input', input, '--output', out, '--model', 'mock']);
    expect(unresolved.code).toBe(3);
    expect(unresolved.stderr).toContain('gym: the run cannot start: 2 problem(s)');
    expect(unresolved.stderr).toContain(
      '  task_source "no_such_server" is not an instance of the configuration; add the configuration that declares it, or route it with +agent_map={no_such_server: <agent>}\n',
    );
    expect(unresolved.stderr).toContain(
      '  task_source "string_match": 2 agents are bound to it (string_match_second_agent, string_match_simple_agent); pin one with `agent:` on the dataset, or pass +agent_map={string_match: <agent>}\n',
    );
    expect(unresolved.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(path.join(out, 'manifest.json'))).toBe(false);

    const example = await gymHere(['eval', 'run', '--config', CONFIG, '--split', 'example', '--output', out, '--model', 'mock']);
    expect(example.stderr).toContain('  --split example: example datasets are smoke-test samples, not a runnable split; run one with --input <its jsonl_fpath>\n');
  }, 120_000);

  it('runs rows that carry only the older agent_ref, with one deprecation warning', async () => {
    const input = path.join(dir, 'legacy.jsonl');
    const rows = (await lines(collated)).filter((r) => r.task_source === 'mcqa_simple_agent').map(({ task_source: _ts, ...r }) => r);
    await writeFile(input, rows.map((r) => JSON.stringify(r) + '\n').join(''));
    const r = await gymHere(['eval', 'run', '--config', CONFIG, '--input', input, '--output', path.join(dir, 'legacy'), '--model', 'mock', '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(
      `gym: warning: ${rows.length} row(s) are routed by the agent_ref they carry, without a task_source: this is deprecated; collate the data again with gym dataset collate (it stamps task_source), or route them with +agent_map\n`,
    );
    expect(r.stdout).toContain(`  mcqa_simple_agent → mcqa: ${rows.length} tasks`);
  });

  it('--dry-run checks that the model endpoint answers, and starts nothing', async () => {
    const closed = await reservePort(); // nothing listens there
    const out = path.join(dir, 'dry');
    try {
      process.env.ROUTING_TEST_MODEL_URL = `http://127.0.0.1:${closed}/v1`;
      const dead = await gymHere(['eval', 'run', '--config', CONFIG, '--input', collated, '--output', out, FAN_OUT, '--dry-run', '--model-endpoint-timeout', '1']);
      expect(dead.code).toBe(5);
      expect(dead.stderr).toBe(
        'gym: 1 model endpoint(s) never answered within 1s; nothing was started\n' +
          `  model: http://127.0.0.1:${closed}/v1 (ECONNREFUSED)\n` +
          '  any HTTP answer, even 401 or 404, counts: check the URL (curl -i <url>/models), or wait longer with --model-endpoint-timeout S (0 skips the check)\n',
      );
      // A real run from the configuration makes the same check first.
      const real = await gymHere(['eval', 'run', '--config', CONFIG, '--input', collated, '--output', out, FAN_OUT, '--model-endpoint-timeout', '1']);
      expect(real.code).toBe(5);
      expect(existsSync(path.join(out, 'manifest.json'))).toBe(false);
    } finally {
      releasePort(closed);
    }

    // Something listening, even refusing the key, answers.
    const asked: string[] = [];
    const live = http.createServer((req, res) => {
      asked.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"no key"}');
    });
    await new Promise<void>((resolve) => live.listen(0, '127.0.0.1', resolve));
    try {
      process.env.ROUTING_TEST_MODEL_URL = `http://127.0.0.1:${(live.address() as { port: number }).port}/v1`;
      const ok = await gymHere(['eval', 'run', '--config', CONFIG, '--input', collated, '--output', out, FAN_OUT, '--dry-run']);
      expect(ok.code, ok.stderr).toBe(0);
      expect(ok.stdout).toContain(`model: ${process.env.ROUTING_TEST_MODEL_URL} answers`);
      expect(ok.stdout).toContain('dry run: everything checked; nothing was started');
      // The probe sends no key; the run's own calls would.
      expect(asked).toEqual(['GET /v1/models ']);
      expect(existsSync(path.join(out, 'manifest.json'))).toBe(false);
    } finally {
      delete process.env.ROUTING_TEST_MODEL_URL;
      await new Promise<void>((resolve) => live.close(() => resolve()));
    }
  });
});

// A fixed and a routed condition on the same benchmark in one `gym eval run --condition …` command, each a
// real durable run (real Temporal dev server, the `gym` subprocess and its worker): two routes of a real
// Switchyard proxy (nemo-switchyard 0.3.0's native server, hosted by the gateway from a TOML deployment) in
// front of a FAKE OpenAI-compatible upstream (tests/helpers/fake-switchyard-upstream.ts: Gymflow's mock model
// per target id, a right one and a wrong one), and Gymflow's own round-robin router over two mock targets.
// Checked: the condition files, each call's serving target (against what the fake upstream was asked for and
// each rollout's reward), the rollout ids as Switchyard's sessions, and the comparison; a bad deployment is
// refused before anything starts.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelCallRecord } from '../../src/schemas/records';
import { deploymentToml, startFakeSwitchyardUpstream, type FakeSwitchyardUpstream } from '../helpers/fake-switchyard-upstream';
import { gym } from '../helpers/gym-cli';
import { useGymServer } from '../helpers/gym-server';
import { tempDir } from '../helpers/run';

const run = promisify(execFile);
const MCQA = path.resolve(import.meta.dirname, '../fixtures/nemo-gym/mcqa/example.jsonl');
const KEY_ENV = 'GYMFLOW_TEST_SWITCHYARD_UPSTREAM_KEY';

const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
function callRecords(runDir: string): ModelCallRecord[] {
  const dir = path.join(runDir, 'model_calls');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .flatMap((f) => lines(path.join(dir, f)).map((l) => ModelCallRecord.parse(l)))
    .sort((a, b) => a.started_at! - b.started_at!);
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

describe('fixed versus routed conditions in one command', () => {
  const env = useGymServer();
  let upstream: FakeSwitchyardUpstream;
  let dir: string;
  let deployment: string;

  beforeAll(async () => {
    await run('bash', [path.resolve(import.meta.dirname, '../../scripts/setup-switchyard.sh')], { timeout: 600_000 }).catch((e) => {
      throw new Error(`bash scripts/setup-switchyard.sh failed (it installs nemo-switchyard==0.3.0 from PyPI): ${e.message}`);
    });
    upstream = await startFakeSwitchyardUpstream({ env: 'mcqa', tasksFile: MCQA, targets: { 'fake/strong': 1, 'fake/weak': 0 } });
    dir = await tempDir('gymflow-conditions-');
    deployment = path.join(dir, 'routes.toml');
    await writeFile(deployment, deploymentToml(upstream.url, KEY_ENV));
  }, 700_000);
  afterAll(async () => {
    await upstream?.close();
  });

  it('runs each condition durably, records its routing condition and per-call targets, and compares them', async () => {
    await writeFile(path.join(dir, 'fixed.yaml'), 'backend: switchyard\nmodel: fixed\ndeployment: routes.toml\n');
    await writeFile(path.join(dir, 'routed.yaml'), 'backend: switchyard\nmodel: routed\ndeployment: routes.toml\nproxy_log_file: routed-proxy.log\n');
    // Gymflow's own router, no proxy: mock targets take the run's environment and tasks.
    await writeFile(
      path.join(dir, 'round-robin.yaml'),
      'backend: routed\nmodel: rr\nstrategy: { type: round_robin }\ntargets:\n  strong: { backend: mock, accuracy: 1 }\n  weak: { backend: mock, accuracy: 0 }\n',
    );
    const out = path.join(dir, 'compare');
    const r = await gym(
      [
        'eval',
        'run',
        '--env',
        'mcqa',
        '--input',
        MCQA,
        '--output',
        out,
        '--num-repeats',
        '2',
        '--concurrency',
        '2',
        '--condition',
        `fixed=${dir}/fixed.yaml`,
        '--condition',
        `routed=${dir}/routed.yaml`,
        '--condition',
        `rr=${dir}/round-robin.yaml`,
        '--price',
        'fake/strong=3,15',
        '--price',
        'fake/weak=0.5,1',
      ],
      { ...env, [KEY_ENV]: 'fake-upstream-key' },
      { timeoutMs: 600_000 },
    );
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.code).toBe(0);

    const comparison = JSON.parse(readFileSync(path.join(out, 'conditions.json'), 'utf8')).conditions;
    expect(comparison.map((c: { name: string }) => c.name)).toEqual(['fixed', 'routed', 'rr']);
    const sha = createHash('sha256').update(readFileSync(deployment)).digest('hex');
    const forwarded = [...upstream.requests];
    let seen = 0;
    for (const [name, route] of [
      ['fixed', 'fixed'],
      ['routed', 'routed'],
    ] as const) {
      const runDir = path.join(out, name);
      const condition = JSON.parse(readFileSync(path.join(runDir, 'switchyard-condition.json'), 'utf8'));
      expect(condition).toMatchObject({ route, mode: 'hosted', deployment_path: deployment, deployment_sha256: sha, session_id_headers: ['x-switchyard-session-id'] });
      const rollouts = lines(path.join(runDir, 'rollouts.jsonl'));
      expect(rollouts).toHaveLength(10);
      const calls = callRecords(runDir);
      expect(calls).toHaveLength(10);
      // The conditions ran one after the other: this one's calls are the next ten the fake upstream saw.
      const mine = forwarded.slice(seen, (seen += calls.length));
      expect(calls.map((c) => c.routing?.target).sort()).toEqual(mine.map((f) => f.model).sort());
      // Each rollout's reward is its target's: the strong mock answers right, the weak one wrong.
      const target = new Map(calls.map((c) => [c.rollout_id, c.routing!.target]));
      for (const x of rollouts) expect(x.reward).toBe(target.get(x._ng_rollout_id) === 'fake/strong' ? 1 : 0);
      const row = comparison.find((c: { name: string }) => c.name === name);
      expect(row.meanReward).toBeCloseTo(mean(rollouts.map((x) => x.reward)), 10);
      expect(row.targets).toEqual(Object.fromEntries([...new Set(target.values())].map((t) => [t, calls.filter((c) => c.routing!.target === t).length])));
      const tokens = calls.map((c) => (c.response as any).usage);
      expect(row.inputTokens).toBe(tokens.reduce((a, u) => a + u.input_tokens, 0));
      const price = (t: string) => (t === 'fake/strong' ? [3, 15] : [0.5, 1]);
      expect(row.costUsd).toBeCloseTo(
        calls.reduce((a, c, i) => a + (tokens[i].input_tokens * price(c.routing!.target)[0]! + tokens[i].output_tokens * price(c.routing!.target)[1]!) / 1e6, 0),
        10,
      );
      expect(existsSync(path.join(runDir, 'switchyard-stats.json'))).toBe(true);
      expect(JSON.parse(readFileSync(path.join(runDir, 'switchyard-stats.json'), 'utf8')).stats.total_requests).toBe(10);
    }
    expect(comparison[0].targets).toEqual({ 'fake/strong': 10 });
    // The routed condition's rollout ids reached Switchyard as its session ids.
    const log = readFileSync(path.join(dir, 'routed-proxy.log'), 'utf8');
    const sessions = new Set([...log.matchAll(/LLM request handled .*session_id="([^"]*)"/g)].map((m) => m[1]));
    expect(sessions).toEqual(new Set(callRecords(path.join(out, 'routed')).map((c) => c.rollout_id)));

    // Gymflow's round-robin: ten rollouts dealt five and five, each call recorded with its target.
    const rr = path.join(out, 'rr');
    expect(JSON.parse(readFileSync(path.join(rr, 'routing-condition.json'), 'utf8'))).toMatchObject({
      by: 'gymflow',
      route: 'rr',
      strategy: { type: 'round_robin' },
      targets: { strong: { backend: 'mock' }, weak: { backend: 'mock' } },
    });
    const rrCalls = callRecords(rr);
    for (const c of rrCalls) expect(c.routing).toMatchObject({ by: 'gymflow', strategy: 'round_robin', session: c.rollout_id });
    expect(comparison[2].targets).toEqual({ strong: 5, weak: 5 });
    const rrTarget = new Map(rrCalls.map((c) => [c.rollout_id, c.routing!.target]));
    for (const x of lines(path.join(rr, 'rollouts.jsonl'))) expect(x.reward).toBe(rrTarget.get(x._ng_rollout_id) === 'strong' ? 1 : 0);
    expect(comparison[2].costUsd).toBeNull();

    // The table, as printed: one line per condition, each difference against the first.
    for (const c of comparison) expect(r.stdout).toMatch(new RegExp(`^${c.name}\\s+10\\s+${c.meanReward.toFixed(4)}`, 'm'));
    expect(comparison[1].vsFirst.meanDiff).toBeCloseTo(comparison[1].meanReward - comparison[0].meanReward, 10);
  }, 900_000);

  it('refuses a deployment Switchyard cannot load before anything starts, naming the file', async () => {
    const bad = path.join(dir, 'bad.toml');
    await writeFile(bad, deploymentToml(upstream.url, KEY_ENV).replace('target = "strong"', 'target = "nowhere"'));
    const out = path.join(dir, 'bad-run');
    const r = await gym(['eval', 'run', '--env', 'mcqa', '--input', MCQA, '--output', out, '--model', 'switchyard', '--model-name', 'fixed', '--switchyard-deployment', bad], {
      ...env,
      [KEY_ENV]: 'k',
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`switchyard deployment ${bad}: refused by nemo-switchyard 0.3.0`);
    expect(r.stderr).toContain('nowhere');
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(path.join(out, 'manifest.json'))).toBe(false);
    const noRoute = await gym(['eval', 'run', '--env', 'mcqa', '--input', MCQA, '--output', out, '--model', 'switchyard', '--model-name', 'gone', '--switchyard-deployment', deployment], {
      ...env,
      [KEY_ENV]: 'k',
    });
    expect(noRoute.code).toBe(3);
    expect(noRoute.stderr).toContain(`switchyard deployment ${deployment}: routes: no route has id "gone"`);
  }, 300_000);
});

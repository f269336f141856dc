// Auditing runs on a real dev server, with the `gym` commands run in-process: list filters, history
// export with its per-rollout summary, replay (clean, and a tampered history reported as non-deterministic),
// one rollout shown end to end, resume refusing a run whose identity changed unless --force, and the
// run exported as training responses checked against the call log.
import { cpSync, existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunConfig } from '../../src/runs/manifest';
import { runWorkflowId } from '../../workflows/definitions';
import { gymHere } from '../helpers/gym-here';
import { runConfig, runInProcess, startRunWorkflow, tempDir } from '../helpers/run';
import { startTestServer, type TestServer } from '../helpers/temporal-server';
import { expectTrainingMatchesCallLog, returnedTokens } from '../helpers/training-check';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/nemo-gym');
const readJsonl = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, any>);

let server: TestServer;
/** The one real run every audit test reads: multi-turn, two repeats, shards continuing as new. */
let audited: RunConfig;
/** A run whose workflow was started and terminated before any worker took it: interrupted. */
let interrupted: RunConfig;

beforeAll(async () => {
  server = await startTestServer();
  process.env.TEMPORAL_ADDRESS = server.address;
  process.env.GYMFLOW_HOME = server.dir;
  audited = runConfig({
    runDir: await tempDir('gymflow-audit-'),
    envName: 'example_multi_step',
    inputFile: path.join(FIXTURES, 'example_multi_step/example.jsonl'),
    limit: 3,
    numRepeats: 2,
    concurrency: 2,
    stepsPerExecution: 3,
    model: { accuracy: 0.5, seed: 5 },
  });
  await runInProcess(server, audited);
  const dir = await tempDir('gymflow-audit-resume-');
  const input = path.join(dir, 'input.jsonl');
  await copyFile(path.join(FIXTURES, 'mcqa/example.jsonl'), input);
  interrupted = runConfig({ runDir: path.join(dir, 'run'), envName: 'mcqa', inputFile: input, limit: 2 });
  await startRunWorkflow(server, interrupted);
});
afterAll(async () => {
  delete process.env.TEMPORAL_ADDRESS;
  await server?.stop();
});

describe('gym eval list', () => {
  const listed = async (...flags: string[]) => {
    const r = await gymHere(['eval', 'list', '--json', ...flags]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    return (JSON.parse(r.stdout) as { run: string }[]).map((x) => x.run);
  };

  it('filters by environment, agent, model and status', async () => {
    expect((await listed()).sort()).toEqual([audited.runId, interrupted.runId].sort());
    expect(await listed('--env', 'example_multi_step')).toEqual([audited.runId]);
    expect(await listed('--env', 'mcqa')).toEqual([interrupted.runId]);
    expect(await listed('--model', 'mock:mcqa')).toEqual([interrupted.runId]);
    expect(await listed('--model', 'example_multi_step')).toEqual([audited.runId]);
    expect((await listed('--agent', 'simple_agent')).sort()).toEqual([audited.runId, interrupted.runId].sort());
    expect(await listed('--agent', 'no_such_agent')).toEqual([]);
    expect(await listed('--status', 'completed')).toEqual([audited.runId]);
    expect(await listed('--status', 'running')).toEqual([interrupted.runId]);
    expect(await listed('--status', 'completed', '--env', 'mcqa')).toEqual([]);
    const bad = await gymHere(['eval', 'list', '--status', 'finished']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--status must be one of running, paused, completed/);
  });
});

describe('gym eval show, history and replay', () => {
  const records = () => readJsonl(path.join(audited.runDir, 'rollouts.jsonl'));
  const callsOf = (id: string) =>
    readdirSync(path.join(audited.runDir, 'model_calls'))
      .filter((f) => f.endsWith('.jsonl'))
      .flatMap((f) => readJsonl(path.join(audited.runDir, 'model_calls', f)))
      .filter((c) => c.rollout_id === id);

  it('shows one rollout from the live histories and the run store', async () => {
    const record = records().find((r) => r._gf_diagnostics.turns > 1)!;
    const id = record._ng_rollout_id as string;
    const r = await gymHere(['eval', 'show', audited.runDir, '--rollout', id, '--json']);
    expect(r.code).toBe(0);
    const shown = JSON.parse(r.stdout);
    expect(shown.history_source).toBe('fetched from Temporal');
    expect(shown.record.reward).toBe(record.reward);
    expect(shown.calls.map((c: any) => c.call_id).sort()).toEqual(
      callsOf(id)
        .map((c) => c.call_id)
        .sort(),
    );
    expect(shown.calls.map((c: any) => c.call_id).sort()).toEqual([...record._gf_model_call_ids].sort());
    // The history's steps: one per model turn, then verify, which recorded the same reward.
    expect(shown.history.steps).toHaveLength(record._gf_diagnostics.turns + 1);
    expect(shown.history.steps.at(-1)).toMatchObject({ step: 'verify', outcome: 'recorded', reward: record.reward });
    expect(shown.journal).toEqual([]);

    const text = await gymHere(['eval', 'show', audited.runDir, '--rollout', id]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`reward ${record.reward}`));
    expect(text.stdout).toMatch(new RegExp(`model calls \\(model_calls/\\): ${record._gf_model_call_ids.length}`));
    expect(text.stdout).toMatch(/step verify: recorded/);

    expect((await gymHere(['eval', 'show', audited.runDir, '--rollout', '99-0'])).code).toBe(4);
    const badId = await gymHere(['eval', 'show', audited.runDir, '--rollout', '0-7']);
    expect(badId.code).toBe(2);
    expect(badId.stderr).toMatch(/repeat below 2/);
  });

  it('exports every history of the run with a per-rollout summary', async () => {
    const r = await gymHere(['eval', 'history', audited.runDir]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/retention/);
    const dir = path.join(audited.runDir, 'histories');
    const files = readdirSync(dir).filter((f) => f.includes('--'));
    // The whole chain: the run completed, and its one shard continued as new until its last execution completed.
    const ends = files.map((f) => {
      const events = JSON.parse(readFileSync(path.join(dir, f), 'utf8')).events;
      expect(events[0].eventType).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_STARTED');
      return [f.includes('~shard-') ? 'shard' : 'run', events.at(-1).eventType.replace('EVENT_TYPE_WORKFLOW_EXECUTION_', '')];
    });
    expect(ends.filter(([kind]) => kind === 'run')).toEqual([['run', 'COMPLETED']]);
    const shardEnds = ends.filter(([kind]) => kind === 'shard').map(([, end]) => end);
    expect(shardEnds.length).toBeGreaterThan(2);
    expect(shardEnds.filter((e) => e === 'COMPLETED')).toHaveLength(1);
    expect(shardEnds.filter((e) => e === 'CONTINUED_AS_NEW')).toHaveLength(shardEnds.length - 1);

    const summary = JSON.parse(readFileSync(path.join(dir, 'summary.json'), 'utf8'));
    const byId = new Map(summary.rollouts.map((s: any) => [s.rollout_id, s]));
    expect([...byId.keys()].sort()).toEqual(
      records()
        .map((x) => x._ng_rollout_id)
        .sort(),
    );
    for (const rec of records()) {
      const s = byId.get(rec._ng_rollout_id) as any;
      expect(s).toMatchObject({ outcome: 'recorded', reward: rec.reward, stored: { file: 'rollouts.jsonl', reward: rec.reward } });
      expect(s.steps).toHaveLength(rec._gf_diagnostics.turns + 1);
    }
    // Shards continued as new every 3 rounds, so some rollout was driven by more than one execution.
    expect(summary.rollouts.some((s: any) => new Set(s.steps.map((x: any) => x.execution)).size > 1)).toBe(true);
    const text = readFileSync(path.join(dir, 'summary.txt'), 'utf8');
    for (const rec of records()) expect(text).toMatch(new RegExp(`^${rec._ng_rollout_id} .*recorded, reward ${rec.reward}`, 'm'));
  });

  it('replays the exported histories, and reports a tampered one as non-deterministic', async () => {
    const clean = await gymHere(['eval', 'replay', audited.runDir]);
    expect(clean.stderr).toBe('');
    expect(clean.code).toBe(0);
    const files = readdirSync(path.join(audited.runDir, 'histories')).filter((f) => f.includes('--'));
    expect(clean.stdout.match(/^ok /gm)).toHaveLength(files.length);

    // A copy of the run whose run-workflow history has one event's type changed.
    const copy = await tempDir('gymflow-audit-tampered-');
    cpSync(path.join(audited.runDir, 'manifest.json'), path.join(copy, 'manifest.json'));
    cpSync(path.join(audited.runDir, 'histories'), path.join(copy, 'histories'), { recursive: true });
    const runFile = files.find((f) => !f.includes('~shard-'))!;
    const history = JSON.parse(readFileSync(path.join(copy, 'histories', runFile), 'utf8'));
    const scheduled = history.events.find((e: any) => e.eventType === 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED');
    scheduled.eventType = 'EVENT_TYPE_TIMER_STARTED';
    writeFileSync(path.join(copy, 'histories', runFile), JSON.stringify(history));

    const tampered = await gymHere(['eval', 'replay', copy]);
    expect(tampered.code).toBe(8);
    expect(tampered.stdout).toMatch(new RegExp(`NON-DETERMINISTIC ${runWorkflowId(audited.runId)} \\(run [^)]+\\) at event ${scheduled.eventId}`));
    expect(tampered.stdout.match(/^ok /gm)).toHaveLength(files.length - 1);
    expect(tampered.stderr).toMatch(/1 of \d+ histories do not replay/);
    expect(tampered.stderr).toMatch(/Nondeterminism error/);
  });
});

describe('gym eval resume checks the run is still the same', () => {
  it('refuses a changed configuration or dataset unless --force', async () => {
    const handle = (await server.client()).workflow.getHandle(runWorkflowId(interrupted.runId));
    await handle.terminate('interrupted for the test');
    expect((await gymHere(['eval', 'list', '--json', '--status', 'terminated'])).stdout).toMatch(interrupted.runId);

    const manifestPath = path.join(interrupted.runDir, 'manifest.json');
    const original = readFileSync(manifestPath, 'utf8');
    const edited = JSON.parse(original);
    edited.config.numRepeats = 3;
    writeFileSync(manifestPath, JSON.stringify(edited));
    writeFileSync(interrupted.inputFile, readFileSync(path.join(FIXTURES, 'mcqa/example.jsonl'), 'utf8').split('\n').filter(Boolean).reverse().join('\n') + '\n');

    const refused = await gymHere(['eval', 'resume', interrupted.runDir]);
    expect(refused.code).toBe(6);
    expect(refused.stderr).toMatch(/would not resume the same run; pass --force/);
    expect(refused.stderr).toMatch(/configuration in manifest\.json .* is not the one the run started with/);
    expect(refused.stderr).toMatch(/the dataset .*input\.jsonl changed since the run started/);
    expect(existsSync(path.join(interrupted.runDir, 'tasks.jsonl'))).toBe(false);

    // Back to the recorded configuration; the dataset stays changed, so --force is still needed.
    writeFileSync(manifestPath, original);
    const stillRefused = await gymHere(['eval', 'resume', interrupted.runDir]);
    expect(stillRefused.code).toBe(6);
    expect(stillRefused.stderr).not.toMatch(/configuration in manifest/);

    const forced = await gymHere(['eval', 'resume', interrupted.runDir, '--force']);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toMatch(/rollouts: 2\/2 recorded/);
    expect(forced.stdout).toMatch(/--force: resuming although the dataset/);
    expect(readJsonl(path.join(interrupted.runDir, 'rollouts.jsonl'))).toHaveLength(2);
    const after = JSON.parse(readFileSync(manifestPath, 'utf8'));
    expect(after.replaced_identities).toHaveLength(1);
    expect(after.replaced_identities[0].identity).toBe(JSON.parse(original).identity);
    expect(after.identity).not.toBe(JSON.parse(original).identity);
  });
});

describe('gym eval export-training', () => {
  const segments = (dir: string) => readdirSync(path.join(dir, 'model_calls')).filter((f) => f.endsWith('.jsonl'));

  it('writes one training response per rollout: the backend’s generations under mask 1 with their log-probs, all else mask 0', async () => {
    const out = path.join(await tempDir('gymflow-training-'), 'training.jsonl');
    const r = await gymHere(['eval', 'export-training', audited.runDir, '--output', out]);
    expect(r.code).toBe(0);
    const records = readJsonl(path.join(audited.runDir, 'rollouts.jsonl'));
    expect(r.stdout).toContain(`training: ${out} (${records.length} rollouts, 0 masked)`);
    expect(records.some((x) => x._gf_model_call_ids.length >= 3)).toBe(true);
    const lines = expectTrainingMatchesCallLog(audited.runDir, out);
    expect(lines.every((l) => l.chains === 1)).toBe(true);
    expect(r.stdout).not.toContain('for evaluation only');
  });

  it('warns when the run played an environment that is for evaluation only', async () => {
    const copy = await tempDir('gymflow-training-eval-only-');
    for (const f of ['rollouts.jsonl', 'model_calls', 'manifest.json']) cpSync(path.join(audited.runDir, f), path.join(copy, f), { recursive: true });
    const manifest = JSON.parse(readFileSync(path.join(copy, 'manifest.json'), 'utf8'));
    manifest.config.env = { ...manifest.config.env, name: 'longmemeval' };
    writeFileSync(path.join(copy, 'manifest.json'), JSON.stringify(manifest));
    const r = await gymHere(['eval', 'export-training', copy]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^warning: longmemeval is for evaluation only: its data is a benchmark/m);
    expect(existsSync(path.join(copy, 'training.jsonl'))).toBe(true);
  });

  it('masks a rollout whose logged log-probs do not match its tokens, and names a bad record’s rollout', async () => {
    const copy = await tempDir('gymflow-training-bad-');
    cpSync(path.join(audited.runDir, 'rollouts.jsonl'), path.join(copy, 'rollouts.jsonl'));
    cpSync(path.join(audited.runDir, 'model_calls'), path.join(copy, 'model_calls'), { recursive: true });
    const [segment] = segments(copy);
    const file = path.join(copy, 'model_calls', segment!);
    const lines = readJsonl(file);
    const victim = lines.find((c) => returnedTokens(c))!;
    returnedTokens(victim).generation_log_probs.pop();
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const r = await gymHere(['eval', 'export-training', copy]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/1 masked: bad_token_metadata 1/);
    const line = readJsonl(path.join(copy, 'training.jsonl')).find((l) => l._ng_rollout_id === victim.rollout_id)!;
    expect(line).toMatchObject({ masked: true, mask_reason: 'bad_token_metadata', response_token_ids: [], response_mask: [] });
    expect(line.mask_detail).toMatch(new RegExp(`^call ${victim.call_id}: .* has \\d+ generation_token_ids but \\d+ generation_log_probs$`));

    const records = readJsonl(path.join(copy, 'rollouts.jsonl'));
    delete records[1]!.reward;
    writeFileSync(path.join(copy, 'rollouts.jsonl'), records.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const bad = await gymHere(['eval', 'export-training', copy]);
    expect(bad.code).toBe(3);
    expect(bad.stderr).toContain(`rollouts.jsonl: rollout ${records[1]!._ng_rollout_id}: reward:`);
    expect((await gymHere(['eval', 'export-training', path.join(copy, 'nope')])).code).toBe(4);
  });
});

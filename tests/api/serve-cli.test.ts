// `gym api serve` as a real subprocess, the way another service meets it: its token from a named
// environment variable, a run started and followed with @gymflow/client, and the same process's worker
// serving a run that Python started through the official temporalio SDK from the published JSON Schema.
// A configured run's model key (a fake OpenAI upstream checks it arrives) goes nowhere else; another key for
// the same model server is refused.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { GymflowClient } from '../../clients/typescript/src/index';
import { fetchRunHistories } from '../../src/audit/history-files';
import { startFakeOpenAIUpstream, type FakeOpenAIUpstream } from '../gateway/fake_openai_upstream';
import { gymHere } from '../helpers/gym-here';
import { clientsPython } from '../helpers/python-clients';
import { tempDir } from '../helpers/run';
import { startTestServer, type TestServer } from '../helpers/temporal-server';
import { spawnApiServe, type ApiProcess } from '../helpers/api-serve';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const MCQA = path.join(ROOT, 'src/environments/mcqa/data/example.jsonl');
const TOKEN = 'serve-cli-token-0123456789';
const TASK_QUEUE = 'gymflow-api-serve-test';
const CONFIG = path.join(ROOT, 'tests/fixtures/routing/three-environments.yaml');
const FAN_OUT = '+agent_map={string_match: [string_match_simple_agent, string_match_second_agent]}';

let temporal: TestServer;
let api: ApiProcess;
let runsDir: string;
let stateDir: string;
let upstream: FakeOpenAIUpstream;
/** The variable a configuration's key for model server `keyed_model` is lent under, allowed to runs. */
const KEYED_VARIABLE = 'GYMFLOW_API_KEY_KEYED_MODEL';

/** `gym api serve` on this file's folders, as first started and as started again after a crash. */
const serve = () =>
  spawnApiServe(['--port', '0', '--token-env', 'GYM_API_TOKEN', '--runs-dir', runsDir, '--state-dir', stateDir, '--task-queue', TASK_QUEUE, '--allow-secret-env', KEYED_VARIABLE], {
    GYM_API_TOKEN: TOKEN,
    TEMPORAL_ADDRESS: temporal.address,
    GYMFLOW_LOG_LEVEL: 'info',
  });

beforeAll(async () => {
  [temporal, upstream] = await Promise.all([startTestServer(), startFakeOpenAIUpstream()]);
  runsDir = await tempDir('gymflow-api-cli-runs-');
  stateDir = await tempDir('gymflow-api-cli-state-');
  api = await serve();
});

afterAll(async () => {
  await api?.stop();
  await upstream?.close();
  await temporal?.stop();
});

/** Every file's text under a folder. */
function textsUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(file).isDirectory() ? textsUnder(file) : [readFileSync(file, 'utf8')];
  });
}

/** Every string of a JSON history, and each decoded as base64 too (payload data is). */
function historyTexts(json: string): string[] {
  const out: string[] = [];
  JSON.parse(json, (_k, v: unknown) => {
    if (typeof v === 'string') out.push(v, Buffer.from(v, 'base64').toString('utf8'));
    return v;
  });
  return out;
}

describe('gym api serve', () => {
  it('listens on loopback only by default, and runs what it is sent with its own worker', async () => {
    expect(new URL(api.url).hostname).toBe('127.0.0.1');
    const gym = new GymflowClient({ baseUrl: api.url, token: TOKEN });
    const started = await gym.startRun({ env: 'mcqa', model: 'mock', input: MCQA, limit: 2 }, { idempotencyKey: 'from-the-cli-test' });
    expect(started.run_dir.startsWith(runsDir)).toBe(true);
    const end = await gym.waitForEnd(started.run_id);
    expect(end).toMatchObject({ status: 'completed', metrics: { rollouts_recorded: 2 } });
    // The log has each request, but never the token.
    expect(api.log()).toMatch(/"path":"\/v1\/runs"/);
    expect(api.log()).not.toContain(TOKEN);
  });

  it('serves a run started from Python through the temporalio SDK with the published input schema', async () => {
    const python = await clientsPython();
    const runDir = path.join(await tempDir('gymflow-api-python-'), 'run');
    const schema = path.join(ROOT, 'docs/api/run-workflow-input.schema.json');
    const { stdout } = await run(python, [path.join(import.meta.dirname, 'start_run.py'), temporal.address, TASK_QUEUE, schema, MCQA, runDir, 'from-python'], { timeout: 120_000 });
    const answer = JSON.parse(stdout) as { refused: boolean[]; result: { runDir: string; metrics: { rollouts_recorded: number } } };
    expect(answer.refused).toEqual([true, true, true]);
    expect(answer.result.runDir).toBe(runDir);
    const rows = readFileSync(path.join(runDir, 'rollouts.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { _ng_task_index: number; _ng_rollout_index: number });
    // 3 tasks × 2 repeats, each exactly once.
    expect(rows).toHaveLength(6);
    expect(new Set(rows.map((r) => `${r._ng_task_index}/${r._ng_rollout_index}`)).size).toBe(6);
    expect(answer.result.metrics.rollouts_recorded).toBe(6);
    // The run shows through the API like any other.
    const view = await new GymflowClient({ baseUrl: api.url, token: TOKEN }).getRun('from-python');
    expect(view.status).toBe('completed');
  });

  it('starts a configured multi-agent run from what gym eval run --config takes, and refuses a bad one as the CLI does', async () => {
    // Two rows of each environment, stamped with the task_source gym dataset collate gives them.
    const rowsOf = (file: string, source: string) =>
      readFileSync(path.join(ROOT, 'tests/fixtures/nemo-gym', file), 'utf8')
        .split('\n')
        .filter(Boolean)
        .slice(0, 2)
        .map((l) => ({ ...JSON.parse(l), task_source: source }));
    const input = path.join(await tempDir('gymflow-api-config-'), 'rows.jsonl');
    const rows = [...rowsOf('mcqa/example.jsonl', 'mcqa_simple_agent'), ...rowsOf('string_match/example.jsonl', 'string_match'), ...rowsOf('example_multi_step/example.jsonl', 'example_multi_step')];
    await writeFile(input, rows.map((r) => JSON.stringify(r) + '\n').join(''));
    const gym = new GymflowClient({ baseUrl: api.url, token: TOKEN });
    const started = await gym.startRun({ config_paths: [CONFIG], overrides: [FAN_OUT], input, model: 'mock', num_repeats: 2 }, { idempotencyKey: 'configured-run' });
    const end = await gym.waitForEnd(started.run_id);
    expect(end.status).toBe('completed');
    const perAgent = Object.fromEntries(Object.entries(end.metrics!.per_agent as Record<string, { rollouts_recorded: number }>).map(([a, m]) => [a, m.rollouts_recorded]));
    expect(perAgent).toEqual({ mcqa_simple_agent: 4, string_match_simple_agent: 4, string_match_second_agent: 4, example_multi_step_simple_agent: 4 });

    // Refused with the combined text `gym eval run --config` prints for the same settings, as a 400 with a JSON body.
    const bad = { config_paths: [CONFIG], split: 'benchmark', overrides: ['+agent_map={string_match: strng_match_simple_agent}'], model: 'mock' };
    const res = await fetch(`${api.url}/v1/runs`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(bad) });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const { error } = (await res.json()) as { error: { code: string; message: string; details: string[] } };
    const cli = await gymHere(['eval', 'run', '--config', CONFIG, '--env-yaml', '/dev/null', '--split', 'benchmark', '--output', path.join(runsDir, 'refused'), '--model', 'mock', bad.overrides[0]!]);
    expect(cli.code).toBe(3);
    expect(error.code).toBe('BAD_INPUT');
    expect(error.details).toHaveLength(2);
    expect(`gym: ${error.message}\n${error.details.map((d) => `  ${d}\n`).join('')}`).toBe(cli.stderr);
    // What only a configured run takes is refused without config_paths, naming the field.
    const stray = await fetch(`${api.url}/v1/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ env: 'mcqa', model: 'mock', input: MCQA, split: 'benchmark' }),
    });
    expect(stray.status).toBe(400);
    expect(await stray.json()).toEqual({ error: { code: 'BAD_INPUT', message: 'split goes with config_paths (a NeMo Gym configuration)', field: 'split' } });
    // A key written into an override is refused before the request is kept anywhere; a reference is not.
    const ledger = readdirSync(runsDir);
    const inline = await fetch(`${api.url}/v1/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        config_paths: [CONFIG],
        input,
        model: 'mock',
        request_id: 'inline-key',
        overrides: [FAN_OUT, '++policy_model.responses_api_models.openai_model.openai_api_key=sk-inline-9f3e1a'],
      }),
    });
    expect(inline.status).toBe(400);
    const refused = (await inline.json()) as { error: { message: string; field: string } };
    expect(refused.error.field).toBe('overrides');
    expect(refused.error.message).toBe(
      'overrides[1] sets policy_model.responses_api_models.openai_model.openai_api_key to a value: a request passes a key by reference (policy_model.responses_api_models.openai_model.openai_api_key=${env:VAR}, with VAR allowed by --allow-secret-env), never inline, since requests are kept in the request ledger',
    );
    expect(readdirSync(runsDir)).toEqual(ledger);
    for (const text of [...textsUnder(runsDir), ...textsUnder(stateDir), api.log()]) expect(text).not.toContain('sk-inline-9f3e1a');
  }, 240_000);

  it("lends a configuration's model key to its run and nowhere else, and refuses another key for the same model server", async () => {
    const dir = await tempDir('gymflow-api-keyed-');
    const configWith = async (name: string, key: string) => {
      const file = path.join(dir, `${name}.yaml`);
      const config = {
        mcqa: { resources_servers: { mcqa: { entrypoint: 'app.py' } } },
        mcqa_simple_agent: {
          responses_api_agents: {
            simple_agent: { entrypoint: 'app.py', resources_server: { type: 'resources_servers', name: 'mcqa' }, model_server: { type: 'responses_api_models', name: 'keyed_model' } },
          },
        },
        keyed_model: { responses_api_models: { openai_model: { entrypoint: 'app.py', openai_base_url: upstream.url, openai_api_key: key, openai_model: 'keyed-test-model' } } },
      };
      await writeFile(file, JSON.stringify(config)); // JSON is YAML
      return file;
    };
    const FIRST = 'sk-first-request-key-5b1f0c';
    const SECOND = 'sk-second-request-key-9e27d4';
    const input = path.join(dir, 'rows.jsonl');
    await writeFile(
      input,
      readFileSync(MCQA, 'utf8')
        .split('\n')
        .filter(Boolean)
        .slice(0, 1)
        .map((l) => JSON.stringify({ ...JSON.parse(l), task_source: 'mcqa_simple_agent' }) + '\n')
        .join(''),
    );
    const gym = new GymflowClient({ baseUrl: api.url, token: TOKEN });
    const started = await gym.startRun({ config_paths: [await configWith('first', FIRST)], input }, { idempotencyKey: 'keyed-first' });
    const end = await gym.waitForEnd(started.run_id);
    expect(end).toMatchObject({ status: 'completed', metrics: { rollouts_recorded: 1 } });
    // The upstream got the first request's key.
    const keyed = upstream.requests.filter((r) => r.body?.model === 'keyed-test-model');
    expect(keyed.length).toBeGreaterThan(0);
    for (const r of keyed) expect(r.headers.authorization).toBe(`Bearer ${FIRST}`);

    // Another key for the same model server: refused before anything starts, naming the server, never the keys.
    const folders = readdirSync(runsDir);
    const res = await fetch(`${api.url}/v1/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ config_paths: [await configWith('second', SECOND)], input, request_id: 'keyed-second' }),
    });
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('BAD_INPUT');
    expect(error.message).toContain(`model server "keyed_model": its key differs from the one this process already holds for that name in ${KEYED_VARIABLE}`);
    expect(error.message).not.toContain('sk-');
    expect(readdirSync(runsDir)).toEqual(folders);
    const sent = upstream.requests.length;
    // The same key again is fine (one key per name).
    const again = await gym.startRun({ config_paths: [await configWith('again', FIRST)], input }, { idempotencyKey: 'keyed-again' });
    expect((await gym.waitForEnd(again.run_id)).status).toBe('completed');
    expect(upstream.requests.slice(sent).every((r) => r.headers.authorization === `Bearer ${FIRST}`)).toBe(true);

    // Neither key is in a workflow input or history, a run's files, the request ledger, or the API's log.
    const client = await temporal.client();
    const histories = [...(await fetchRunHistories(client, started.workflow_id)), ...(await fetchRunHistories(client, again.workflow_id))];
    expect(histories.length).toBeGreaterThan(0);
    const everywhere = [...histories.flatMap((h) => historyTexts(h.json)), ...textsUnder(started.run_dir), ...textsUnder(again.run_dir), ...textsUnder(stateDir), api.log()];
    expect(everywhere.some((t) => t.includes(KEYED_VARIABLE))).toBe(true);
    for (const secret of [FIRST, SECOND]) expect(everywhere.filter((t) => t.includes(secret))).toEqual([]);
  }, 240_000);
  it('keeps every request id it answered through a SIGKILL mid-burst, refuses a second API on its state folder, and starts what it recorded when it comes up again', async () => {
    const second = await spawnApiServe(['--port', '0', '--token-env', 'GYM_API_TOKEN', '--state-dir', stateDir, '--runs-dir', runsDir, '--no-worker'], {
      GYM_API_TOKEN: TOKEN,
      TEMPORAL_ADDRESS: temporal.address,
    }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(second?.message).toMatch(new RegExp(`request ledger in \\S+ is in use by process ${api.child.pid}; give each gym api serve its own --state-dir`));

    let gym = new GymflowClient({ baseUrl: api.url, token: TOKEN });
    const body = (i: number) => ({ env: 'mcqa', model: 'mock' as const, input: MCQA, limit: 1, run_id: `crashed-${i}` });
    const sent = Array.from({ length: 30 }, (_, i) => gym.startRun(body(i), { idempotencyKey: `crashed-${i}` }).catch(() => undefined));
    // Killed once the first answer is out: the rest were being validated, recorded or answered.
    await Promise.race(sent);
    const killed = new Promise((resolve) => api.child.once('exit', resolve));
    api.child.kill('SIGKILL');
    await killed;
    const answered = (await Promise.all(sent)).map((a) => a !== undefined);
    expect(answered.filter(Boolean).length).toBeGreaterThan(0);

    // Its lock names a process that is gone: the next API takes the folder over.
    api = await serve();
    gym = new GymflowClient({ baseUrl: api.url, token: TOKEN });
    for (let i = 0; i < 30; i++) {
      const again = await gym.startRun(body(i), { idempotencyKey: `crashed-${i}` });
      expect(again.run_id).toBe(`crashed-${i}`);
      // An id answered before the crash was on disk by then: sent again, it finds its run instead of making one.
      if (answered[i]) expect(again.created, `crashed-${i}`).toBe(false);
    }
    const client = await temporal.client();
    for (let i = 0; i < 30; i++) {
      expect((await gym.waitForEnd(`crashed-${i}`)).status).toBe('completed');
      let executions = 0;
      for await (const _ of client.workflow.list({ query: `WorkflowId = "gymflow-run-crashed-${i}"` })) executions++;
      expect(executions, `crashed-${i}`).toBe(1);
    }
  }, 240_000);
});

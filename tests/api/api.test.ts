// The trigger API in-process against a real Temporal dev server and a real worker on its task queue, driven
// through the @gymflow/client package: auth, validation naming fields, a run to its metrics over server-sent
// events, idempotency (concurrent, and across an API restart), listing, steering and the OpenAPI document.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { NativeConnection } from '@temporalio/worker';
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GymflowApiError, GymflowClient, type RunRequest } from '../../clients/typescript/src/index';
import { bodySha256, RequestLedger } from '../../src/api/request-ledger';
import { RunsService } from '../../src/api/runs-service';
import { startApiServer, type ApiServer } from '../../src/api/server';
import { publishedSchemaFiles } from '../../src/api/published';
import { createGymWorker, type GymWorker } from '../../workers/worker';
import { quietLogger, tempDir } from '../helpers/run';
import { startTestServer, type TestServer } from '../helpers/temporal-server';
import { waitFor } from '../helpers/worker-process';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MCQA = path.join(ROOT, 'src/environments/mcqa/data/example.jsonl');
const TOKEN = 'test-token-0123456789abcdef';
const TASK_QUEUE = 'gymflow-api-test';

let temporal: TestServer;
let client: Client;
let connection: NativeConnection;
let worker: GymWorker;
let workerDone: Promise<unknown>;
let stopWorker: () => void;
let runsDir: string;
let stateDir: string;
let ledger: RequestLedger;
let runs: RunsService;
let api: ApiServer;
let gym: GymflowClient;

function service(): RunsService {
  return new RunsService({
    client: () => client,
    policy: { runsDir, taskQueue: TASK_QUEUE, allowedSecretEnv: new Set(['GYM_TEST_KEY']) },
    ledger,
    logger: quietLogger,
    statusCacheMs: 0,
  });
}

async function serve(): Promise<void> {
  runs = service();
  api = await startApiServer({ host: '127.0.0.1', port: 0, token: TOKEN, runs, logger: quietLogger, eventIntervalMs: 200 });
  gym = new GymflowClient({ baseUrl: api.url, token: TOKEN });
}

/** The API stopped and started again, as gym api serve does it: the ledger read back from disk, then what it holds recovered. */
async function restart(): Promise<number> {
  await api.close();
  runs.close();
  await ledger.close();
  ledger = await RequestLedger.open(path.join(stateDir, 'requests'));
  await serve();
  return runs.recover();
}

beforeAll(async () => {
  temporal = await startTestServer();
  client = await temporal.client();
  connection = await NativeConnection.connect({ address: temporal.address });
  worker = await createGymWorker({ connection, namespace: 'default', taskQueue: TASK_QUEUE, logger: quietLogger });
  workerDone = worker.run(new Promise<void>((resolve) => (stopWorker = resolve)));
  runsDir = await tempDir('gymflow-api-runs-');
  stateDir = await tempDir('gymflow-api-state-');
  ledger = await RequestLedger.open(path.join(stateDir, 'requests'));
  await serve();
});

afterAll(async () => {
  await api?.close();
  runs?.close();
  await ledger?.close();
  stopWorker?.();
  await workerDone;
  await connection?.close();
  await temporal?.stop();
});

const mcqa = (extra: Partial<RunRequest> = {}): RunRequest => ({ env: 'mcqa', model: 'mock', input: MCQA, limit: 2, num_repeats: 2, ...extra });

async function refusal(p: Promise<unknown>): Promise<GymflowApiError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(GymflowApiError);
  return e as GymflowApiError;
}

/** How many executions Temporal has of a workflow id: what "exactly one run" means. */
async function executions(workflowId: string): Promise<number> {
  let n = 0;
  for await (const _ of client.workflow.list({ query: `WorkflowId = "${workflowId}"` })) n++;
  return n;
}

describe('the edge', () => {
  it('refuses a missing or wrong token with 401, without echoing it', async () => {
    const missing = await fetch(`${api.url}/v1/runs`);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    const wrongToken = 'wrong-token-that-must-not-come-back';
    const wrong = await fetch(`${api.url}/v1/runs`, { method: 'POST', headers: { authorization: `Bearer ${wrongToken}`, 'content-type': 'application/json' }, body: JSON.stringify(mcqa()) });
    expect(wrong.status).toBe(401);
    const text = await wrong.text();
    expect(text).not.toContain(wrongToken);
    expect(JSON.parse(text).error.code).toBe('UNAUTHORIZED');
    expect((await refusal(new GymflowClient({ baseUrl: api.url, token: `${TOKEN}x` }).listRuns())).status).toBe(401);
    // The refused POST started nothing: not even its folder was made.
    expect(readdirSync(runsDir)).toEqual([]);
  });

  it('refuses a body over 1 MiB with 413, and serves the next request', async () => {
    const huge = JSON.stringify({ ...mcqa(), note: 'x'.repeat(2 << 20) });
    const res = await fetch(`${api.url}/v1/runs`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: huge }).catch((e: unknown) => e as Error);
    // The API answers before reading the rest and closes the connection; the client may see either.
    if (res instanceof Response) {
      expect(res.status).toBe(413);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('PAYLOAD_TOO_LARGE');
    } else expect(String((res as Error).cause ?? res)).toMatch(/EPIPE|ECONNRESET|closed|terminated/i);
    expect((await gym.listRuns()).runs).toBeDefined();
  });

  it('refuses a body that is not JSON with 415', async () => {
    const res = await fetch(`${api.url}/v1/runs`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'text/plain' }, body: 'env=mcqa' });
    expect(res.status).toBe(415);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('names the field at fault, in the body’s spelling', async () => {
    // A file where the run's folder would be: found at once, though the folder is made only when the run starts.
    writeFileSync(path.join(runsDir, 'a-file'), '');
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ output: 'a-file' }, 'output', /a-file is a file, not a folder/],
      [{ run_id: 'a-file' }, 'run_id', /the folder of run_id \S+a-file is a file, not a folder/],
      [{ output: 'a-file/deeper' }, 'output', /a-file\/deeper cannot be made: \S+a-file is a file/],
      [{ num_repeats: 0 }, 'num_repeats', /num_repeats/],
      [{ mock: { accuracy: 2 } }, 'mock.accuracy', /mock\.accuracy/],
      [{ env: 'no_such_env' }, 'env', /unknown environment "no_such_env"/],
      [{ concurrency: 1_000_000 }, 'concurrency', /concurrency must be an integer/],
      [{ task_queue: 'elsewhere' }, 'task_queue', /unknown field "task_queue"/],
      [{ output: '../outside' }, 'output', /inside the API's runs folder/],
      [{ model: 'openai', openai: { name: 'gpt', api_key_env: 'HOME' } }, 'openai.api_key_env', /does not lend HOME/],
      [{ input: path.join(ROOT, 'no-such.jsonl') }, '', /does not exist/],
    ];
    for (const [change, field, message] of cases) {
      const e = await refusal(gym.startRun({ ...mcqa(), ...change } as RunRequest));
      expect(e.status, JSON.stringify(change)).toBe(change.input ? 404 : 400);
      expect(e.message).toMatch(message);
      // Said in the body's terms: no flags (but the API's own flag that would allow a variable) and no CLI usage.
      expect(e.message).not.toMatch(/usage:|--(?!allow-secret-env)/);
      if (field) expect(e.field).toBe(field);
    }
    rmSync(path.join(runsDir, 'a-file'));
  });

  it('answers unknown runs and routes with 404', async () => {
    expect((await refusal(gym.getRun('no-such-run'))).status).toBe(404);
    expect((await refusal(gym.pauseRun('no-such-run'))).status).toBe(404);
    const res = await fetch(`${api.url}/v2/things`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(404);
  });
});

describe('a run started over HTTP', () => {
  it('runs to its metrics, followed by server-sent events, and is listed with the filters of gym eval list', async () => {
    const started = await gym.startRun(mcqa({ run_id: 'api-first' }));
    expect(started).toMatchObject({ run_id: 'api-first', created: true, run_dir: path.join(runsDir, 'api-first') });
    const kinds: string[] = [];
    let end;
    for await (const event of gym.events(started.run_id)) {
      kinds.push(event.type);
      if (event.type === 'end') end = event.data;
    }
    expect(kinds.at(-1)).toBe('end');
    expect(end).toMatchObject({ status: 'completed', run_id: 'api-first' });
    const rollouts = readFileSync(path.join(started.run_dir, 'rollouts.jsonl'), 'utf8').trim().split('\n');
    expect(rollouts).toHaveLength(4);
    const view = await gym.getRun('api-first');
    expect(view.metrics).toMatchObject({ rollouts_expected: 4, rollouts_recorded: 4 });

    expect((await gym.listRuns({ env: 'mcqa', status: 'completed' })).runs.map((r) => r.run)).toContain('api-first');
    expect((await gym.listRuns({ env: 'example_multi_step' })).runs.map((r) => r.run)).not.toContain('api-first');
    const bad = await refusal(gym.listRuns({ status: 'sleeping' as never }));
    expect([bad.status, bad.field]).toEqual([400, 'status']);
  });

  it('starts exactly one run for one request id sent concurrently, refuses another body under it, and keeps it across an API restart', async () => {
    const body = mcqa({ mock: { latency_ms: 1 } });
    const answers = await Promise.all(Array.from({ length: 20 }, () => gym.startRun(body, { idempotencyKey: 'nightly-42' })));
    const ids = new Set(answers.map((a) => a.run_id));
    expect(ids.size).toBe(1);
    expect(answers.filter((a) => a.created)).toHaveLength(1);
    const { run_id, workflow_id } = answers[0]!;
    // The id in the body is the same id as the header.
    expect((await gym.startRun({ ...body, request_id: 'nightly-42' })).run_id).toBe(run_id);

    const conflict = await refusal(gym.startRun({ ...body, num_repeats: 3 }, { idempotencyKey: 'nightly-42' }));
    expect([conflict.status, conflict.code, conflict.field]).toEqual([409, 'CONFLICT', 'request_id']);

    await gym.waitForEnd(run_id);
    expect(await restart()).toBe(0);
    const again = await gym.startRun(body, { idempotencyKey: 'nightly-42' });
    expect(again).toMatchObject({ run_id, created: false });
    expect(await executions(workflow_id)).toBe(1);
  });

  it('starts the run of a recorded request id whose run never started (the API stopped in between)', async () => {
    const body = mcqa({ limit: 1, num_repeats: 1, run_id: 'never-started' });
    // What the ledger holds when the API stopped after recording the request and before starting its run.
    await ledger.claim({
      request_id: 'never-started',
      body_sha256: bodySha256(body),
      request: body,
      run_id: 'never-started',
      workflow_id: 'gymflow-run-never-started',
      run_dir: path.join(runsDir, 'never-started'),
      created_at: new Date().toISOString(),
    });
    const answer = await gym.startRun(body, { idempotencyKey: 'never-started' });
    expect(answer).toMatchObject({ run_id: 'never-started', created: true });
    expect((await gym.waitForEnd('never-started')).status).toBe('completed');
    expect(await executions('gymflow-run-never-started')).toBe(1);
  });

  it('answers a new request id once it is recorded, shows the run as starting until its workflow exists, and records that it started', async () => {
    const body = mcqa({ limit: 1, num_repeats: 1, run_id: 'accepted-first' });
    const answer = await gym.startRun(body, { idempotencyKey: 'accepted-first' });
    expect(answer).toMatchObject({ run_id: 'accepted-first', created: true, request_id: 'accepted-first' });
    // Right after the answer the run is starting or already running; never unknown.
    expect(['starting', 'running', 'completed']).toContain((await gym.getRun('accepted-first')).status);
    expect((await gym.waitForEnd('accepted-first')).status).toBe('completed');
    expect(await executions('gymflow-run-accepted-first')).toBe(1);
    await waitFor(async () => ledger.read('accepted-first')?.started_at !== undefined, 'the ledger to record that the run started', 30_000);
  });

  it('starts, when it comes up, the runs of recorded requests it had not started, and gives up on one that cannot start', async () => {
    const record = (runId: string, body: RunRequest) =>
      ledger.claim({
        request_id: runId,
        body_sha256: bodySha256(body),
        request: body,
        run_id: runId,
        workflow_id: `gymflow-run-${runId}`,
        run_dir: path.join(runsDir, runId),
        created_at: new Date().toISOString(),
      });
    const good = mcqa({ limit: 1, num_repeats: 1, run_id: 'recovered' });
    await record('recovered', good);
    // Its input is gone since it was accepted: it can never start.
    const lost = mcqa({ limit: 1, num_repeats: 1, run_id: 'lost-input', input: path.join(stateDir, 'deleted.jsonl') });
    await record('lost-input', lost);
    // The API stops before it starts them; the next one reads them back from disk.
    expect(await restart()).toBe(2);
    await waitFor(async () => (await runs.view('recovered')).status === 'completed', 'the recovered run to complete', 60_000);
    expect(await executions('gymflow-run-recovered')).toBe(1);
    expect(ledger.read('recovered')?.started_at).toBeDefined();
    await waitFor(async () => (await runs.view('lost-input')).status === 'failed', 'the run that cannot start to show as failed', 30_000);
    const failed = await gym.getRun('lost-input');
    expect(failed.start_error?.code).toBe('NOT_FOUND');
    expect(failed.start_error?.message).toMatch(/deleted\.jsonl/);
    // Its request id is released: sent again, it is checked (and refused) anew.
    expect(ledger.read('lost-input')).toBeUndefined();
    expect(await executions('gymflow-run-lost-input')).toBe(0);
    // Nothing is left to recover: the start and the release were written down too.
    expect(await restart()).toBe(0);
    expect(ledger.read('recovered')?.started_at).toBeDefined();
    expect(ledger.read('lost-input')).toBeUndefined();
  });

  it('pauses, resumes and cancels a run', async () => {
    const { run_id } = await gym.startRun(mcqa({ run_id: 'api-steered', limit: 5, num_repeats: 20, concurrency: 1, mock: { latency_ms: 300 } }));
    await waitFor(async () => (await gym.getRun(run_id)).progress?.phase === 'running', 'the run to start its rollouts', 60_000);
    expect(await gym.pauseRun(run_id)).toMatchObject({ action: 'pause', sent: true });
    await waitFor(async () => (await gym.getRun(run_id)).status === 'paused', 'the run to answer that it is paused', 60_000);
    await gym.resumeRun(run_id);
    await waitFor(async () => (await gym.getRun(run_id)).progress?.paused === false, 'the run to answer that it is no longer paused', 60_000);
    await gym.cancelRun(run_id);
    const end = await gym.waitForEnd(run_id);
    expect(end.status).toBe('cancelled');
    const notRunning = await refusal(gym.pauseRun(run_id));
    expect([notRunning.status, notRunning.code]).toEqual([409, 'CONFLICT']);
  });
});

describe('the published schemas', () => {
  it('serves the committed OpenAPI document, and the committed files are what the zod schemas generate', async () => {
    const files = publishedSchemaFiles();
    for (const [file, text] of Object.entries(files)) {
      expect(readFileSync(path.join(ROOT, file), 'utf8'), `${file} is stale: run npx tsx scripts/write-api-schemas.ts`).toBe(text);
    }
    const served = (await (await fetch(`${api.url}/v1/openapi.json`)).json()) as { openapi: string; paths: Record<string, unknown> };
    expect(served).toEqual(JSON.parse(files['docs/api/openapi.json']!));
    expect(served.openapi).toBe('3.1.0');
    expect(Object.keys(served.paths)).toEqual(expect.arrayContaining(['/v1/runs', '/v1/runs/{id}', '/v1/runs/{id}/events', '/v1/runs/{id}/cancel', '/v1/runs/{id}/pause', '/v1/runs/{id}/resume']));
  });
});

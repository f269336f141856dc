// docker-compose.yml brought up for real: a private dockerd (Debian's docker.io), the images built offline by
// scripts/setup-compose.sh (Debian packages, the Go module proxy, node_modules; cached under
// .gymflow/cache/compose), then Debian's docker-compose starts PostgreSQL, the Temporal server on it, the UI,
// the gateway, the trigger API and two workers. An eval is triggered over the API with the model behind the
// compose gateway; the run's raw files must hold every task × repeat exactly once, and the run must be in
// Temporal's PostgreSQL visibility store and in the UI's listing.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awaitBackgroundSetup } from '../helpers/compose-binaries';
import { startPrivateDockerd, type TestDockerEngine } from '../helpers/docker-engine';
import { expectFaultInvariants } from '../helpers/fault-invariants';
import { releasePort, reservePort } from '../helpers/ports';
import { waitFor } from '../helpers/worker-process';

const ROOT = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
const TASKS = readFileSync(path.join(ROOT, 'src/environments/mcqa/data/example.jsonl'), 'utf8').split('\n').filter(Boolean).length;
const REPEATS = 3;

function missingTool(): string | undefined {
  if (process.getuid?.() !== 0) return 'needs root to start a private dockerd (CI runs as root)';
  for (const [tool, pkg] of [
    ['dockerd', 'docker.io'],
    ['docker-compose', 'docker-compose'],
    ['mmdebstrap', 'mmdebstrap'],
  ]) {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    } catch {
      return `${tool} is not installed (apt-get install ${pkg}; .ci/run installs it)`;
    }
  }
  return undefined;
}

let skipReason = missingTool();

let docker: Omit<TestDockerEngine, 'image'> | undefined;
let env: Record<string, string> = {};
const ports: number[] = [];
let runsDir = '';
const apiToken = 'compose-test-api-token-0123456789';
const gatewayToken = 'compose-test-gateway-token-0123456789';

const compose = (args: string[], timeout = 240_000) =>
  run('docker-compose', ['-f', path.join(ROOT, 'docker-compose.yml'), ...args], { cwd: ROOT, env: { ...process.env, ...env }, timeout, maxBuffer: 1 << 26 });

beforeAll(async () => {
  if (skipReason) return;
  await awaitBackgroundSetup('compose test');
  try {
    // The image cache: `setup-compose.sh cache-images` (CI's setup) fills the same data root.
    docker = await startPrivateDockerd(path.join(ROOT, '.gymflow/cache/compose/docker'));
  } catch (e) {
    skipReason = `dockerd cannot run here: ${(e as Error).message}`;
    return;
  }
  const dockerHost = `unix://${docker.socketPath}`;
  const t0 = Date.now();
  // What a killed earlier run left in the cache's daemon: its containers and the stack's volume.
  for (const c of await docker.engine.json<{ Id: string }[]>('GET', '/containers/json', { query: { all: true } })) {
    await docker.engine.json('DELETE', `/containers/${c.Id}`, { query: { force: true, v: true } });
  }
  await docker.engine.json('POST', '/volumes/prune');
  // Images whose inputs did not change since CI's setup (or the last run) are not built again; a first local
  // run builds the parts for minutes.
  await run('bash', [path.join(ROOT, 'scripts/setup-compose.sh'), 'images'], { cwd: ROOT, env: { ...process.env, DOCKER_HOST: dockerHost }, timeout: 1_500_000, maxBuffer: 1 << 26 });
  const names = [
    'POSTGRES_PORT',
    'TEMPORAL_PORT',
    'TEMPORAL_HTTP_PORT',
    'TEMPORAL_HISTORY_PORT',
    'TEMPORAL_MATCHING_PORT',
    'TEMPORAL_WORKER_PORT',
    'TEMPORAL_FRONTEND_MEMBERSHIP_PORT',
    'TEMPORAL_HISTORY_MEMBERSHIP_PORT',
    'TEMPORAL_MATCHING_MEMBERSHIP_PORT',
    'TEMPORAL_WORKER_MEMBERSHIP_PORT',
    'TEMPORAL_UI_PORT',
    'GATEWAY_PORT',
    'API_PORT',
  ];
  for (const _ of names) ports.push(await reservePort());
  runsDir = mkdtempSync(path.join(os.tmpdir(), 'gymflow-compose-runs-'));
  env = {
    DOCKER_HOST: dockerHost,
    COMPOSE_PROJECT_NAME: `gymflow-compose-${process.pid}`,
    GYMFLOW_RUNS_DIR: runsDir,
    GYM_API_TOKEN: apiToken,
    GYMFLOW_GATEWAY_TOKEN: gatewayToken,
    ...Object.fromEntries(names.map((n, i) => [n, String(ports[i])])),
  };
  const t1 = Date.now();
  await compose(['up', '-d']);
  console.log(`compose test: images ${Math.round((t1 - t0) / 1000)} s, docker-compose up ${Math.round((Date.now() - t1) / 1000)} s`);
}, 1_800_000);

afterAll(async () => {
  if (docker) {
    await compose(['down', '-v', '--timeout', '10']).catch((e: Error) => console.error(`docker-compose down: ${e.message}`));
    await docker.stop();
  }
  for (const p of ports) releasePort(p);
  if (runsDir) rmSync(runsDir, { recursive: true, force: true });
}, 180_000);

const port = (name: string) => Number(env[name]);

async function api<T>(method: string, route: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(`http://127.0.0.1:${port('API_PORT')}${route}`, {
    method,
    headers: { authorization: `Bearer ${apiToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, body: (await response.json()) as T };
}

async function logs(service: string): Promise<string> {
  const { stdout } = await compose(['logs', '--no-color', service], 60_000);
  return stdout;
}

describe('docker-compose.yml with images built offline', () => {
  it('runs an eval triggered over its API, on its workers, with its gateway as the model and Temporal on PostgreSQL', async (ctx) => {
    if (skipReason) return ctx.skip(skipReason);
    // Each worker replica is up (the compose file asks for two).
    const { stdout: workerIds } = await compose(['ps', '-q', 'worker'], 60_000);
    expect(workerIds.trim().split('\n')).toHaveLength(2);

    await waitFor(async () => (await fetch(`http://127.0.0.1:${port('API_PORT')}/v1/openapi.json`).catch(() => undefined))?.ok === true, 'the API to serve', 120_000);
    let model = '';
    await waitFor(async () => (model = /model (mock-mcqa-\S+)/.exec(await logs('gateway'))?.[1] ?? '') !== '', 'the gateway to name its model', 120_000);

    const started = await api<{ run_id: string; workflow_id: string; run_dir: string; created: boolean }>('POST', '/v1/runs', {
      env: 'mcqa',
      input: '/app/src/environments/mcqa/data/example.jsonl',
      num_repeats: REPEATS,
      concurrency: 4,
      model: 'openai',
      openai: { url: `http://127.0.0.1:${port('GATEWAY_PORT')}/v1`, name: model, api_key_env: 'GYMFLOW_GATEWAY_TOKEN' },
      output: 'compose-eval',
      request_id: 'compose-eval-1',
    });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    expect(started.body.run_dir).toBe('/runs/compose-eval');

    let view: { status: string; metrics?: { coverage?: number } } = { status: '' };
    await waitFor(
      async () => {
        view = (await api<typeof view>('GET', `/v1/runs/${started.body.run_id}`)).body;
        if (view.status === 'failed' || view.status === 'cancelled') throw new Error(`the run ended ${view.status}: ${JSON.stringify(view)}`);
        return view.status === 'completed';
      },
      'the run to complete',
      240_000,
    );

    // The raw files, written by the workers into the host folder the compose file mounts.
    const runDir = path.join(runsDir, 'compose-eval');
    const { records } = await expectFaultInvariants(runDir, { tasks: TASKS, repeats: REPEATS, env: 'mcqa' });
    expect(records).toHaveLength(TASKS * REPEATS);
    expect(view.metrics?.coverage).toBe(1);

    // The workflow went through the Temporal server's PostgreSQL: it is in the visibility store as completed (2).
    const { stdout: visibility } = await compose(
      [
        'exec',
        '-T',
        '-e',
        'PGPASSWORD=temporal',
        'postgresql',
        '/usr/lib/postgresql/15/bin/psql',
        '-h',
        '127.0.0.1',
        '-p',
        env.POSTGRES_PORT!,
        '-U',
        'temporal',
        '-d',
        'temporal_visibility',
        '-Atc',
        `select status from executions_visibility where workflow_id = '${started.body.workflow_id}'`,
      ],
      60_000,
    );
    expect(visibility.trim()).toBe('2');

    // No service died on the way (each restarts on failure, which would hide it).
    const { stdout: ids } = await compose(['ps', '-q'], 60_000);
    const { stdout: restarts } = await run('docker', ['inspect', '-f', '{{.Name}} {{.RestartCount}}', ...ids.trim().split('\n')], { env: { ...process.env, ...env } });
    expect(
      restarts
        .trim()
        .split('\n')
        .filter((l) => !l.endsWith(' 0')),
    ).toEqual([]);

    // The UI server answers with the run, read through its own connection to the frontend.
    const ui = await fetch(`http://127.0.0.1:${port('TEMPORAL_UI_PORT')}/api/v1/namespaces/default/workflows?query=${encodeURIComponent(`WorkflowId="${started.body.workflow_id}"`)}`);
    expect(ui.status).toBe(200);
    expect(await ui.text()).toContain(started.body.workflow_id);
  }, 600_000);
});

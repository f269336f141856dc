// The `switchyard` backend in front of a real Switchyard proxy (nemo-switchyard 0.3.0's native server,
// from scripts/setup-switchyard.sh's venv) routing to a FAKE OpenAI-compatible upstream
// (tests/helpers/fake-switchyard-upstream.ts): hosted and attached, the rollout attempt id forwarded as the
// session id, the target that served each call in its record, the routing condition and the proxy's
// stats in the run folder, and bad deployments refused with the file and field named.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import OpenAI from 'openai';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkDeployment, hostProxy, switchyardPython } from '../../src/gateway/backends/switchyard/host';
import { startGateway, type Gateway } from '../../src/gateway/server';
import { deploymentToml, startFakeSwitchyardUpstream, type FakeSwitchyardUpstream } from '../helpers/fake-switchyard-upstream';
import { authHeader, callRecords, readJsonl, runFolder } from './helpers';

const run = promisify(execFile);
const MCQA = path.resolve(import.meta.dirname, '../fixtures/nemo-gym/mcqa/example.jsonl');
const KEY_ENV = 'GYMFLOW_TEST_SWITCHYARD_UPSTREAM_KEY';
const tasks = readJsonl<{ responses_create_params: { input: unknown } }>(MCQA);

let upstream: FakeSwitchyardUpstream;
let dir: string;
let deployment: string;
let installed: string;

beforeAll(async () => {
  // The wheel comes from PyPI through the setup script, as CI installs it.
  await run('bash', [path.resolve(import.meta.dirname, '../../scripts/setup-switchyard.sh')], { timeout: 600_000 }).catch((e) => {
    throw new Error(`bash scripts/setup-switchyard.sh failed (it installs nemo-switchyard==0.3.0 from PyPI): ${e.message}`);
  });
  installed = (await run(switchyardPython(), ['-c', 'import importlib.metadata as m; print(m.version("nemo-switchyard"))'])).stdout.trim();
  process.env[KEY_ENV] = 'fake-upstream-key';
  upstream = await startFakeSwitchyardUpstream({ env: 'mcqa', tasksFile: MCQA, targets: { 'fake/strong': 1, 'fake/weak': 0 } });
  dir = await mkdtemp(path.join(tmpdir(), 'gymflow-switchyard-'));
  deployment = path.join(dir, 'routes.toml');
  // An unused client with a key inline in its headers: the condition record must not carry it.
  await writeFile(
    deployment,
    `${deploymentToml(upstream.url, KEY_ENV)}\n[llm_clients.unused]\nformat = "openai_chat"\nbase_url = "http://127.0.0.1:9/v1"\n[llm_clients.unused.extra_headers]\nAuthorization = "Bearer sk-inline-secret-123"\nX-Team = "evals"\n`,
  );
}, 700_000);
afterAll(async () => {
  await upstream?.close();
  delete process.env[KEY_ENV];
});

async function callScoped(gateway: Gateway, runDir: string, model: string, rolloutId: string, task: number): Promise<any> {
  const { baseUrl } = gateway.registerRollout({ rollout_id: rolloutId, attempt: 2, run_dir: runDir, model });
  const res = await fetch(`${baseUrl}/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...authHeader(gateway) },
    body: JSON.stringify({ model: 'anything', input: tasks[task]!.responses_create_params.input }),
  });
  expect(res.status).toBe(200);
  return res.json();
}

describe('a hosted Switchyard proxy', () => {
  it('serves every call on the route, forwards the attempt id as the session id, and records who served it', async () => {
    const runDir = await runFolder();
    const proxyLog = path.join(dir, 'proxy.log');
    const gateway = await startGateway({ logger: pino({ level: 'silent' }) });
    const before = upstream.requests.length;
    let closed = false;
    try {
      // A second header Switchyard does not know: it goes on to the upstream as it is.
      const model = gateway.register({ backend: 'switchyard', model: 'routed', deployment, proxy_log_file: proxyLog, session_id_headers: ['x-switchyard-session-id', 'x-gymflow-affinity'] });
      const answers: any[] = [];
      for (let i = 0; i < 8; i++) answers.push(await callScoped(gateway, runDir, model, `${i % 5}-${i}`, i % 5));
      await gateway.close();
      closed = true;
      const forwarded = upstream.requests.slice(before);
      expect(forwarded).toHaveLength(8);
      const records = await callRecords(runDir);
      expect(records).toHaveLength(8);
      for (const r of records) {
        expect(r.backend).toBe('switchyard');
        expect(r.routing).toMatchObject({ by: 'switchyard', route: 'routed', session: r.rollout_attempt_id });
      }
      // Calls were made one at a time: the upstream's requests are the records' calls in order, target for target.
      const ordered = [...records].sort((a, b) => a.started_at! - b.started_at!);
      expect(ordered.map((r) => r.routing!.target)).toEqual(forwarded.map((f) => f.model));
      expect(new Set(records.map((r) => r.routing!.target))).toEqual(new Set(['fake/strong', 'fake/weak']));
      // 0.3.0 reads the session headers and passes no caller header on, not even one it does not know
      // (asserted so an upgrade that changes it is seen).
      for (const f of forwarded) {
        expect(f.headers['x-switchyard-session-id']).toBeUndefined();
        expect(f.headers['x-gymflow-affinity']).toBeUndefined();
        expect(f.headers.authorization).toBe('Bearer fake-upstream-key');
      }
      // The proxy's own request log: each attempt id is the session it routed, to the target its record names.
      const handled = [...readFileSync(proxyLog, 'utf8').matchAll(/LLM request handled .*selected_model="([^"]*)".*session_id="([^"]*)"/g)].map((m) => ({ target: m[1], session: m[2] }));
      expect(handled).toEqual(ordered.map((r) => ({ target: r.routing!.target, session: r.rollout_attempt_id })));

      const condition = JSON.parse(readFileSync(path.join(runDir, 'switchyard-condition.json'), 'utf8'));
      expect(condition).toMatchObject({
        route: 'routed',
        mode: 'hosted',
        deployment_path: deployment,
        deployment_sha256: createHash('sha256').update(readFileSync(deployment)).digest('hex'),
        nemo_switchyard_version: installed,
        session_id_headers: ['x-switchyard-session-id', 'x-gymflow-affinity'],
      });
      expect(condition.proxy_root_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(condition.deployment_toml).not.toContain('sk-inline-secret-123');
      expect(condition.deployment_toml).toContain('Authorization = "<redacted>"');
      expect(condition.deployment_toml).toContain('X-Team = "<redacted>"');
      expect(condition.deployment_toml).toContain(`api_key_env = "${KEY_ENV}"`);
      expect(JSON.stringify(condition)).not.toContain('fake-upstream-key');

      const stats = JSON.parse(readFileSync(path.join(runDir, 'switchyard-stats.json'), 'utf8'));
      expect(stats.mode).toBe('hosted');
      expect(stats.stats.total_requests).toBe(8);
      for (const target of ['fake/strong', 'fake/weak']) expect(stats.stats.models[target].calls).toBe(records.filter((r) => r.routing!.target === target).length);
      // Whatever the caller named, the proxy was asked for the route.
      expect([...readFileSync(proxyLog, 'utf8').matchAll(/LLM request handled .*requested_model="([^"]*)"/g)].map((m) => m[1])).toEqual(Array(8).fill('routed'));
      expect(answers.map((a) => a.model)).toEqual(ordered.map((r) => r.routing!.target));
    } finally {
      if (!closed) await gateway.close();
    }
  }, 120_000);

  it('overwrites the model with the route: a fixed route is served by its one target', async () => {
    const runDir = await runFolder();
    const gateway = await startGateway({ logger: pino({ level: 'silent' }) });
    const before = upstream.requests.length;
    try {
      const model = gateway.register({ backend: 'switchyard', model: 'fixed', deployment, api: 'chat' });
      for (let i = 0; i < 3; i++) await callScoped(gateway, runDir, model, `${i}-0`, i);
    } finally {
      await gateway.close();
    }
    expect(upstream.requests.slice(before).map((f) => f.model)).toEqual(['fake/strong', 'fake/strong', 'fake/strong']);
    expect((await callRecords(runDir)).map((r) => r.routing?.target)).toEqual(['fake/strong', 'fake/strong', 'fake/strong']);
  }, 120_000);
});

describe('a streaming caller through a hosted Switchyard proxy', () => {
  it('gets the pieces the proxy streams from its target; the record has the whole answer and the target that served it', async () => {
    const runDir = await runFolder();
    const gateway = await startGateway({ logger: pino({ level: 'silent' }) });
    const before = upstream.requests.length;
    let closed = false;
    try {
      const model = gateway.register({ backend: 'switchyard', model: 'fixed', deployment, api: 'chat' });
      const { baseUrl } = gateway.registerRollout({ rollout_id: '0-stream', attempt: 1, run_dir: runDir, model });
      const client = new OpenAI({ baseURL: baseUrl, apiKey: gateway.token, maxRetries: 0 });
      const input = tasks[0]!.responses_create_params.input as OpenAI.ChatCompletionMessageParam[];
      const stream = await client.chat.completions.create({ model: 'anything', messages: input, stream: true });
      const chunks: OpenAI.ChatCompletionChunk[] = [];
      for await (const chunk of stream) chunks.push(chunk);
      const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
      // The target's answer came in pieces (one per word), passed on as they came.
      expect(chunks.filter((c) => c.choices[0]?.delta.content).length).toBeGreaterThan(1);
      await gateway.close();
      closed = true;
      const [record] = await callRecords(runDir);
      expect(record).toMatchObject({ status: 200, stream: true, routing: { by: 'switchyard', route: 'fixed', target: 'fake/strong' } });
      expect((record!.response as any).choices[0].message.content).toBe(text);
      // The proxy streamed from its target: the caller's stream went all the way through.
      expect(upstream.requests.slice(before).map((f) => [f.model, f.stream])).toEqual([['fake/strong', true]]);
    } finally {
      if (!closed) await gateway.close();
    }
  }, 120_000);
});

describe('an attached Switchyard proxy', () => {
  it('routes through a proxy it did not start and records the condition as attached, without a version it cannot see', async () => {
    const proxy = await hostProxy(deployment, { log: pino({ level: 'silent' }) });
    const runDir = await runFolder();
    const gateway = await startGateway({ logger: pino({ level: 'silent' }) });
    try {
      const model = gateway.register({ backend: 'switchyard', model: 'fixed', base_url: `${proxy.rootUrl}/v1` });
      await callScoped(gateway, runDir, model, '0-0', 0);
      await gateway.close();
      const condition = JSON.parse(readFileSync(path.join(runDir, 'switchyard-condition.json'), 'utf8'));
      expect(condition).toMatchObject({ route: 'fixed', mode: 'attached', proxy_root_url: proxy.rootUrl, nemo_switchyard_version: null, deployment_sha256: null });
      // The proxy outlives the gateway that attached to it.
      expect((await fetch(`${proxy.rootUrl}/health`)).status).toBe(200);
    } finally {
      await proxy.stop();
    }
  }, 120_000);
});

describe('bad deployments', () => {
  const write = async (name: string, text: string) => {
    const file = path.join(dir, name);
    await writeFile(file, text);
    return file;
  };

  it('refuses at registration a deployment without the route, naming the file and field', async () => {
    const gateway = await startGateway({ logger: pino({ level: 'silent' }) });
    try {
      expect(() => gateway.register({ backend: 'switchyard', model: 'nope', deployment })).toThrow(
        `switchyard deployment ${deployment}: routes: no route has id "nope" (the spec's model); its routes: fixed, routed`,
      );
      const untitled = await write('untitled.toml', 'schema_version = 1\n[routes.broken]\ntype = "passthrough"\n');
      expect(() => gateway.register({ backend: 'switchyard', model: 'x', deployment: untitled })).toThrow(`switchyard deployment ${untitled}: routes.broken.id: missing`);
      const notToml = await write('not.toml', 'this is [not TOML');
      expect(() => gateway.register({ backend: 'switchyard', model: 'x', deployment: notToml })).toThrow(`switchyard deployment ${notToml}: not TOML`);
      expect(() => gateway.register({ backend: 'switchyard', model: 'x' })).toThrow(/deployment: give deployment .* or base_url/);
    } finally {
      await gateway.close();
    }
  });

  it("passes on Switchyard's own refusal of a deployment it cannot serve, naming the file", async () => {
    const badTarget = await write('bad-target.toml', deploymentToml(upstream.url, KEY_ENV).replace('llm_client = "fake"', 'llm_client = "missing"'));
    await expect(checkDeployment(badTarget)).rejects.toThrow(new RegExp(`^switchyard deployment ${badTarget}: refused by nemo-switchyard ${installed.replaceAll('.', '\\.')}: .*missing`));
    const noKey = await write('no-key.toml', deploymentToml(upstream.url, 'GYMFLOW_TEST_UNSET_KEY_VARIABLE'));
    await expect(checkDeployment(noKey)).rejects.toThrow(/GYMFLOW_TEST_UNSET_KEY_VARIABLE/);
    await expect(checkDeployment(deployment)).resolves.toEqual({ version: installed });
    expect(existsSync(deployment)).toBe(true);
  }, 120_000);
});

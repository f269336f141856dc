// The in-process call path: `gateway.call` runs the very route handler HTTP runs, so the worker's own
// activities get the same answers, errors, call ids and log lines without the loopback hop.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAIUpstream, type FakeOpenAIUpstream } from './fake_openai_upstream';
import { authHeader, gatewayWithLogs, MULTI_STEP_TASKS, postJson, readJsonl, type CapturedGateway } from './helpers';

const task = readJsonl(MULTI_STEP_TASKS)[0];
const KEY_ENV = 'GYMFLOW_TEST_IN_PROCESS_UPSTREAM_KEY';

let g: CapturedGateway;
let model: string;
let fake: FakeOpenAIUpstream;
beforeAll(async () => {
  process.env[KEY_ENV] = `sk-fake-${randomBytes(16).toString('hex')}`;
  g = await gatewayWithLogs();
  fake = await startFakeOpenAIUpstream();
  model = g.gateway.register({ backend: 'mock', env: 'example_multi_step', tasks_file: MULTI_STEP_TASKS, accuracy: 0.5 });
});
afterAll(async () => {
  delete process.env[KEY_ENV];
  await g.gateway.close();
  await fake.close();
});

/** A reply minus what legitimately differs between two identical calls, as JSON would carry it. */
const stable = (body: unknown) => {
  const { id: _id, created_at: _created, ...rest } = JSON.parse(JSON.stringify(body));
  return rest;
};

describe('gateway.call', () => {
  it('gives the same answer as HTTP for the same rollout, with its own call id and backend', async () => {
    const body = { ...task.responses_create_params, model };
    const http = await postJson(g.gateway, '/responses', body, { 'x-gymflow-rollout-id': 'same-1' });
    const local = await g.gateway.call({ path: '/v1/responses', body, rolloutId: 'same-1' });
    expect(http.status).toBe(200);
    expect(local.status).toBe(200);
    expect(stable(local.body)).toEqual(stable(http.body));
    expect(local.backend).toBe(http.headers.get('x-gymflow-backend'));
    expect(local.backend).toBe('mock');
    expect(local.callId).toMatch(/^[0-9a-f-]{36}$/);
    expect(local.callId).not.toBe(http.headers.get('x-gymflow-call-id'));
    const line = g.logLines().find((l) => l.call_id === local.callId && l.msg === 'gateway call');
    expect(line).toMatchObject({ rollout_id: 'same-1', status: 200, backend: 'mock', model, path: '/v1/responses' });
  });

  it('answers chat completions and the model list as HTTP does', async () => {
    const body = { model, messages: [{ role: 'user', content: 'What is the capital of France?' }] };
    const http = await postJson(g.gateway, '/chat/completions', body, { 'x-gymflow-rollout-id': 'chat-1' });
    const local = await g.gateway.call({ path: '/v1/chat/completions', body, rolloutId: 'chat-1' });
    const strip = (b: any) => ({ ...JSON.parse(JSON.stringify(b)), id: undefined, created: undefined });
    expect(local.status).toBe(http.status);
    expect(strip(local.body)).toEqual(strip(http.body));
    const models = await fetch(`${g.gateway.url}/models`, { headers: authHeader(g.gateway) });
    const list = await g.gateway.call({ path: '/v1/models' });
    expect(list).toMatchObject({ status: 200, backend: 'gateway' });
    expect(JSON.parse(JSON.stringify(list.body))).toEqual(await models.json());
  });

  it('validates and fails exactly as HTTP does', async () => {
    const cases = [
      {
        path: '/v1/responses',
        body: {
          model,
          input: [
            { role: 'user', content: 'hi' },
            { role: 'robot', content: 'x' },
          ],
        },
      },
      { path: '/v1/responses', body: { model: 'nope', input: 'hi' } },
      { path: '/v1/embeddings', body: {} },
    ];
    for (const c of cases) {
      const http = await postJson(g.gateway, c.path.replace(/^\/v1/, ''), c.body);
      const local = await g.gateway.call(c);
      expect(local.status).toBe(http.status);
      expect(local.status).toBeGreaterThanOrEqual(400);
      expect(local.body).toEqual(http.body);
    }
    const wrongMethod = await g.gateway.call({ path: '/v1/responses', method: 'GET' });
    expect(wrongMethod.status).toBe(405);
  });

  it('reports an upstream timeout as the same 504 timeout', { timeout: 60_000 }, async () => {
    fake.stall('before-headers');
    const silent = g.gateway.register({ backend: 'openai', model: 'gpt-silent', base_url: fake.url, api_key_env: KEY_ENV, timeouts: { first_byte_ms: 300 } });
    const local = await g.gateway.call({ path: '/v1/responses', body: { model: silent, input: 'hi' }, rolloutId: 'slow-1' });
    expect(local).toMatchObject({ status: 504, backend: 'openai', body: { error: { type: 'upstream_error', code: 'timeout' } } });
  });

  it('stops waiting when the caller’s signal fires, as a disconnect does over HTTP', { timeout: 60_000 }, async () => {
    const slow = g.gateway.register({ backend: 'mock', env: 'example_multi_step', tasks_file: MULTI_STEP_TASKS, latency_ms: 30_000 });
    const abort = new AbortController();
    const pending = g.gateway.call({ path: '/v1/responses', body: { ...task.responses_create_params, model: slow }, rolloutId: 'gone-2', signal: abort.signal });
    abort.abort();
    const reply = await pending;
    expect(reply.status).toBe(499);
    expect(reply.body).toMatchObject({ error: { code: 'client_closed' } });
  });
});

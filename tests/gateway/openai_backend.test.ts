// The openai backend against a FAKE OpenAI upstream (tests/gateway/fake_openai_upstream.ts): requests
// pass through with the model forced, the key is read from the named environment variable and sent as
// a bearer token, upstream failures become 502s, a silent upstream a 504 within the spec's bounds,
// and the key never shows up in replies or logs.
import { randomBytes } from 'node:crypto';
import { isGymError } from '../../src/errors';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOpenAIUpstream, type FakeOpenAIUpstream } from './fake_openai_upstream';
import { gatewayWithLogs, postJson, type CapturedGateway } from './helpers';

const KEY_ENV = 'GYMFLOW_TEST_FAKE_UPSTREAM_KEY';
const KEY = `sk-fake-${randomBytes(16).toString('hex')}`;

let g: CapturedGateway;
const upstreams: FakeOpenAIUpstream[] = [];

async function upstream(): Promise<FakeOpenAIUpstream> {
  const u = await startFakeOpenAIUpstream();
  upstreams.push(u);
  return u;
}

beforeAll(async () => {
  process.env[KEY_ENV] = KEY;
  g = await gatewayWithLogs();
});
// Each test's own log lines are checked, so a leak is pinned to the test that caused it.
let logMark = 0;
beforeEach(() => {
  logMark = g.logText().length;
});
afterEach(() => {
  expect(g.logText().slice(logMark)).not.toContain(KEY);
});
afterAll(async () => {
  delete process.env[KEY_ENV];
  await g.gateway.close();
  await Promise.all(upstreams.map((u) => u.close()));
});

describe('pass-through', () => {
  it('forwards /v1/responses with the model forced and the key from the named variable', async () => {
    const fake = await upstream();
    const model = g.gateway.register({ backend: 'openai', model: 'gpt-fake-1', base_url: fake.url, api_key_env: KEY_ENV });
    const input = [{ role: 'user', content: 'Say hello.' }];
    const res = await postJson(g.gateway, '/responses', { model, input, temperature: 0.2, metadata: { run: 'r1' } }, { 'x-gymflow-rollout-id': '3-1' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gymflow-backend')).toBe('openai');
    expect(res.headers.get('x-gymflow-call-id')).toBeTruthy();
    expect(fake.requests).toHaveLength(1);
    const sent = fake.requests[0]!;
    expect(sent).toMatchObject({ method: 'POST', path: '/v1/responses' });
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    // The caller's credential (the gateway token) stops at the gateway.
    expect(JSON.stringify(sent)).not.toContain(g.gateway.token);
    expect(sent.body).toMatchObject({ model: 'gpt-fake-1', input, temperature: 0.2, metadata: { run: 'r1' } });
    // The upstream's reply comes back as the upstream wrote it (no SDK conveniences such as output_text).
    expect(res.body).toMatchObject({ id: 'resp_fake0001', model: 'gpt-fake-1-2025-01-01', status: 'completed' });
    expect(res.body).not.toHaveProperty('output_text');
    expect(res.body.output[0].content[0].text).toBe('Hello from the fake upstream.');
    expect(JSON.stringify(res.body)).not.toContain(KEY);
  });

  it('forwards /v1/chat/completions the same way', async () => {
    const fake = await upstream();
    const model = g.gateway.register({ backend: 'openai', model: 'gpt-fake-chat', base_url: fake.url, api_key_env: KEY_ENV });
    const messages = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
    ];
    const res = await postJson(g.gateway, '/chat/completions', { model, messages, max_tokens: 16 });
    expect(res.status).toBe(200);
    expect(fake.requests[0]).toMatchObject({ path: '/v1/chat/completions', body: { model: 'gpt-fake-chat', messages, max_tokens: 16 } });
    expect(fake.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(res.body.choices[0].message.content).toBe('Hi from the fake upstream.');
  });

  it('serves Responses callers from a chat-only upstream (api: chat) through the conversion', async () => {
    const fake = await upstream();
    const model = g.gateway.register({ backend: 'openai', api: 'chat', model: 'gpt-fake-chat-only', base_url: fake.url, api_key_env: KEY_ENV });
    const input = [
      { role: 'user', content: 'Weather?' },
      { type: 'function_call', call_id: 'c1', name: 'w', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c1', output: 'sunny' },
    ];
    const res = await postJson(g.gateway, '/responses', { model, instructions: 'Be brief.', input, tools: [{ type: 'function', name: 'w' }], max_output_tokens: 50 });
    expect(res.status).toBe(200);
    expect(fake.requests.map((r) => r.path)).toEqual(['/v1/chat/completions']);
    expect(fake.requests[0]!.body).toMatchObject({
      model: 'gpt-fake-chat-only',
      max_tokens: 50,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'w', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
      ],
      tools: [{ type: 'function', function: { name: 'w' } }],
    });
    expect(res.body).toMatchObject({ object: 'response', status: 'completed', usage: { input_tokens: 9, output_tokens: 5 } });
    expect(res.body.output[0].content[0].text).toBe('Hi from the fake upstream.');
  });

  it('uses OPENAI_BASE_URL when the spec has no base_url', async () => {
    const fake = await upstream();
    const before = process.env.OPENAI_BASE_URL;
    process.env.OPENAI_BASE_URL = fake.url;
    try {
      const model = g.gateway.register({ backend: 'openai', model: 'gpt-fake-env', api_key_env: KEY_ENV });
      const res = await postJson(g.gateway, '/responses', { model, input: 'hi' });
      expect(res.status).toBe(200);
      expect(fake.requests[0]?.body.model).toBe('gpt-fake-env');
    } finally {
      if (before === undefined) delete process.env.OPENAI_BASE_URL;
      else process.env.OPENAI_BASE_URL = before;
    }
  });
});

describe('failures', () => {
  it('turns an upstream refusal into a 502 marked upstream_rejected (never retried), with its status and message, without the key', async () => {
    const fake = await upstream();
    // Real providers echo (parts of) a rejected key; the gateway must not pass it on.
    fake.failWith(401, `Incorrect API key provided: ${KEY}.`);
    const model = g.gateway.register({ backend: 'openai', model: 'gpt-fake-401', base_url: fake.url, api_key_env: KEY_ENV });
    const res = await postJson(g.gateway, '/responses', { model, input: 'hi' });
    expect(res.status).toBe(502);
    expect(res.body.error).toMatchObject({ type: 'upstream_error', code: 'upstream_rejected' });
    expect(res.body.error.message).toContain('401');
    expect(res.body.error.message).toContain('Incorrect API key provided');
    expect(JSON.stringify(res.body)).not.toContain(KEY);
  });

  it('does not retry a failing upstream behind the caller’s back', async () => {
    const fake = await upstream();
    fake.failWith(500, 'upstream exploded');
    const model = g.gateway.register({ backend: 'openai', model: 'gpt-fake-500', base_url: fake.url, api_key_env: KEY_ENV });
    const res = await postJson(g.gateway, '/chat/completions', { model, messages: [{ role: 'user', content: 'hi' }] });
    expect(res.status).toBe(502);
    expect(res.body.error.message).toContain('upstream exploded');
    expect(fake.requests).toHaveLength(1);
  });

  it("passes a rate-limited upstream's Retry-After on, over HTTP and to in-process callers", async () => {
    const fake = await upstream();
    fake.inject({ seed: 1, tooManyRequests: 1, retryAfterS: 3 });
    const model = g.gateway.register({ backend: 'openai', model: 'gpt-fake-limited', base_url: fake.url, api_key_env: KEY_ENV });
    const res = await postJson(g.gateway, '/responses', { model, input: 'hi' });
    expect(res.status).toBe(502);
    expect(res.headers.get('retry-after')).toBe('3');
    const reply = await g.gateway.call({ path: '/v1/responses', body: { model, input: 'hi again' } });
    expect(reply).toMatchObject({ status: 502, retryAfterMs: 3000 });
  });

  it('answers an unreachable upstream with 502 upstream_unreachable', async () => {
    const fake = await upstream();
    const url = fake.url;
    await fake.close();
    const model = g.gateway.register({ backend: 'openai', model: 'gpt-gone', base_url: url, api_key_env: KEY_ENV });
    const res = await postJson(g.gateway, '/responses', { model, input: 'hi' });
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('upstream_unreachable');
  });

  it('names the missing key variable (never a value) when it is unset at call time', async () => {
    const fake = await upstream();
    const model = g.gateway.register({ backend: 'openai', model: 'gpt-fake-nokey', base_url: fake.url, api_key_env: 'GYMFLOW_TEST_UNSET_KEY' });
    const res = await postJson(g.gateway, '/responses', { model, input: 'hi' });
    expect(res.status).toBe(500);
    expect(res.body.error).toMatchObject({ code: 'missing_api_key' });
    expect(res.body.error.message).toContain('GYMFLOW_TEST_UNSET_KEY');
    expect(fake.requests).toHaveLength(0);
  });

  it('rejects an upstream reply that is not a Responses object with 502', async () => {
    const fake = await upstream();
    fake.respondWith(200, { id: 'resp_x', object: 'response', output: 'not a list' });
    const model = g.gateway.register({ backend: 'openai', model: 'gpt-fake-bad', base_url: fake.url, api_key_env: KEY_ENV });
    const res = await postJson(g.gateway, '/responses', { model, input: 'hi' });
    expect(res.status).toBe(502);
    expect(res.body.error).toMatchObject({ code: 'invalid_upstream_response' });
    expect(res.body.error.message).toContain('output');
  });
});

describe('timeouts', () => {
  // Small bounds so a regression shows up as a failed test, not as undici's five-minute default.
  const GENEROUS = 60_000;

  it('answers 504 timeout when the upstream takes the request and never answers, without retrying', { timeout: GENEROUS }, async () => {
    const fake = await upstream();
    fake.stall('before-headers');
    const model = g.gateway.register({ backend: 'openai', model: 'gpt-silent', base_url: fake.url, api_key_env: KEY_ENV, timeouts: { first_byte_ms: 500, total_ms: 30_000 } });
    const res = await postJson(g.gateway, '/responses', { model, input: 'hi' });
    expect(res.status).toBe(504);
    expect(res.body.error).toMatchObject({ type: 'upstream_error', code: 'timeout' });
    expect(res.body.error.message).toContain('timeouts.first_byte_ms = 500 ms');
    expect(fake.requests).toHaveLength(1);
    const line = g.logLines().find((l) => l.msg === 'gateway call' && l.model === model);
    expect(line).toMatchObject({ status: 504, error_code: 'timeout' });
  });

  it('bounds the whole call: headers then a stalled body end in a 504 at total_ms', { timeout: GENEROUS }, async () => {
    const fake = await upstream();
    fake.stall('mid-body');
    const model = g.gateway.register({
      backend: 'openai',
      model: 'gpt-stalled-body',
      base_url: fake.url,
      api_key_env: KEY_ENV,
      timeouts: { first_byte_ms: 20_000, idle_ms: 20_000, total_ms: 800 },
    });
    const res = await postJson(g.gateway, '/chat/completions', { model, messages: [{ role: 'user', content: 'hi' }] });
    expect(res.status).toBe(504);
    expect(res.body.error.code).toBe('timeout');
    expect(res.body.error.message).toContain('timeouts.total_ms = 800 ms');
    expect(fake.requests).toHaveLength(1);
  });

  it('ends a body that goes silent at idle_ms', { timeout: GENEROUS }, async () => {
    const fake = await upstream();
    fake.stall('mid-body');
    const model = g.gateway.register({ backend: 'openai', model: 'gpt-idle', base_url: fake.url, api_key_env: KEY_ENV, timeouts: { idle_ms: 500, total_ms: 30_000 } });
    const res = await postJson(g.gateway, '/responses', { model, input: 'hi' });
    expect(res.status).toBe(504);
    expect(res.body.error.code).toBe('timeout');
    expect(res.body.error.message).toContain('timeouts.idle_ms = 500 ms');
  });

  it('refuses bounds that are not positive whole milliseconds up to an hour, naming the field', () => {
    const register = (timeouts: Record<string, unknown>) => () => g.gateway.register({ backend: 'openai', model: 'gpt-x', base_url: 'http://127.0.0.1:9/v1', timeouts });
    expect(register({ first_byte_ms: 0 })).toThrow(/timeouts\.first_byte_ms/);
    expect(register({ connect_ms: 1.5 })).toThrow(/timeouts\.connect_ms/);
    expect(register({ total_ms: 2 * 3_600_000 })).toThrow(/timeouts\.total_ms/);
    // A misspelled bound is refused rather than silently left at its default.
    expect(register({ idle: 5_000 })).toThrow(/idle/);
    expect(register({ total_ms: '10s' })).toThrow(/timeouts\.total_ms/);
    let error: unknown;
    try {
      register({ first_byte_ms: -1 })();
    } catch (e) {
      error = e;
    }
    expect(isGymError(error) && error.code).toBe('BAD_INPUT');
  });
});

// Who may call the gateway over HTTP: only a request carrying the gateway's token, with a JSON body,
// and never one a web page made. An OpenAI SDK client passes the token as its API key; the upstream
// (a FAKE OpenAI upstream, tests/gateway/fake_openai_upstream.ts) sees the worker's key, never the token.
import { randomBytes } from 'node:crypto';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isGymError } from '../../src/errors';
import { startGateway } from '../../src/gateway/server';
import { startFakeOpenAIUpstream, type FakeOpenAIUpstream } from './fake_openai_upstream';
import { authHeader, gatewayWithLogs, MULTI_STEP_TASKS, postJson, type CapturedGateway } from './helpers';

const KEY_ENV = 'GYMFLOW_TEST_ACCESS_UPSTREAM_KEY';
const KEY = `sk-fake-${randomBytes(16).toString('hex')}`;

let g: CapturedGateway;
let fake: FakeOpenAIUpstream;
let mock: string;
let upstreamModel: string;

beforeAll(async () => {
  process.env[KEY_ENV] = KEY;
  g = await gatewayWithLogs();
  fake = await startFakeOpenAIUpstream();
  mock = g.gateway.register({ backend: 'mock', env: 'example_multi_step', tasks_file: MULTI_STEP_TASKS });
  upstreamModel = g.gateway.register({ backend: 'openai', model: 'gpt-fake-access', base_url: fake.url, api_key_env: KEY_ENV });
});
afterAll(async () => {
  delete process.env[KEY_ENV];
  await g.gateway.close();
  await fake.close();
});

const hello = () => ({ model: mock, input: 'hi' });

describe('the token', () => {
  it('is refused with 401 when missing, on every route, before anything is served', async () => {
    const post = await postJson(g.gateway, '/responses', hello(), { authorization: '' });
    expect(post.status).toBe(401);
    expect(post.body.error.code).toBe('missing_gateway_token');
    const list = await fetch(`${g.gateway.url}/models`);
    expect(list.status).toBe(401);
    const unknown = await fetch(`${g.gateway.url}/embeddings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(unknown.status).toBe(401);
  });

  it('is refused with 401 when wrong, as a bearer key or as x-api-key, without echoing it', async () => {
    const guess = `guess-${randomBytes(24).toString('hex')}`;
    const bearer = await postJson(g.gateway, '/responses', hello(), { authorization: `Bearer ${guess}` });
    const apiKey = await postJson(g.gateway, '/responses', hello(), { authorization: '', 'x-api-key': guess });
    const prefix = await postJson(g.gateway, '/responses', hello(), { authorization: `Bearer ${g.gateway.token.slice(0, -1)}` });
    for (const res of [bearer, apiKey, prefix]) {
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('invalid_gateway_token');
    }
    expect(JSON.stringify(bearer.body)).not.toContain(guess);
  });

  it('is accepted as a bearer key and as x-api-key (Anthropic-style clients)', async () => {
    const bearer = await postJson(g.gateway, '/responses', hello());
    const apiKey = await postJson(g.gateway, '/responses', hello(), { authorization: '', 'x-api-key': g.gateway.token });
    expect(bearer.status).toBe(200);
    expect(apiKey.status).toBe(200);
  });

  it('works as the API key of the official openai client, and the upstream sees the worker’s key instead', async () => {
    const client = new OpenAI({ baseURL: g.gateway.url, apiKey: g.gateway.token, maxRetries: 0 });
    const response = await client.responses.create({ model: upstreamModel, input: 'Say hello.' });
    expect(response.output_text).toBe('Hello from the fake upstream.');
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toContain(upstreamModel);
    const sent = fake.requests.at(-1)!;
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.stringify(fake.requests)).not.toContain(g.gateway.token);

    const stranger = new OpenAI({ baseURL: g.gateway.url, apiKey: 'sk-not-the-token-but-long-enough-000000', maxRetries: 0 });
    await expect(stranger.responses.create({ model: upstreamModel, input: 'hi' })).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
  });

  it('is random per gateway and never written to the log', async () => {
    const other = await gatewayWithLogs();
    try {
      expect(other.gateway.token).not.toBe(g.gateway.token);
      expect(other.gateway.token.length).toBeGreaterThanOrEqual(32);
      expect((await postJson(other.gateway, '/responses', hello(), authHeader(g.gateway))).status).toBe(401);
      expect(other.logText()).toContain('gateway listening');
      expect(other.logText()).not.toContain(other.gateway.token);
    } finally {
      await other.gateway.close();
    }
    // Every call the tests above made, admitted or refused, is in this log.
    expect(g.logText()).toContain('"status":401');
    expect(g.logText()).not.toContain(g.gateway.token);
  });

  it('can be given explicitly, and a short one is refused', async () => {
    const token = `tok-${randomBytes(20).toString('hex')}`;
    const given = await gatewayWithLogs({ token });
    try {
      expect(given.gateway.token).toBe(token);
      const list = await fetch(`${given.gateway.url}/models`, { headers: { authorization: `Bearer ${token}` } });
      expect(list.status).toBe(200);
    } finally {
      await given.gateway.close();
    }
    let error: unknown;
    await startGateway({ token: 'short' }).catch((e) => (error = e));
    expect(isGymError(error) && error.code).toBe('BAD_INPUT');
  });
});

describe('the request', () => {
  it('must have a JSON content type: text/plain (which a web page may send anywhere) gets 415', async () => {
    const body = JSON.stringify(hello());
    const plain = await postJson(g.gateway, '/responses', body, { 'content-type': 'text/plain' });
    expect(plain.status).toBe(415);
    expect(plain.body.error.code).toBe('unsupported_media_type');
    const none = await fetch(`${g.gateway.url}/chat/completions`, { method: 'POST', headers: authHeader(g.gateway), body: new Blob([body]) });
    expect(none.status).toBe(415);
    const charset = await postJson(g.gateway, '/responses', body, { 'content-type': 'application/json; charset=utf-8' });
    expect(charset.status).toBe(200);
  });

  it('is refused with 403 when a browser made it for a page, even with the token', async () => {
    const origin = await postJson(g.gateway, '/responses', hello(), { origin: 'https://evil.example' });
    const nullOrigin = await postJson(g.gateway, '/responses', hello(), { origin: 'null' });
    const crossSite = await postJson(g.gateway, '/responses', hello(), { 'sec-fetch-site': 'cross-site' });
    const sameOrigin = await fetch(`${g.gateway.url}/models`, { headers: { ...authHeader(g.gateway), 'sec-fetch-site': 'same-origin' } });
    for (const res of [origin, nullOrigin, crossSite]) {
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('browser_origin');
    }
    expect(sameOrigin.status).toBe(403);
    // A user typing the address (Sec-Fetch-Site: none) is not a page acting on its own.
    const typed = await postJson(g.gateway, '/responses', hello(), { 'sec-fetch-site': 'none' });
    expect(typed.status).toBe(200);
  });
});

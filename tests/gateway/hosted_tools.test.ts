// Codex's real first request (tests/fixtures/harness-requests) through the gateway's Responses edge:
// its `namespace` tool and hosted `web_search` reach an upstream Responses API unchanged (a FAKE OpenAI
// upstream, tests/gateway/fake_openai_upstream.ts), and are left out for the mock and for a chat-only upstream.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAIUpstream, type FakeOpenAIUpstream } from './fake_openai_upstream';
import { gatewayWithLogs, MULTI_STEP_TASKS, postJson, type CapturedGateway } from './helpers';

const CODEX = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../fixtures/harness-requests/codex-first-tool-request.json'), 'utf8')) as { path: string; body: any };
const KEY_ENV = 'GYMFLOW_TEST_HOSTED_TOOLS_KEY';
const tools: any[] = CODEX.body.tools;
const hosted = tools.filter((t) => t.type !== 'function');
const functions = tools.filter((t) => t.type === 'function');

let g: CapturedGateway;
let fake: FakeOpenAIUpstream;
beforeAll(async () => {
  process.env[KEY_ENV] = `sk-fake-${randomBytes(8).toString('hex')}`;
  g = await gatewayWithLogs();
  fake = await startFakeOpenAIUpstream();
});
afterAll(async () => {
  delete process.env[KEY_ENV];
  await g?.gateway.close();
  await fake?.close();
});

/** Codex's request as it sent it, but non-streaming (so the reply is one JSON body) and for `model`. */
function codexRequest(model: string) {
  return { ...CODEX.body, model, stream: false };
}

it('the captured request has the tools this is about', () => {
  expect(CODEX.path).toBe('/v1/responses');
  expect(hosted.map((t) => t.type).sort()).toEqual(['namespace', 'web_search']);
  expect(functions.length).toBeGreaterThan(0);
});

describe('an upstream Responses API', () => {
  it('gets the namespace and hosted tools exactly as codex sent them', async () => {
    const model = g.gateway.register({ backend: 'openai', model: 'gpt-fake-hosted', base_url: fake.url, api_key_env: KEY_ENV });
    const before = fake.requests.length;
    const res = await postJson(g.gateway, '/responses', codexRequest(model));
    expect(res.status).toBe(200);
    const sent = fake.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.path).toBe('/v1/responses');
    expect(sent[0]!.body.tools).toEqual(tools);
  });
});

describe('a backend that cannot take them', () => {
  it('the mock answers codex, the hosted tools left out of what it was offered', async () => {
    const model = g.gateway.register({ backend: 'mock', env: 'example_multi_step', tasks_file: MULTI_STEP_TASKS });
    const res = await postJson(g.gateway, '/responses', codexRequest(model));
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('completed');
    // The mock echoes the tools it was given, as the Responses API does.
    expect(res.body.tools.map((t: any) => t.name)).toEqual(functions.map((t) => t.name));
  });

  it('a chat-only upstream gets the function tools only', async () => {
    const model = g.gateway.register({ backend: 'openai', api: 'chat', model: 'gpt-fake-chat', base_url: fake.url, api_key_env: KEY_ENV });
    const before = fake.requests.length;
    const res = await postJson(g.gateway, '/responses', codexRequest(model));
    expect(res.status).toBe(200);
    const [sent] = fake.requests.slice(before);
    expect(sent!.path).toBe('/v1/chat/completions');
    expect(sent!.body.tools.map((t: any) => t.function.name)).toEqual(functions.map((t) => t.name));
  });
});

it('still refuses a function tool without a name, naming the field', async () => {
  const model = g.gateway.register({ backend: 'mock', env: 'example_multi_step', tasks_file: MULTI_STEP_TASKS });
  const res = await postJson(g.gateway, '/responses', { model, input: 'Hi', tools: [{ type: 'function', parameters: {} }] });
  expect(res.status).toBe(400);
  expect(res.body.error.param).toMatch(/^tools/);
});

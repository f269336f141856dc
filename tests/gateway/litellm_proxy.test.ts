// The `openai` backend in front of a real LiteLLM proxy (PyPI litellm[proxy]), which forwards to a FAKE
// OpenAI upstream on loopback: whole and streamed Chat Completions answers come back through both hops,
// the upstream's pieces reach a streaming caller while it is still generating, the call log holds the
// answer, LiteLLM's own key stays between LiteLLM and the upstream, and an upstream refusal comes back
// with a clear class.
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startLiteLLMProxy, type LiteLLMProxy } from '../helpers/litellm-proxy';
import { startFakeOpenAIUpstream, type FakeOpenAIUpstream } from './fake_openai_upstream';
import { callRecords, gatewayWithLogs, postJson, runFolder, type CapturedGateway } from './helpers';

const UPSTREAM_KEY_ENV = 'GYMFLOW_TEST_LITELLM_UPSTREAM_KEY';
const PROXY_KEY_ENV = 'GYMFLOW_TEST_LITELLM_PROXY_KEY';
const TEXT = 'Hi from the fake upstream.';

let g: CapturedGateway;
let fake: FakeOpenAIUpstream;
let proxy: LiteLLMProxy;
let model: string;

beforeAll(async () => {
  process.env[UPSTREAM_KEY_ENV] = 'sk-upstream-behind-litellm';
  fake = await startFakeOpenAIUpstream();
  proxy = await startLiteLLMProxy({ modelName: 'team-model', upstreamModel: 'gpt-fake', upstreamUrl: fake.url, upstreamKeyEnv: UPSTREAM_KEY_ENV });
  process.env[PROXY_KEY_ENV] = proxy.masterKey;
  g = await gatewayWithLogs();
  model = g.gateway.register({ backend: 'openai', model: 'team-model', api: 'chat', base_url: proxy.url, api_key_env: PROXY_KEY_ENV });
}, 900_000);
afterEach(() => fake.recover());
afterAll(async () => {
  await g?.gateway.close();
  await proxy?.close();
  await fake?.close();
  delete process.env[UPSTREAM_KEY_ENV];
  delete process.env[PROXY_KEY_ENV];
});

describe('through a real LiteLLM proxy', () => {
  it('answers whole Chat Completions and Responses calls, the upstream seeing LiteLLM with its own key', async () => {
    const runDir = await runFolder();
    const { baseUrl } = g.gateway.registerRollout({ rollout_id: 'litellm-0', attempt: 1, run_dir: runDir, model });
    const client = new OpenAI({ baseURL: baseUrl, apiKey: g.gateway.token, maxRetries: 0 });
    const chat = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Hi' }], temperature: 0.25 });
    expect(chat.choices[0]!.message.content).toBe(TEXT);
    expect(chat.usage).toMatchObject({ prompt_tokens: 9, completion_tokens: 5 });

    // A Responses caller is served through the conversion, over LiteLLM's Chat Completions.
    const response = await client.responses.create({ model, input: 'Hi again' });
    expect(response.output_text).toBe(TEXT);

    const upstream = fake.requests.filter((r) => r.path === '/v1/chat/completions');
    expect(upstream).toHaveLength(2);
    expect(upstream[0]!.body).toMatchObject({ model: 'gpt-fake', temperature: 0.25, messages: [{ role: 'user', content: 'Hi' }] });
    expect(upstream[0]!.headers.authorization).toBe('Bearer sk-upstream-behind-litellm');
    expect(upstream[1]!.body.messages).toEqual([{ role: 'user', content: 'Hi again' }]);

    const records = await callRecords(runDir);
    expect(records.map((r) => [r.route, r.status, r.backend])).toEqual([
      ['/v1/chat/completions', 200, 'openai'],
      ['/v1/responses', 200, 'openai'],
    ]);
    expect(JSON.stringify(records)).not.toContain(proxy.masterKey);
  });

  it('passes the upstream pieces through LiteLLM to a streaming caller while the upstream generates', async () => {
    const hold = fake.holdStreams();
    const client = new OpenAI({ baseURL: g.gateway.url, apiKey: g.gateway.token, maxRetries: 0 });
    const stream = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Stream it' }], stream: true, stream_options: { include_usage: true } });
    const iterator = stream[Symbol.asyncIterator]();
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    const firstPiece = (async () => {
      await hold.firstPieceSent;
      for (;;) {
        const { value, done } = await iterator.next();
        if (done) throw new Error('the stream ended before its first piece');
        chunks.push(value);
        if (value.choices[0]?.delta.content) return value;
      }
    })();
    const bound = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no piece came through LiteLLM while the upstream held its stream')), 60_000).unref());
    await Promise.race([firstPiece, bound]);
    hold.release();
    for (;;) {
      const { value, done } = await iterator.next();
      if (done) break;
      chunks.push(value);
    }
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe(TEXT);
    expect(fake.requests.at(-1)!.body).toMatchObject({ stream: true, model: 'gpt-fake' });
  });

  it("reports the upstream's refusal, as LiteLLM passes it on, with a class that is not retried", async () => {
    fake.failWith(400, 'the fake upstream refuses this');
    const reply = await postJson(g.gateway, '/chat/completions', { model, messages: [{ role: 'user', content: 'Hi' }] });
    expect(reply.status).toBe(502);
    expect(reply.body.error).toMatchObject({ code: 'upstream_rejected' });
    expect(reply.body.error.message).toContain('the fake upstream refuses this');
  });
});

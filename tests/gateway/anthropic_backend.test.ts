// The anthropic backend against a FAKE Anthropic Messages API (tests/helpers/fake-anthropic-server.ts):
// Responses and chat callers are served by a Messages upstream — system text, turns, tools, tool
// results, thinking with its signature replayed, sampling overrides as Anthropic names them — and its
// refusals come back as upstream_rejected without the key.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeAnthropic } from '../helpers/fake-anthropic-server';
import { gatewayWithLogs, postJson, type CapturedGateway } from './helpers';

const KEY_ENV = 'GYMFLOW_TEST_FAKE_ANTHROPIC_KEY';
const KEY = `sk-ant-fake-${randomBytes(12).toString('hex')}`;
let g: CapturedGateway;
let fake: FakeAnthropic;

beforeAll(async () => {
  process.env[KEY_ENV] = KEY;
  g = await gatewayWithLogs();
  fake = await startFakeAnthropic(KEY);
});
afterAll(async () => {
  delete process.env[KEY_ENV];
  await g.gateway.close();
  await fake.close();
});

describe('an Anthropic upstream', () => {
  it('serves a tool-calling episode through /v1/responses, replaying thinking with its signature', async () => {
    const model = g.gateway.register({ backend: 'anthropic', model: 'claude-fake-1', base_url: fake.url, api_key_env: KEY_ENV, sampling_overrides: { temperature: 0.2, stop: 'END', top_k: 5 } });
    fake.script(
      {
        content: [
          { type: 'thinking', thinking: 'Look it up.', signature: 'sig-1' },
          { type: 'tool_use', id: 'toolu_1', name: 'w', input: { city: 'Oslo' } },
        ],
      },
      { content: [{ type: 'text', text: 'Cold.' }] },
    );
    const tools = [{ type: 'function', name: 'w', description: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }];
    const input: any[] = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Weather in Oslo?' },
    ];
    const first = await postJson(g.gateway, '/responses', { model, input, tools, temperature: 1 });
    expect(first.status).toBe(200);
    expect(first.body.output.map((i: any) => i.type)).toEqual(['reasoning', 'function_call']);
    expect(first.body.output[1]).toMatchObject({ call_id: 'toolu_1', name: 'w', arguments: '{"city":"Oslo"}' });
    expect(first.body.usage).toMatchObject({ input_tokens: 120, output_tokens: 12, input_tokens_details: { cached_tokens: 100 } });
    const sent = fake.requests.at(-1)!;
    expect(sent.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent.body).toMatchObject({
      model: 'claude-fake-1',
      system: 'Be brief.',
      max_tokens: 8192,
      temperature: 0.2,
      top_k: 5,
      stop_sequences: ['END'],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Weather in Oslo?' }] }],
      tools: [{ name: 'w', description: 'weather', input_schema: tools[0]!.parameters }],
    });

    input.push(...first.body.output, { type: 'function_call_output', call_id: 'toolu_1', output: 'cold' });
    const second = await postJson(g.gateway, '/responses', { model, input, tools });
    expect(second.status).toBe(200);
    expect(second.body.output[0].content[0].text).toBe('Cold.');
    expect(fake.requests.at(-1)!.body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Oslo?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Look it up.', signature: 'sig-1' },
          { type: 'tool_use', id: 'toolu_1', name: 'w', input: { city: 'Oslo' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'cold' }] },
    ]);
  });

  it('serves chat completions and Messages callers too', async () => {
    const model = g.gateway.register({ backend: 'anthropic', model: 'claude-fake-2', base_url: fake.url, api_key_env: KEY_ENV });
    const chat = await postJson(g.gateway, '/chat/completions', { model, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 30 });
    expect(chat.status).toBe(200);
    expect(chat.body.choices[0].message.content).toBe('Hello from the fake Anthropic API.');
    expect(fake.requests.at(-1)!.body.max_tokens).toBe(30);
    const messages = await postJson(g.gateway, '/messages', { model, max_tokens: 40, stop_sequences: ['END', 'STOP'], top_k: 7, messages: [{ role: 'user', content: 'Hi' }] });
    expect(messages.status).toBe(200);
    expect(messages.body.content).toEqual([{ type: 'text', text: 'Hello from the fake Anthropic API.' }]);
    // A Messages caller's stop sequences and top_k reach the Messages upstream under their own names.
    expect(fake.requests.at(-1)!.body).toMatchObject({ max_tokens: 40, stop_sequences: ['END', 'STOP'], top_k: 7 });
  });

  it('passes a refusal on as upstream_rejected with Anthropic’s message, never the key', async () => {
    const other = `${KEY_ENV}_WRONG`;
    process.env[other] = `sk-ant-wrong-${randomBytes(8).toString('hex')}`;
    try {
      const model = g.gateway.register({ backend: 'anthropic', model: 'claude-fake-3', base_url: fake.url, api_key_env: other });
      const res = await postJson(g.gateway, '/responses', { model, input: 'Hi' });
      expect(res.status).toBe(502);
      expect(res.body.error).toMatchObject({ code: 'upstream_rejected' });
      expect(res.body.error.message).toContain('invalid x-api-key');
      expect(JSON.stringify(res.body)).not.toContain(process.env[other]);
    } finally {
      delete process.env[other];
    }
  });
});

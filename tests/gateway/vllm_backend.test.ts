// The vllm backend against a FAKE vLLM server (tests/helpers/fake-vllm-server.ts, vLLM's wire format
// for token capture): every call asks for token ids and log-probs, the answer and the call record carry
// exactly the ids the server sent (whole or streamed upstream, chat or Responses route, multi-turn),
// /tokenize is used only when no prompt ids come back, images and video pass through, bad token data
// is refused with a 502.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeVLLM, type FakeVLLM } from '../helpers/fake-vllm-server';
import { callRecords, gatewayWithLogs, postJson, postTo, runFolder, type CapturedGateway } from './helpers';

let g: CapturedGateway;
const fakes: FakeVLLM[] = [];

async function vllm(options: { stream_upstream?: boolean } = {}): Promise<{ fake: FakeVLLM; model: string }> {
  const fake = await startFakeVLLM();
  fakes.push(fake);
  const model = g.gateway.register({ backend: 'vllm', model: 'Qwen/Qwen3-8B', base_url: fake.url, ...options });
  return { fake, model };
}

beforeAll(async () => {
  g = await gatewayWithLogs();
});
afterAll(async () => {
  await g.gateway.close();
  await Promise.all(fakes.map((f) => f.close()));
});

const TOOLS = [{ type: 'function', name: 'get_weather', description: 'Weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } }];

describe('chat completions', () => {
  it('asks vLLM for token ids and log-probs, and answers with exactly the ids it sent, never its transport fields', async () => {
    const { fake, model } = await vllm();
    fake.script({ content: 'Paris.' });
    const earlier = { role: 'assistant', content: 'Hello.', prompt_token_ids: [1, 2], generation_token_ids: [3], generation_log_probs: [-0.5] };
    const messages = [{ role: 'user', content: 'Hi' }, earlier, { role: 'user', content: 'Capital of France?' }];
    const res = await postJson(g.gateway, '/chat/completions', { model, messages, top_logprobs: null });
    expect(res.status).toBe(200);
    const sent = fake.requests[0]!.body;
    expect(sent).toMatchObject({ model: 'Qwen/Qwen3-8B', logprobs: true, top_logprobs: 0, return_tokens_as_token_ids: true, return_token_ids: true, stream: false });
    // Earlier turns' ids are for the trainer, not for vLLM.
    expect(sent.messages[1]).toEqual({ role: 'assistant', content: 'Hello.' });
    const choice = res.body.choices[0];
    expect(choice.message.content).toBe('Paris.');
    expect(choice.message).toMatchObject(fake.sent[0]!);
    expect(choice).not.toHaveProperty('logprobs');
    expect(choice).not.toHaveProperty('token_ids');
    expect(res.body).not.toHaveProperty('prompt_token_ids');
    expect(fake.requests.map((r) => r.path)).toEqual(['/v1/chat/completions']);
  });

  it('passes image and video parts through to vLLM untouched', async () => {
    const { fake, model } = await vllm();
    const content = [
      { type: 'text', text: 'What happens here?' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
      { type: 'video_url', video_url: { url: 'https://example.invalid/clip.mp4' } },
    ];
    const res = await postJson(g.gateway, '/chat/completions', { model, messages: [{ role: 'user', content }] });
    expect(res.status).toBe(200);
    expect(fake.requests[0]!.body.messages[0].content).toEqual(content);
  });

  it('asks /tokenize (beside /v1, with the same messages and tools) only when vLLM sends no prompt ids', async () => {
    const { fake, model } = await vllm();
    fake.withoutReturnTokenIds();
    const messages = [{ role: 'user', content: 'Weather in Oslo?' }];
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }];
    const res = await postJson(g.gateway, '/chat/completions', { model, messages, tools });
    expect(res.status).toBe(200);
    expect(fake.requests.map((r) => r.path)).toEqual(['/v1/chat/completions', '/tokenize']);
    expect(fake.requests[1]!.body).toMatchObject({ model: 'Qwen/Qwen3-8B', messages, tools, add_generation_prompt: true });
    expect(res.body.choices[0].message).toMatchObject(fake.sent[0]!);
  });

  it('refuses logprob tokens that are not "token_id:<id>" and n > 1, naming the problem', async () => {
    const { fake, model } = await vllm();
    fake.textTokens();
    const bad = await postJson(g.gateway, '/chat/completions', { model, messages: [{ role: 'user', content: 'Hi' }] });
    expect(bad.status).toBe(502);
    expect(bad.body.error.code).toBe('invalid_upstream_response');
    expect(bad.body.error.message).toContain('token_id:<id>');
    const many = await postJson(g.gateway, '/chat/completions', { model, messages: [{ role: 'user', content: 'Hi' }], n: 2 });
    expect(many.status).toBe(400);
    expect(many.body.error.param).toBe('n');
  });
});

describe('an episode through the Responses route, recorded', () => {
  for (const streamUpstream of [false, true]) {
    it(`records each turn's ids and log-probs as vLLM sent them (${streamUpstream ? 'streamed' : 'whole'} upstream)`, async () => {
      const { fake, model } = await vllm({ stream_upstream: streamUpstream });
      fake.script(
        {
          reasoning: 'Need the weather.',
          tool_calls: [
            { id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
            { id: 'call_2', name: 'get_weather', arguments: '{"city":"Rome"}' },
          ],
        },
        { content: 'Oslo is cold, Rome is warm.' },
      );
      const runDir = await runFolder();
      const { baseUrl } = g.gateway.registerRollout({ rollout_id: `vllm-${streamUpstream}`, run_dir: runDir, model });
      const input: any[] = [{ role: 'user', content: 'Weather in Oslo and Rome?' }];
      const first = await postTo(g.gateway, baseUrl, '/responses', { model, input, tools: TOOLS });
      expect(first.status).toBe(200);
      expect(first.body.output.map((i: any) => i.type)).toEqual(['reasoning', 'function_call', 'function_call']);
      expect(first.body.output.at(-1)).toMatchObject(fake.sent[0]!);
      input.push(...first.body.output, ...first.body.output.slice(1).map((c: any) => ({ type: 'function_call_output', call_id: c.call_id, output: '{"temp":1}' })));
      const second = await postTo(g.gateway, baseUrl, '/responses', { model, input, tools: TOOLS });
      expect(second.status).toBe(200);
      expect(second.body.output.at(-1).content[0].text).toBe('Oslo is cold, Rome is warm.');
      // Both parallel calls went back as one assistant turn, with the reasoning vLLM gave.
      const replayed = fake.requests[1]!.body.messages[1];
      expect(replayed.tool_calls.map((c: any) => c.id)).toEqual(['call_1', 'call_2']);
      if (streamUpstream) expect(fake.requests[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });

      const records = await callRecords(runDir);
      expect(records.map((r) => r.tokens)).toEqual(fake.sent);
      expect(records.map((r) => r.backend)).toEqual(['vllm', 'vllm']);
      // The trainer's premise: turn 1's prompt + generation is a prefix of turn 2's prompt.
      const [a, b] = fake.sent;
      expect(b!.prompt_token_ids.slice(0, a!.prompt_token_ids.length)).toEqual(a!.prompt_token_ids);
      expect(fake.requests.every((r) => r.path === '/v1/chat/completions')).toBe(true);
    });
  }

  it('streams to the caller with the ids on response.completed', async () => {
    const { fake, model } = await vllm({ stream_upstream: true });
    fake.script({ content: 'Streaming works.' });
    const res = await fetch(`${g.gateway.url}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${g.gateway.token}` },
      body: JSON.stringify({ model, input: 'Say it.', stream: true }),
    });
    const events = (await res.text())
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)));
    const completed = events.find((e) => e.type === 'response.completed');
    expect(completed.response.output.at(-1)).toMatchObject(fake.sent[0]!);
  });
});

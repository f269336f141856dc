// Pass-through streaming: a streaming caller of a backend that streams from its upstream gets each piece
// while the upstream is still generating (a FAKE OpenAI upstream that holds its stream after the first
// piece until the test lets it go), in the caller's own protocol — Chat Completions and Responses through
// the official `openai` npm client, Anthropic Messages over raw SSE and through the official Python
// `anthropic` client — and the call log still holds the whole assembled answer. The anthropic backend streams
// from a FAKE Anthropic Messages API (tests/helpers/fake-anthropic-server.ts) the same way.
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/gateway/errors';
import { MessageAssembly } from '../../src/gateway/backends/anthropic-stream';
import { startFakeAnthropic, type FakeAnthropic } from '../helpers/fake-anthropic-server';
import { callWithPython } from '../helpers/python-clients';
import { startFakeOpenAIUpstream, type FakeOpenAIUpstream } from './fake_openai_upstream';
import { authHeader, callRecords, gatewayWithLogs, runFolder, type CapturedGateway } from './helpers';

const KEY_ENV = 'GYMFLOW_TEST_PASSTHROUGH_KEY';
const TEXT = 'Hi from the fake upstream.';
const TOOL = { name: 'get_weather', arguments: '{"city": "Lisbon", "unit": "celsius"}' };

let g: CapturedGateway;
let fake: FakeOpenAIUpstream;
let chatModel: string;
let responsesModel: string;

beforeAll(async () => {
  process.env[KEY_ENV] = 'sk-fake-passthrough';
  g = await gatewayWithLogs();
  fake = await startFakeOpenAIUpstream();
  chatModel = g.gateway.register({ backend: 'openai', model: 'gpt-fake-chat', api: 'chat', base_url: fake.url, api_key_env: KEY_ENV });
  responsesModel = g.gateway.register({ backend: 'openai', model: 'gpt-fake-responses', base_url: fake.url, api_key_env: KEY_ENV });
});
afterEach(() => fake.recover());
afterAll(async () => {
  delete process.env[KEY_ENV];
  await g.gateway.close();
  await fake.close();
});

/** A rollout-scoped client, so the calls are logged into a run folder. */
async function scopedClient(rolloutId: string, model: string) {
  const runDir = await runFolder();
  const { baseUrl } = g.gateway.registerRollout({ rollout_id: rolloutId, attempt: 1, run_dir: runDir, model });
  return { runDir, baseUrl, client: new OpenAI({ baseURL: baseUrl, apiKey: g.gateway.token, maxRetries: 0 }) };
}

/** `promise`, or a failure (not a hang) when it does not settle while the upstream holds its stream. */
function bounded<T>(promise: Promise<T>, what: string): Promise<T> {
  const bound = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} did not happen while the upstream was holding its stream`)), 30_000).unref());
  return Promise.race([promise, bound]);
}

/** The next item of `iterator` that `wanted` accepts. */
async function nextMatching<T>(iterator: AsyncIterator<T>, wanted: (item: T) => boolean, seen: T[]): Promise<T> {
  const find = (async () => {
    for (;;) {
      const { value, done } = await iterator.next();
      if (done) throw new Error('the stream ended before the piece came');
      seen.push(value);
      if (wanted(value)) return value;
    }
  })();
  return bounded(find, 'a piece reaching the caller');
}

/** One streamed Messages call through the official Python `anthropic` client, asking about the weather. */
async function streamWithPythonAnthropic(model: string) {
  const [answer] = await callWithPython([
    {
      client: 'anthropic',
      kind: 'messages',
      stream: true,
      base_url: g.gateway.url.replace(/\/v1$/, ''),
      api_key: g.gateway.token,
      request: { model, max_tokens: 100, messages: [{ role: 'user', content: 'Weather?' }] },
    },
  ]);
  return answer;
}

async function rest<T>(iterator: AsyncIterator<T>, seen: T[]): Promise<T[]> {
  for (;;) {
    const { value, done } = await iterator.next();
    if (done) return seen;
    seen.push(value);
  }
}

describe('pass-through streaming', () => {
  it('Chat Completions: pieces reach the caller while the upstream generates; text, tool call and usage assemble; the log has the whole answer', async () => {
    fake.callTool(TOOL);
    const hold = fake.holdStreams();
    const { runDir, client } = await scopedClient('pass-chat', chatModel);
    const stream = await client.chat.completions.create({ model: chatModel, messages: [{ role: 'user', content: 'Weather?' }], stream: true, stream_options: { include_usage: true } });
    const iterator = stream[Symbol.asyncIterator]();
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    await bounded(hold.firstPieceSent, 'the upstream being asked to stream');
    const first = await nextMatching(iterator, (c) => Boolean(c.choices[0]?.delta.content), chunks);
    expect(first.choices[0]!.delta.content).toBe('Hi ');
    hold.release();
    await rest(iterator, chunks);

    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe(TEXT);
    const args = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(args[0]).toMatchObject({ index: 0, id: 'call_fake0001', function: { name: TOOL.name } });
    expect(args.map((a) => a.function?.arguments ?? '').join('')).toBe(TOOL.arguments);
    // The upstream's pieces went on as they were: as many argument pieces as the upstream sent.
    expect(args.filter((a) => a.function?.arguments).length).toBe(Math.ceil(TOOL.arguments.length / 5));
    expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0]?.finish_reason).toBe('tool_calls');
    expect(chunks.at(-1)!.usage).toEqual({ prompt_tokens: 9, completion_tokens: 5, total_tokens: 14 });

    const sent = fake.requests.at(-1)!.body;
    expect(sent).toMatchObject({ stream: true, stream_options: { include_usage: true }, model: 'gpt-fake-chat' });
    const [record] = await callRecords(runDir);
    expect(record).toMatchObject({ status: 200, stream: true, usage: { prompt_tokens: 9, completion_tokens: 5 } });
    expect((record!.response as any).choices[0].message).toMatchObject({ content: TEXT, tool_calls: [{ id: 'call_fake0001', function: TOOL }] });
  });

  it('streamed calls one after another keep to one upstream connection: the body is read to its end after [DONE]', async () => {
    const { client } = await scopedClient('pass-keepalive', chatModel);
    const before = fake.connections();
    for (let i = 0; i < 4; i++) {
      const stream = await client.chat.completions.create({ model: chatModel, messages: [{ role: 'user', content: `Hello ${i}` }], stream: true });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      expect(text).toBe(TEXT);
    }
    // The first call may open the connection; the later three reuse it.
    expect(fake.connections() - before).toBeLessThanOrEqual(1);
  });

  it('an upstream that holds its body open after [DONE] is cut off a second later, and the call keeps its whole answer', async () => {
    fake.lingerAfterLastEvent(120_000);
    const { runDir, client } = await scopedClient('pass-linger', chatModel);
    const stream = await client.chat.completions.create({ model: chatModel, messages: [{ role: 'user', content: 'Hello' }], stream: true });
    let text = '';
    await bounded(
      (async () => {
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      })(),
      'the end of the answer',
    );
    expect(text).toBe(TEXT);
    const [record] = await callRecords(runDir);
    expect(record).toMatchObject({ status: 200, stream: true });
  });

  it('Responses from a Responses upstream: text deltas arrive while it generates, and response.completed carries the whole answer', async () => {
    const hold = fake.holdStreams();
    const { runDir, client } = await scopedClient('pass-responses', responsesModel);
    const stream = await client.responses.create({ model: responsesModel, input: 'Hi', stream: true });
    const iterator = stream[Symbol.asyncIterator]();
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    await bounded(hold.firstPieceSent, 'the upstream being asked to stream');
    const first = await nextMatching(iterator, (e) => e.type === 'response.output_text.delta', events);
    expect((first as any).delta).toBe('Hello ');
    hold.release();
    await rest(iterator, events);

    const types = events.map((e) => e.type);
    expect(types.slice(0, 4)).toEqual(['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added']);
    expect(types.at(-1)).toBe('response.completed');
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const deltas = events.filter((e) => e.type === 'response.output_text.delta').map((e: any) => e.delta);
    expect(deltas.join('')).toBe('Hello from the fake upstream.');
    const completed = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
    expect(completed.response.output_text ?? (completed.response.output[0] as any).content[0].text).toBe('Hello from the fake upstream.');
    // The message's live id is the one its done event and the completed response name.
    const added = events.find((e) => e.type === 'response.output_item.added') as any;
    expect((completed.response.output[0] as any).id).toBe(added.item.id);
    expect(fake.requests.at(-1)!.body).toMatchObject({ stream: true });
    const [record] = await callRecords(runDir);
    expect(record).toMatchObject({ status: 200, stream: true });
    expect((record!.response as any).output[0].content[0].text).toBe('Hello from the fake upstream.');
  });

  it('Responses from a chat-only upstream: the tool call opens as an item whose argument deltas arrive live and match its done event', async () => {
    fake.callTool(TOOL);
    const { client } = await scopedClient('pass-converted', chatModel);
    const stream = await client.responses.create({
      model: chatModel,
      input: 'Weather?',
      stream: true,
      tools: [{ type: 'function', name: TOOL.name, parameters: { type: 'object', properties: {} }, strict: false }],
    });
    const events = await rest(stream[Symbol.asyncIterator](), [] as OpenAI.Responses.ResponseStreamEvent[]);
    const call = events.find((e) => e.type === 'response.output_item.added' && e.item.type === 'function_call') as any;
    expect(call.item).toMatchObject({ call_id: 'call_fake0001', name: TOOL.name });
    const argDeltas = events.filter((e) => e.type === 'response.function_call_arguments.delta' && e.item_id === call.item.id) as any[];
    expect(argDeltas.length).toBe(Math.ceil(TOOL.arguments.length / 5));
    expect(argDeltas.every((e) => e.output_index === call.output_index)).toBe(true);
    expect(argDeltas.map((e) => e.delta).join('')).toBe(TOOL.arguments);
    const done = events.find((e) => e.type === 'response.output_item.done' && e.item.id === call.item.id) as any;
    expect(done).toMatchObject({ output_index: call.output_index, item: { type: 'function_call', arguments: TOOL.arguments } });
    const completed = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
    expect(completed.type).toBe('response.completed');
    expect(completed.response.output.find((i) => i.type === 'function_call')).toMatchObject({ id: call.item.id, arguments: TOOL.arguments });
    expect(completed.response.output.find((i) => i.type === 'message')).toMatchObject({ content: [{ text: TEXT }] });
  });

  it('Anthropic Messages: blocks open live, one after another, and the official Python client assembles text and tool input', async () => {
    fake.callTool(TOOL);
    const hold = fake.holdStreams();
    const reply = await fetch(`${g.gateway.url}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...authHeader(g.gateway) },
      body: JSON.stringify({ model: chatModel, max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'Weather?' }] }),
    });
    expect(reply.status).toBe(200);
    const reader = reply.body!.getReader();
    const decoder = new TextDecoder();
    let raw = '';
    await bounded(hold.firstPieceSent, 'the upstream being asked to stream');
    const firstText = async () => {
      while (!raw.includes('text_delta')) {
        const { value, done } = await reader.read();
        if (done) throw new Error('the stream ended before a text piece');
        raw += decoder.decode(value, { stream: true });
      }
    };
    await bounded(firstText(), 'a text piece reaching the caller');
    hold.release();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      raw += decoder.decode(value, { stream: true });
    }
    const events = raw
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)));
    // Each block starts after the one before has stopped.
    let open: number | undefined;
    for (const e of events) {
      if (e.type === 'content_block_start') {
        expect(open).toBeUndefined();
        open = e.index;
      }
      if (e.type === 'content_block_delta') expect(e.index).toBe(open);
      if (e.type === 'content_block_stop') {
        expect(e.index).toBe(open);
        open = undefined;
      }
    }
    expect(events.at(-1).type).toBe('message_stop');
    const texts = events.filter((e) => e.delta?.type === 'text_delta').map((e) => e.delta.text);
    expect(texts.join('')).toBe(TEXT);
    expect(
      JSON.parse(
        events
          .filter((e) => e.delta?.type === 'input_json_delta')
          .map((e) => e.delta.partial_json)
          .join(''),
      ),
    ).toEqual(JSON.parse(TOOL.arguments));

    const python = await streamWithPythonAnthropic(chatModel);
    expect(python!.text).toBe(TEXT);
    expect(python!.final.content).toMatchObject([
      { type: 'text', text: TEXT },
      { type: 'tool_use', id: 'call_fake0001', name: TOOL.name, input: JSON.parse(TOOL.arguments) },
    ]);
    expect(python!.final.stop_reason).toBe('tool_use');
  });

  it("a Messages caller's stop_sequences and top_k reach a chat upstream as stop and top_k", async () => {
    const reply = await fetch(`${g.gateway.url}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...authHeader(g.gateway) },
      body: JSON.stringify({ model: chatModel, max_tokens: 50, stop_sequences: ['###'], top_k: 3, messages: [{ role: 'user', content: 'Hi' }] }),
    });
    expect(reply.status).toBe(200);
    expect(fake.requests.at(-1)!.body).toMatchObject({ stop: ['###'], top_k: 3 });
  });

  it('stream_upstream: false asks the upstream for whole answers and replays them to the streaming caller', async () => {
    const whole = g.gateway.register({ backend: 'openai', model: 'gpt-fake-whole', api: 'chat', base_url: fake.url, api_key_env: KEY_ENV, stream_upstream: false });
    const client = new OpenAI({ baseURL: g.gateway.url, apiKey: g.gateway.token, maxRetries: 0 });
    const stream = await client.chat.completions.create({ model: whole, messages: [{ role: 'user', content: 'Hi' }], stream: true });
    const chunks = await rest(stream[Symbol.asyncIterator](), [] as OpenAI.ChatCompletionChunk[]);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe(TEXT);
    expect(fake.requests.at(-1)!.body.stream).toBe(false);
  });
});

describe('pass-through streaming from an Anthropic upstream', () => {
  const ANTHROPIC_KEY_ENV = 'GYMFLOW_TEST_PASSTHROUGH_ANTHROPIC_KEY';
  const THINKING = 'The user wants the weather in Lisbon.';
  const SAID = 'Let me look that up for you.';
  const INPUT = { city: 'Lisbon', unit: 'celsius' };
  let anthropic: FakeAnthropic;
  let claude: string;
  const episode = () =>
    anthropic.script({
      content: [
        { type: 'thinking', thinking: THINKING, signature: 'sig-fake-123' },
        { type: 'text', text: SAID },
        { type: 'tool_use', id: 'toolu_fake01', name: 'get_weather', input: INPUT },
      ],
    });

  beforeAll(async () => {
    process.env[ANTHROPIC_KEY_ENV] = 'sk-ant-fake-passthrough';
    anthropic = await startFakeAnthropic(process.env[ANTHROPIC_KEY_ENV]);
    claude = g.gateway.register({ backend: 'anthropic', model: 'claude-fake-stream', base_url: anthropic.url, api_key_env: ANTHROPIC_KEY_ENV });
  });
  afterEach(() => anthropic.cutStreams(false));
  afterAll(async () => {
    delete process.env[ANTHROPIC_KEY_ENV];
    await anthropic.close();
  });

  it('Responses: reasoning, text and the tool call reach the caller while the upstream generates; the log has the whole Message as a Responses object', async () => {
    episode();
    const hold = anthropic.holdStreams();
    const { runDir, client } = await scopedClient('pass-anthropic', claude);
    const stream = await client.responses.create({
      model: claude,
      input: 'Weather in Lisbon?',
      stream: true,
      tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: {} }, strict: false }],
    });
    const iterator = stream[Symbol.asyncIterator]();
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    await bounded(hold.firstPieceSent, 'the upstream being asked to stream');
    // The first text piece reaches the caller while the upstream still holds the rest of its answer.
    const first = await nextMatching(iterator, (e) => e.type === 'response.output_text.delta', events);
    expect((first as any).delta).toBe(SAID.slice(0, Math.ceil(SAID.length / 3)));
    hold.release();
    await rest(iterator, events);

    expect(anthropic.requests.at(-1)!.body).toMatchObject({ stream: true, model: 'claude-fake-stream' });
    const reasoning = events.filter((e) => e.type === 'response.reasoning_summary_text.delta' || e.type === 'response.reasoning_text.delta').map((e: any) => e.delta);
    expect(reasoning.join('')).toBe(THINKING);
    const text = events.filter((e) => e.type === 'response.output_text.delta').map((e: any) => e.delta);
    expect(text.join('')).toBe(SAID);
    const argDeltas = events.filter((e) => e.type === 'response.function_call_arguments.delta').map((e: any) => e.delta);
    // The input came in three pieces, and went on as three.
    expect(argDeltas).toHaveLength(3);
    expect(JSON.parse(argDeltas.join(''))).toEqual(INPUT);
    const completed = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
    expect(completed.type).toBe('response.completed');
    expect(completed.response.output.map((i) => i.type)).toEqual(['reasoning', 'message', 'function_call']);
    expect(completed.response.output[0]).toMatchObject({ summary: [{ text: THINKING }], encrypted_content: 'sig-fake-123' });
    expect(completed.response.output[2]).toMatchObject({ call_id: 'toolu_fake01', name: 'get_weather' });
    expect(JSON.parse((completed.response.output[2] as any).arguments)).toEqual(INPUT);
    // message_delta's cumulative usage, with the cached prompt tokens counted in.
    expect(completed.response.usage).toMatchObject({ input_tokens: 120, output_tokens: 12, input_tokens_details: { cached_tokens: 100 } });

    const [record] = await callRecords(runDir);
    expect(record).toMatchObject({ status: 200, stream: true, usage: { input_tokens: 120, output_tokens: 12 } });
    expect((record!.response as any).output.map((i: any) => i.type)).toEqual(['reasoning', 'message', 'function_call']);
  });

  it('Chat Completions and Anthropic Messages callers get the pieces too, in their own protocol', async () => {
    episode();
    const client = new OpenAI({ baseURL: g.gateway.url, apiKey: g.gateway.token, maxRetries: 0 });
    const chunks = await rest(
      (await client.chat.completions.create({ model: claude, messages: [{ role: 'user', content: 'Weather?' }], stream: true }))[Symbol.asyncIterator](),
      [] as OpenAI.ChatCompletionChunk[],
    );
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe(SAID);
    const calls = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(calls[0]).toMatchObject({ index: 0, id: 'toolu_fake01', function: { name: 'get_weather' } });
    expect(JSON.parse(calls.map((c) => c.function?.arguments ?? '').join(''))).toEqual(INPUT);

    episode();
    const python = await streamWithPythonAnthropic(claude);
    expect(python!.text).toBe(SAID);
    expect(python!.final.content).toMatchObject([
      { type: 'thinking', thinking: THINKING },
      { type: 'text', text: SAID },
      { type: 'tool_use', id: 'toolu_fake01', name: 'get_weather', input: INPUT },
    ]);
    expect(anthropic.requests.at(-1)!.body.stream).toBe(true);
  });

  it('a stream cut before message_stop fails the call; it is never taken as a shorter answer', async () => {
    episode();
    anthropic.cutStreams(true);
    const whole = g.gateway.register({ backend: 'anthropic', model: 'claude-fake-cut', base_url: anthropic.url, api_key_env: ANTHROPIC_KEY_ENV, stream_upstream: true });
    const res = await fetch(`${g.gateway.url}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...authHeader(g.gateway) },
      body: JSON.stringify({ model: whole, input: 'Weather?' }),
    });
    expect(res.status).toBe(502);
    expect(((await res.json()) as any).error.message).toMatch(/ended its Messages stream before message_stop/);
    expect(anthropic.requests.at(-1)!.body.stream).toBe(true);
  });

  it('refuses events out of order and tool input that is not JSON, naming the upstream', () => {
    const refused = (events: Record<string, unknown>[]) => {
      const a = new MessageAssembly('claude at fake');
      try {
        for (const e of events) a.add(e);
        a.reply();
      } catch (e) {
        expect(e).toBeInstanceOf(GatewayError);
        return (e as Error).message;
      }
      throw new Error('not refused');
    };
    const start = { type: 'message_start', message: { id: 'm', model: 'c', usage: { input_tokens: 3 } } };
    expect(refused([{ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'x' } }])).toMatch(/claude at fake .*not started/);
    expect(
      refused([
        start,
        { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 't', name: 'f', input: {} } },
        { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"a":' } },
        { type: 'content_block_stop', index: 0 },
      ]),
    ).toMatch(/tool_use block 0 \(f\) whose input is not JSON/);
    expect(refused([start, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }])).toMatch(/failed mid-stream: Overloaded/);
    // Unknown event types and pings are passed over; an empty tool input is {}.
    const a = new MessageAssembly('claude at fake');
    for (const e of [
      start,
      { type: 'ping' },
      { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 't', name: 'f', input: {} } },
      { type: 'content_block_stop', index: 0 },
      { type: 'future_event' },
      { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 4 } },
      { type: 'message_stop' },
    ])
      a.add(e);
    expect(a.reply()).toMatchObject({ stop_reason: 'tool_use', usage: { input_tokens: 3, output_tokens: 4 }, content: [{ type: 'tool_use', input: {} }] });
  });
});

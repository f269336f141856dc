// Streaming (SSE) through a real gateway on loopback, called with the official `openai` npm client:
// Chat Completions chunks and Responses events assemble to the same answer as the whole reply (token ids
// included), usage arrives in the final event, a stream through the openai backend told not to stream
// upstream is made from a whole upstream answer (a FAKE OpenAI upstream), and hanging up mid-stream aborts the backend's wait.
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelCallRecord } from '../../src/schemas/records';
import type { TaskRow } from '../../src/schemas/task';
import { startFakeOpenAIUpstream, type FakeOpenAIUpstream } from './fake_openai_upstream';
import { gatewayWithLogs, MULTI_STEP_TASKS, postJson, readJsonl, type CapturedGateway } from './helpers';

const ENV = 'example_multi_step';
const KEY_ENV = 'GYMFLOW_TEST_STREAM_UPSTREAM_KEY';
const task = readJsonl<TaskRow>(MULTI_STEP_TASKS)[0]!;
const params = task.responses_create_params as { input: any[]; tools: any[] };

let g: CapturedGateway;
let fake: FakeOpenAIUpstream;
let model: string;
let client: OpenAI;

beforeAll(async () => {
  process.env[KEY_ENV] = 'sk-fake-stream';
  g = await gatewayWithLogs();
  fake = await startFakeOpenAIUpstream();
  model = g.gateway.register({ backend: 'mock', env: ENV, tasks_file: MULTI_STEP_TASKS });
  client = new OpenAI({ baseURL: g.gateway.url, apiKey: g.gateway.token, maxRetries: 0 });
});
afterAll(async () => {
  delete process.env[KEY_ENV];
  await g.gateway.close();
  await fake.close();
});

/** The whole (non-streamed) answer for the same rollout: the mock gives the same one every time. */
async function whole(route: string, body: Record<string, unknown>, rolloutId: string) {
  const reply = await postJson(g.gateway, route, body, { 'x-gymflow-rollout-id': rolloutId });
  expect(reply.status).toBe(200);
  return reply.body;
}

describe('Responses streaming', () => {
  it('streams the events of the whole answer, ending in response.completed with usage and token ids', async () => {
    const request = { model, input: params.input, tools: params.tools };
    const expected = await whole('/responses', request, 'stream-r-1');
    const stream = await client.responses.create({ ...request, stream: true } as any, { headers: { 'x-gymflow-rollout-id': 'stream-r-1' } });
    const events: any[] = [];
    for await (const event of stream as any) events.push(event);
    const types = events.map((e) => e.type);
    expect(types.slice(0, 2)).toEqual(['response.created', 'response.in_progress']);
    expect(types.at(-1)).toBe('response.completed');
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    // The first oracle turn of this task is a tool call: its arguments arrive as deltas.
    const call = expected.output.find((i: any) => i.type === 'function_call');
    expect(call).toBeDefined();
    const deltas = events
      .filter((e) => e.type === 'response.function_call_arguments.delta')
      .map((e) => e.delta)
      .join('');
    expect(deltas).toBe(call.arguments);
    const completed = events.at(-1).response;
    expect(completed.usage).toEqual(expected.usage);
    expect(completed.output.map((i: any) => ({ ...i, id: undefined }))).toEqual(expected.output.map((i: any) => ({ ...i, id: undefined })));
    expect(completed.output.at(-1).generation_token_ids.length).toBeGreaterThan(0);
    expect(events.filter((e) => e.type === 'response.output_item.added')).toHaveLength(expected.output.length);
  });

  it("assembles text deltas into the client's final response", async () => {
    // A conversation no task starts: the mock answers with a plain message.
    const request = { model, input: 'Tell me something in a few words, please.' };
    const expected = await whole('/responses', request, 'stream-r-2');
    const stream = client.responses.stream(request, { headers: { 'x-gymflow-rollout-id': 'stream-r-2' } });
    const deltas: string[] = [];
    stream.on('response.output_text.delta', (e) => deltas.push(e.delta));
    const final = await stream.finalResponse();
    const text = expected.output[0].content[0].text as string;
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(text);
    expect(final.output_text).toBe(text);
    expect(final.usage).toEqual(expected.usage);
  });
});

describe('Chat Completions streaming', () => {
  const messages = [{ role: 'user' as const, content: 'Say something in a handful of words, if you would.' }];

  it('streams chunks that join to the whole answer, with usage on the finishing chunk', async () => {
    const expected = await whole('/chat/completions', { model, messages }, 'stream-c-1');
    const stream = await client.chat.completions.create({ model, messages, stream: true }, { headers: { 'x-gymflow-rollout-id': 'stream-c-1' } });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe(expected.choices[0].message.content);
    const last = chunks.at(-1)!;
    expect(last.choices[0]!.finish_reason).toBe('stop');
    expect(last.usage).toEqual(expected.usage);
  });

  it('sends usage in a chunk of its own when stream_options.include_usage is set, and tool calls as deltas', async () => {
    const tools = params.tools.map((t: any) => ({ type: 'function' as const, function: { name: t.name, description: t.description, parameters: t.parameters } }));
    const chatMessages = params.input.map((m: any) => ({ role: m.role, content: m.content }));
    const expected = await whole('/chat/completions', { model, messages: chatMessages, tools }, 'stream-c-2');
    const stream = await client.chat.completions.create(
      { model, messages: chatMessages, tools, stream: true, stream_options: { include_usage: true } },
      { headers: { 'x-gymflow-rollout-id': 'stream-c-2' } },
    );
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const usageChunk = chunks.at(-1)!;
    expect(usageChunk.choices).toEqual([]);
    expect(usageChunk.usage).toEqual(expected.usage);
    const calls = expected.choices[0].message.tool_calls as any[];
    expect(calls.length).toBeGreaterThan(0);
    const streamed = new Map<number, { name: string; arguments: string }>();
    for (const c of chunks) {
      for (const d of c.choices[0]?.delta.tool_calls ?? []) {
        const seen = streamed.get(d.index) ?? { name: '', arguments: '' };
        streamed.set(d.index, { name: seen.name + (d.function?.name ?? ''), arguments: seen.arguments + (d.function?.arguments ?? '') });
      }
    }
    expect([...streamed.values()]).toEqual(calls.map((c) => ({ name: c.function.name, arguments: c.function.arguments })));
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('tool_calls');
  });
});

describe('through the openai backend', () => {
  it('makes the stream from a whole upstream answer', async () => {
    const upstream = g.gateway.register({ backend: 'openai', model: 'gpt-fake-stream', base_url: fake.url, api_key_env: KEY_ENV, stream_upstream: false });
    const stream = await client.chat.completions.create({ model: upstream, messages: [{ role: 'user', content: 'Hi' }], stream: true, stream_options: { include_usage: true } });
    let text = '';
    let usage: unknown;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe('Hi from the fake upstream.');
    expect(usage).toEqual({ prompt_tokens: 9, completion_tokens: 5, total_tokens: 14 });
    const sent = fake.requests.at(-1)!.body;
    expect(sent.stream).toBe(false);
    expect(sent).not.toHaveProperty('stream_options');
  });

  it('reports an upstream failure after the stream opened as an in-band error the client raises', async () => {
    const upstream = g.gateway.register({ backend: 'openai', model: 'gpt-fake-stream-fail', base_url: fake.url, api_key_env: KEY_ENV });
    fake.failWith(400, 'the fake upstream refuses this');
    try {
      const stream = await client.responses.create({ model: upstream, input: 'Hi', stream: true });
      const types: string[] = [];
      const consume = async () => {
        for await (const event of stream) types.push(event.type);
      };
      await expect(consume()).rejects.toThrow(/the fake upstream refuses this/);
      expect(types).toEqual(['response.created', 'response.in_progress']);
    } finally {
      fake.recover();
    }
  });
});

describe('client disconnects', () => {
  it('hanging up mid-stream aborts the backend wait, and the call is logged as client_closed', async () => {
    const runDir = await mkdtemp(path.join(tmpdir(), 'gymflow-stream-abort-'));
    // Ten minutes: the call can only end before the test times out if the hang-up aborts the wait.
    const slow = g.gateway.register({ backend: 'mock', env: ENV, tasks_file: MULTI_STEP_TASKS, latency_ms: 600_000 });
    const { baseUrl } = g.gateway.registerRollout({ rollout_id: 'abort-0', attempt: 1, run_dir: runDir, model: slow });
    const scoped = new OpenAI({ baseURL: baseUrl, apiKey: g.gateway.token, maxRetries: 0 });
    const stream = await scoped.responses.create({ model: slow, input: params.input, stream: true });
    const iterator = stream[Symbol.asyncIterator]();
    expect((await iterator.next()).value?.type).toBe('response.created');
    stream.controller.abort();

    let records: ModelCallRecord[] = [];
    while (records.length === 0) {
      await new Promise((r) => setTimeout(r, 100));
      const files = await readdir(path.join(runDir, 'model_calls')).catch(() => []);
      for (const f of files)
        records = (await readFile(path.join(runDir, 'model_calls', f), 'utf8'))
          .split('\n')
          .filter(Boolean)
          .map((l) => ModelCallRecord.parse(JSON.parse(l)));
    }
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ rollout_id: 'abort-0', status: 499, stream: true, error: { code: 'client_closed' } });
    expect(records[0]!.response).toBeUndefined();
  });

  it('an in-process call cannot stream', async () => {
    const reply = await g.gateway.call({ path: '/v1/responses', body: { model, input: 'Hi', stream: true } });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ error: { code: 'stream_unsupported', param: 'stream' } });
  });
});

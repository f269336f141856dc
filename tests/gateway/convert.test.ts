// Responses ↔ Chat Completions conversion (NeMo Gym's ResponsesConverter, contracts §7.4) as pure
// functions: no server, fixed ids.
import { describe, expect, it } from 'vitest';
import { chatCompletionToResponse, chatRequestToResponses, responsesToChatRequest, responseToChatCompletion, splitThink, type NewId } from '../../src/gateway/convert';
import type { ChatCompletion, ChatCompletionRequest } from '../../src/gateway/wire';
import type { ResponseCreateParams } from '../../src/schemas/responses';

/** Ids `<prefix>_1`, `<prefix>_2`, … so expected objects can be written out. */
function counterIds(): NewId {
  let n = 0;
  return (prefix) => `${prefix}_${++n}`;
}

const TOKENS = { prompt_token_ids: [1, 2], generation_token_ids: [3, 4, 5], generation_log_probs: [-0.1, -0.2, -0.3] };

const weatherTool = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
  strict: true,
};

describe('responsesToChatRequest', () => {
  it('turns a string input into one user message', () => {
    expect(responsesToChatRequest({ input: 'Hi' }).messages).toEqual([{ role: 'user', content: 'Hi' }]);
  });

  it('folds instructions and leading system/developer messages into one system message', () => {
    const chat = responsesToChatRequest({
      instructions: 'Be brief.',
      input: [
        { role: 'system', content: 'You are a weather bot.' },
        { role: 'developer', content: [{ type: 'input_text', text: 'Use metric units.' }] },
        { role: 'user', content: 'Hi' },
      ],
    });
    expect(chat.messages).toEqual([
      { role: 'system', content: 'Be brief.\n\nYou are a weather bot.\n\nUse metric units.' },
      { role: 'user', content: 'Hi' },
    ]);
  });

  it('merges consecutive reasoning, assistant message and function calls into ONE assistant message', () => {
    const chat = responsesToChatRequest({
      input: [
        { role: 'user', content: 'Weather in Paris and Oslo?' },
        { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Two cities.' }] },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Checking.' }] },
        { type: 'function_call', call_id: 'c1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call', call_id: 'c2', name: 'get_weather', arguments: '{"city":"Oslo"}', ...TOKENS },
        { type: 'function_call_output', call_id: 'c1', output: 'mild' },
        { type: 'function_call_output', call_id: 'c2', output: [{ type: 'input_text', text: 'cold' }] },
        { role: 'assistant', content: 'Paris is mild, Oslo cold.' },
      ],
    });
    expect(chat.messages).toEqual([
      { role: 'user', content: 'Weather in Paris and Oslo?' },
      {
        role: 'assistant',
        content: '<think>Two cities.</think>Checking.',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'c2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
        ],
        ...TOKENS,
      },
      { role: 'tool', tool_call_id: 'c1', content: 'mild' },
      { role: 'tool', tool_call_id: 'c2', content: 'cold' },
      { role: 'assistant', content: 'Paris is mild, Oslo cold.' },
    ]);
  });

  it('maps content parts, including images', () => {
    const chat = responsesToChatRequest({
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'What is this?' },
            { type: 'input_image', image_url: 'data:image/png;base64,AA', detail: 'low' },
          ],
        },
      ],
    });
    expect(chat.messages[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'What is this?' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AA', detail: 'low' } },
      ],
    });
  });

  it('maps tools, tool_choice, max_output_tokens and reasoning effort; drops fields chat does not have', () => {
    const params = {
      input: 'Hi',
      model: 'm',
      tools: [weatherTool],
      tool_choice: { type: 'function', name: 'get_weather' },
      parallel_tool_calls: false,
      max_output_tokens: 64,
      temperature: 0.5,
      reasoning: { effort: 'low' },
      truncation: 'auto',
      include: ['reasoning.encrypted_content'],
    } as ResponseCreateParams;
    const { messages: _messages, ...rest } = responsesToChatRequest(params);
    expect(rest).toEqual({
      model: 'm',
      temperature: 0.5,
      max_tokens: 64,
      reasoning_effort: 'low',
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather for a city', parameters: weatherTool.parameters } }],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      parallel_tool_calls: false,
    });
  });

  it('drops tool_choice and parallel_tool_calls without tools, and refuses "required" without tools', () => {
    const chat = responsesToChatRequest({ input: 'Hi', tools: [], tool_choice: 'auto', parallel_tool_calls: true });
    expect(chat).not.toHaveProperty('tool_choice');
    expect(chat).not.toHaveProperty('parallel_tool_calls');
    expect(() => responsesToChatRequest({ input: 'Hi', tool_choice: 'required' })).toThrow(/required/);
  });
});

const completion = (message: Record<string, unknown>, extra: Partial<ChatCompletion> = {}): ChatCompletion => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1_700_000_000,
  model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 },
  ...extra,
});

describe('chatCompletionToResponse', () => {
  it('splits <think> into a reasoning item, then the message, then one function_call per tool call, tokens on the last', () => {
    const response = chatCompletionToResponse(
      completion({
        content: '<think>Need the weather.</think>\n\nChecking.',
        tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
        ...TOKENS,
      }),
      { newId: counterIds() },
    );
    expect(response.output).toEqual([
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Need the weather.' }] },
      { type: 'message', id: 'msg_2', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Checking.', annotations: [] }] },
      { type: 'function_call', id: 'call_9', call_id: 'call_9', name: 'get_weather', arguments: '{"city":"Paris"}', status: 'completed', ...TOKENS },
    ]);
    expect(response).toMatchObject({ id: 'resp_3', object: 'response', created_at: 1_700_000_000, model: 'm', status: 'completed', incomplete_details: null });
  });

  it('reads reasoning_content, and emits no message when there are only tool calls', () => {
    const response = chatCompletionToResponse(completion({ content: null, reasoning_content: 'Think.', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] }), {
      newId: counterIds(),
    });
    expect(response.output.map((i) => i.type)).toEqual(['reasoning', 'function_call']);
  });

  it('emits an empty message when the model said nothing at all', () => {
    const response = chatCompletionToResponse(completion({ content: '' }), { newId: counterIds() });
    expect(response.output).toEqual([expect.objectContaining({ type: 'message', content: [expect.objectContaining({ text: '' })] })]);
  });

  it('maps usage with its details, and finish_reason length to an incomplete response', () => {
    const response = chatCompletionToResponse(
      completion(
        { content: 'partial' },
        {
          choices: [{ index: 0, message: { role: 'assistant', content: 'partial' }, finish_reason: 'length' }],
          usage: { prompt_tokens: 10, completion_tokens: 4, total_tokens: 14, prompt_tokens_details: { cached_tokens: 8 }, completion_tokens_details: { reasoning_tokens: 2 } },
        },
      ),
    );
    expect(response.status).toBe('incomplete');
    expect(response.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(response.usage).toEqual({
      input_tokens: 10,
      output_tokens: 4,
      total_tokens: 14,
      input_tokens_details: { cached_tokens: 8 },
      output_tokens_details: { reasoning_tokens: 2 },
    });
  });

  it('echoes request params', () => {
    const response = chatCompletionToResponse(completion({ content: 'ok' }), { params: { input: 'Hi', instructions: 'Be brief.', tools: [weatherTool], temperature: 0.1 } });
    expect(response).toMatchObject({ instructions: 'Be brief.', tools: [weatherTool], temperature: 0.1 });
    expect(response).not.toHaveProperty('input');
  });

  it('refuses a completion without choices', () => {
    expect(() => chatCompletionToResponse(completion({}, { choices: [] }))).toThrow(/no choices/);
  });
});

describe('splitThink', () => {
  it('takes <think> blocks and a lone closing tag as reasoning; leaves other text untouched', () => {
    expect(splitThink('<think>a</think> b')).toEqual({ reasoning: ['a'], text: 'b' });
    expect(splitThink('plan</think>answer')).toEqual({ reasoning: ['plan'], text: 'answer' });
    expect(splitThink('  no reasoning here ')).toEqual({ reasoning: [], text: '  no reasoning here ' });
  });
});

describe('responseToChatCompletion', () => {
  it('turns output items into one choice: text, reasoning_content, tool_calls, token ids, usage', () => {
    const chat = responseToChatCompletion(
      {
        id: 'resp_1',
        created_at: 5,
        model: 'm',
        status: 'completed',
        output: [
          { type: 'reasoning', summary: [{ type: 'summary_text', text: 'Think.' }] },
          { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}', ...TOKENS },
        ],
        usage: { input_tokens: 2, output_tokens: 3, total_tokens: 5 },
      },
      { newId: counterIds() },
    );
    expect(chat).toEqual({
      id: 'chatcmpl_1',
      object: 'chat.completion',
      created: 5,
      model: 'm',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: null, reasoning_content: 'Think.', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }], ...TOKENS },
          finish_reason: 'tool_calls',
          logprobs: null,
        },
      ],
      usage: { prompt_tokens: 2, completion_tokens: 3, total_tokens: 5 },
    });
  });

  it('reports an incomplete response as finish_reason length', () => {
    const chat = responseToChatCompletion({
      id: 'r',
      output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'cut' }] }],
      incomplete_details: { reason: 'max_output_tokens' },
    });
    expect(chat.choices[0]).toMatchObject({ finish_reason: 'length', message: { content: 'cut' } });
  });
});

describe('chatRequestToResponses', () => {
  const request: ChatCompletionRequest = {
    model: 'm',
    max_completion_tokens: 32,
    tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather for a city', parameters: weatherTool.parameters } }],
    messages: [
      { role: 'system', content: 'You are a weather bot.' },
      { role: 'user', content: 'Paris?' },
      {
        role: 'assistant',
        content: '<think>One city.</think>Checking.',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'mild' },
    ],
  };

  it('turns chat messages into Responses items', () => {
    const params = chatRequestToResponses(request);
    expect(params).toMatchObject({ model: 'm', max_output_tokens: 32, tools: [{ type: 'function', name: 'get_weather' }] });
    expect(params.input).toEqual([
      { type: 'message', role: 'system', content: 'You are a weather bot.' },
      { type: 'message', role: 'user', content: 'Paris?' },
      { type: 'reasoning', summary: [{ type: 'summary_text', text: 'One city.' }] },
      { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Checking.', annotations: [] }] },
      { type: 'function_call', call_id: 'c1', name: 'get_weather', arguments: '{"city":"Paris"}', status: 'completed' },
      { type: 'function_call_output', call_id: 'c1', output: 'mild' },
    ]);
  });

  it('round-trips back to the same chat messages and tools', () => {
    const back = responsesToChatRequest(chatRequestToResponses(request));
    expect(back.messages).toEqual(request.messages);
    expect(back.tools).toEqual(request.tools);
    expect(back.max_tokens).toBe(32);
  });
});

// Responses API ↔ Chat Completions, after NeMo Gym's ResponsesConverter (contracts §7.4): a chat-only
// model can serve Responses callers, and the mock serves chat callers. Pure functions; ids come from
// `newId` so tests (and the mock) can make them deterministic.
import { randomBytes } from 'node:crypto';
import { GymError } from '../errors';
import { inputItems, isMessage, type ConversationItem, type CustomTool, type FunctionTool, type ResponseCreateParams, type ResponseObject } from '../schemas/responses';
import type { AssistantChatMessage, ChatCompletion, ChatCompletionRequest, ChatContent, ChatMessage, ChatParams, ChatTool, ChatToolCall } from './wire';

/**
 * Sampling settings outside the Responses API that a `sampling_overrides` may pin (vLLM and most
 * chat servers take them): carried across the conversion under the same names, both ways.
 */
const SAMPLING_EXTRAS = ['seed', 'stop', 'top_k', 'min_p', 'frequency_penalty', 'presence_penalty', 'repetition_penalty'] as const;

export type NewId = (prefix: string) => string;
export const randomId: NewId = (prefix) => `${prefix}_${randomBytes(12).toString('hex')}`;

/** NeMo Gym's ForTraining token bundle; it is all-or-nothing, so a partial bundle counts as none. */
export interface TrainingTokenIds {
  prompt_token_ids: number[];
  generation_token_ids: number[];
  generation_log_probs: number[];
}

export function trainingTokensOf(item: object | undefined): TrainingTokenIds | undefined {
  const t = item as Partial<TrainingTokenIds> | undefined;
  if (!t?.prompt_token_ids || !t.generation_token_ids || !t.generation_log_probs) return undefined;
  return {
    prompt_token_ids: t.prompt_token_ids,
    generation_token_ids: t.generation_token_ids,
    generation_log_probs: t.generation_log_probs,
  };
}

/** The text of string-or-parts content: every part that carries text, joined. Images have none. */
export function contentText(content: string | readonly object[]): string {
  if (typeof content === 'string') return content;
  return content
    .map((part) => {
      const p = part as { text?: unknown; refusal?: unknown };
      return typeof p.text === 'string' ? p.text : typeof p.refusal === 'string' ? p.refusal : '';
    })
    .join('');
}

const THINK_BLOCK = /<think>([\s\S]*?)<\/think>/g;
const THINK_CLOSE = '</think>';

/**
 * Reasoning wrapped in <think> blocks, and the text around them. A lone closing tag counts too:
 * chat templates that open <think> in the prompt leave only `reasoning</think>answer` in the output.
 */
export function splitThink(content: string): { reasoning: string[]; text: string } {
  const reasoning: string[] = [];
  let text = content.replace(THINK_BLOCK, (_block, inner: string) => {
    reasoning.push(inner.trim());
    return '';
  });
  const close = text.indexOf(THINK_CLOSE);
  if (close >= 0) {
    reasoning.unshift(text.slice(0, close).trim());
    text = text.slice(close + THINK_CLOSE.length);
  }
  if (reasoning.length === 0) return { reasoning, text: content };
  return { reasoning: reasoning.filter((r) => r.length > 0), text: text.trimStart() };
}

function unsupportedPart(type: string, where: string): GymError {
  return new GymError('BAD_INPUT', `content part type "${type}" is not supported in ${where}`);
}

function toChatContent(content: string | readonly { type: string }[]): ChatContent {
  if (typeof content === 'string') return content;
  return content.map((part) => {
    const p = part as { type: string; text?: string; image_url?: string; detail?: string; video_url?: string; input_audio?: unknown; file_id?: string; file_data?: string; filename?: string };
    if (p.type === 'input_text' || p.type === 'output_text' || p.type === 'text') return { type: 'text', text: p.text ?? '' };
    if (p.type === 'input_image') return { type: 'image_url', image_url: { url: p.image_url, ...(p.detail ? { detail: p.detail } : {}) } };
    if (p.type === 'input_video') return { type: 'video_url', video_url: { url: p.video_url } };
    if (p.type === 'input_audio') return { type: 'input_audio', input_audio: p.input_audio };
    if (p.type === 'input_file') {
      const file = { file_id: p.file_id, file_data: p.file_data, filename: p.filename };
      return { type: 'file', file: Object.fromEntries(Object.entries(file).filter(([, v]) => v != null)) };
    }
    throw unsupportedPart(p.type, 'a Responses message');
  });
}

function toResponsesContent(content: ChatContent): string | { type: string }[] {
  if (typeof content === 'string') return content;
  return content.map((part) => {
    const p = part as { type: string; text?: string; image_url?: { url?: string; detail?: string }; video_url?: { url?: string }; input_audio?: unknown; file?: object };
    if (p.type === 'text') return { type: 'input_text', text: p.text ?? '' };
    if (p.type === 'image_url') {
      return { type: 'input_image', image_url: p.image_url?.url, ...(p.image_url?.detail ? { detail: p.image_url.detail } : {}) };
    }
    if (p.type === 'video_url') return { type: 'input_video', video_url: p.video_url?.url };
    if (p.type === 'input_audio') return { type: 'input_audio', input_audio: p.input_audio };
    if (p.type === 'file') return { type: 'input_file', ...p.file };
    throw unsupportedPart(p.type, 'a chat message');
  });
}

/**
 * A tool's output for a chat tool message: text as a string (what every chat server takes), and an
 * output with images or files as content parts, so nothing the tool returned is lost.
 */
function toolContent(output: string | readonly { type: string }[]): ChatContent {
  if (typeof output === 'string') return output;
  const textOnly = output.every((p) => p.type === 'input_text' || p.type === 'output_text' || p.type === 'text');
  return textOnly ? contentText(output) : toChatContent(output);
}

function toChatTool(tool: FunctionTool | CustomTool): ChatTool {
  if (tool.type === 'custom') {
    return { type: 'custom', custom: { name: tool.name, ...(tool.description != null ? { description: tool.description } : {}), ...(tool.format != null ? { format: tool.format } : {}) } };
  }
  return {
    type: 'function',
    function: {
      name: tool.name,
      ...(tool.description != null ? { description: tool.description } : {}),
      ...(tool.parameters != null ? { parameters: tool.parameters } : {}),
    },
  };
}

function toChatToolChoice(choice: unknown): unknown {
  const c = choice as { type?: unknown; name?: unknown } | null;
  return c && typeof c === 'object' && c.type === 'function' ? { type: 'function', function: { name: c.name } } : choice;
}

function toResponsesToolChoice(choice: unknown): unknown {
  const c = choice as { type?: unknown; function?: { name?: unknown } } | null;
  return c && typeof c === 'object' && c.type === 'function' ? { type: 'function', name: c.function?.name } : choice;
}

/** Responses fields that have the same name and meaning in Chat Completions. */
const SHARED_PARAMS = ['model', 'temperature', 'top_p', 'user', 'metadata', 'store', 'service_tier', 'top_logprobs', ...SAMPLING_EXTRAS] as const;

/** Responses create params → chat create params (instructions, merged assistant turns, tools). */
export function responsesToChatRequest(params: ResponseCreateParams): ChatParams {
  const messages: ChatMessage[] = [];
  // Consecutive reasoning / assistant message / function_call items are one assistant turn in chat.
  let turn: { content: string; toolCalls: ChatToolCall[]; tokens?: TrainingTokenIds; said?: boolean } | undefined;
  const openTurn = (item: ConversationItem) => {
    turn ??= { content: '', toolCalls: [] };
    turn.tokens = trainingTokensOf(item) ?? turn.tokens;
    return turn;
  };
  const closeTurn = () => {
    if (!turn) return;
    messages.push({
      role: 'assistant',
      content: turn.content,
      ...(turn.toolCalls.length > 0 ? { tool_calls: turn.toolCalls } : {}),
      ...turn.tokens,
    });
    turn = undefined;
  };

  for (const item of inputItems(params.input)) {
    if (item.type === 'reasoning') {
      openTurn(item).content += `<think>${item.summary.map((s) => s.text).join('\n')}</think>`;
    } else if (item.type === 'function_call') {
      openTurn(item).toolCalls.push({ id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } });
    } else if (item.type === 'custom_tool_call') {
      openTurn(item).toolCalls.push({ id: item.call_id, type: 'custom', custom: { name: item.name, input: item.input } });
    } else if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output') {
      closeTurn();
      messages.push({ role: 'tool', tool_call_id: item.call_id, content: toolContent(item.output) });
    } else if (item.role === 'assistant') {
      // A second assistant message is a turn of its own (steps whose observations were not kept): joined
      // into one text, the two would run together with nothing between them.
      if (turn?.said) closeTurn();
      const t = openTurn(item);
      t.content += contentText(item.content);
      t.said = true;
    } else {
      closeTurn();
      messages.push({ role: item.role, content: toChatContent(item.content) });
    }
  }
  closeTurn();

  if (params.instructions) {
    const system = [params.instructions];
    while (messages[0]?.role === 'system' || messages[0]?.role === 'developer') system.push(contentText(messages.shift()!.content ?? ''));
    messages.unshift({ role: 'system', content: system.join('\n\n') });
  }

  const chat: ChatParams = { messages };
  for (const key of SHARED_PARAMS) if (params[key] != null) (chat as Record<string, unknown>)[key] = params[key];
  if (params.max_output_tokens != null) chat.max_tokens = params.max_output_tokens;
  const effort = (params.reasoning as { effort?: unknown } | null | undefined)?.effort;
  if (typeof effort === 'string') chat.reasoning_effort = effort;

  const tools = params.tools ?? [];
  if (tools.length > 0) {
    chat.tools = tools.map(toChatTool);
    if (params.tool_choice != null) chat.tool_choice = toChatToolChoice(params.tool_choice);
    if (params.parallel_tool_calls != null) chat.parallel_tool_calls = params.parallel_tool_calls;
  } else if (params.tool_choice === 'required') {
    throw new GymError('BAD_INPUT', 'tool_choice "required" needs at least one tool in `tools`');
  }
  return chat;
}

/** The items one chat assistant message stands for: reasoning, then text, then one function_call per tool call. */
function assistantItems(message: AssistantChatMessage): ConversationItem[] {
  const think = splitThink(message.content == null ? '' : contentText(message.content));
  const reasoning = [message.reasoning_content ?? message.reasoning ?? '', ...think.reasoning].filter((r) => r.length > 0);
  const calls = message.tool_calls ?? [];
  const items: ConversationItem[] = [];
  if (reasoning.length > 0) items.push({ type: 'reasoning', summary: reasoning.map((text) => ({ type: 'summary_text', text })) });
  if (think.text || (calls.length === 0 && reasoning.length === 0)) {
    items.push({ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: think.text, annotations: [] }] });
  }
  for (const call of calls) {
    items.push(
      call.type === 'custom'
        ? { type: 'custom_tool_call', call_id: call.id, name: call.custom.name, input: call.custom.input, status: 'completed' }
        : { type: 'function_call', call_id: call.id, name: call.function.name, arguments: call.function.arguments, status: 'completed' },
    );
  }
  const tokens = trainingTokensOf(message);
  if (tokens && items.length > 0) items[items.length - 1] = { ...items[items.length - 1]!, ...tokens };
  return items;
}

/** Chat create params → Responses create params; the mock serves chat callers with it. */
export function chatRequestToResponses(request: ChatCompletionRequest): ResponseCreateParams & { model: string } {
  const input: ConversationItem[] = [];
  // Chat's tool messages do not say which kind of tool answered; the call they answer does.
  const customCalls = new Set<string>();
  for (const message of request.messages) {
    if (message.role === 'assistant') {
      for (const call of message.tool_calls ?? []) if (call.type === 'custom') customCalls.add(call.id);
      input.push(...assistantItems(message));
    } else if (message.role === 'tool') {
      const output = typeof message.content === 'string' ? message.content : (toResponsesContent(message.content) as { type: string }[]);
      input.push({ type: customCalls.has(message.tool_call_id) ? 'custom_tool_call_output' : 'function_call_output', call_id: message.tool_call_id, output });
    } else {
      input.push({ type: 'message', role: message.role, content: toResponsesContent(message.content) });
    }
  }
  const params: ResponseCreateParams & { model: string } = { model: request.model, input };
  const tools = request.tools ?? [];
  if (tools.length > 0) {
    params.tools = tools.map((t) =>
      t.type === 'custom'
        ? { type: 'custom', name: t.custom.name, description: t.custom.description, ...(t.custom.format != null ? { format: t.custom.format } : {}) }
        : { type: 'function', name: t.function.name, description: t.function.description, parameters: t.function.parameters },
    );
  }
  if (request.reasoning_effort != null) params.reasoning = { effort: request.reasoning_effort };
  if (request.tool_choice != null) params.tool_choice = toResponsesToolChoice(request.tool_choice);
  if (request.parallel_tool_calls != null) params.parallel_tool_calls = request.parallel_tool_calls;
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  if (maxTokens != null) params.max_output_tokens = maxTokens;
  if (request.temperature != null) params.temperature = request.temperature;
  if (request.top_p != null) params.top_p = request.top_p;
  for (const key of SAMPLING_EXTRAS) if (request[key] != null) params[key] = request[key];
  return params;
}

const INCOMPLETE_REASONS: Record<string, string> = { length: 'max_output_tokens', content_filter: 'content_filter' };

/** Request fields a Responses reply repeats back, as OpenAI's does. */
const ECHOED_PARAMS = ['instructions', 'tools', 'tool_choice', 'temperature', 'top_p', 'max_output_tokens', 'parallel_tool_calls', 'metadata'] as const;

/** A chat completion → a Responses object (first choice; token ids on the last output item). */
export function chatCompletionToResponse(completion: ChatCompletion, options: { params?: ResponseCreateParams; newId?: NewId } = {}): ResponseObject {
  const newId = options.newId ?? randomId;
  const choice = completion.choices[0];
  if (!choice) throw new GymError('UNREACHABLE', `chat completion ${completion.id} has no choices`);
  const output = assistantItems(choice.message).map((item) =>
    item.type === 'reasoning' ? { ...item, id: newId('rs') } : item.type === 'function_call' ? { ...item, id: item.call_id } : { ...item, id: newId('msg') },
  );
  const incompleteReason = INCOMPLETE_REASONS[choice.finish_reason ?? ''];
  const usage = completion.usage;
  const echoed: Record<string, unknown> = {};
  for (const key of ECHOED_PARAMS) if (options.params?.[key] != null) echoed[key] = options.params[key];
  return {
    ...echoed,
    id: newId('resp'),
    object: 'response',
    created_at: completion.created,
    model: completion.model,
    status: incompleteReason ? 'incomplete' : 'completed',
    output,
    usage: usage
      ? {
          input_tokens: usage.prompt_tokens,
          output_tokens: usage.completion_tokens,
          total_tokens: usage.total_tokens,
          input_tokens_details: { cached_tokens: usage.prompt_tokens_details?.cached_tokens ?? 0 },
          output_tokens_details: { reasoning_tokens: usage.completion_tokens_details?.reasoning_tokens ?? 0 },
        }
      : null,
    incomplete_details: incompleteReason ? { reason: incompleteReason } : null,
  };
}

const FINISH_REASONS: Record<string, string> = { max_output_tokens: 'length', content_filter: 'content_filter' };

/** A Responses object → a chat completion; the mock answers chat callers with it. */
export function responseToChatCompletion(response: ResponseObject, options: { newId?: NewId } = {}): ChatCompletion {
  const newId = options.newId ?? randomId;
  let text = '';
  const reasoning: string[] = [];
  const toolCalls: ChatToolCall[] = [];
  for (const item of response.output) {
    if (item.type === 'reasoning') reasoning.push(...item.summary.map((s) => s.text));
    else if (item.type === 'function_call') toolCalls.push({ id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } });
    else if (item.type === 'custom_tool_call') toolCalls.push({ id: item.call_id, type: 'custom', custom: { name: item.name, input: item.input } });
    else if (isMessage(item) && item.role === 'assistant') text += contentText(item.content);
  }
  const incompleteReason = response.incomplete_details?.reason;
  const finishReason = (incompleteReason && FINISH_REASONS[incompleteReason]) || (toolCalls.length > 0 ? 'tool_calls' : 'stop');
  const message: AssistantChatMessage = {
    role: 'assistant',
    content: text || (toolCalls.length > 0 ? null : ''),
    ...(reasoning.length > 0 ? { reasoning_content: reasoning.join('\n') } : {}),
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    ...trainingTokensOf(response.output.at(-1)),
  };
  const usage = response.usage;
  return {
    id: newId('chatcmpl'),
    object: 'chat.completion',
    created: response.created_at ?? 0,
    model: response.model ?? '',
    choices: [{ index: 0, message, finish_reason: finishReason, logprobs: null }],
    ...(usage ? { usage: { prompt_tokens: usage.input_tokens, completion_tokens: usage.output_tokens, total_tokens: usage.total_tokens } } : {}),
  };
}

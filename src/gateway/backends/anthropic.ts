// An Anthropic Messages upstream (`POST /v1/messages`): Responses params become a Messages request
// and the Message a Responses object, so every gateway route can be served by a Claude model. Thinking
// blocks keep their signature (as the reasoning item's encrypted_content) so a later turn can replay them.
import { inputItems, isMessage, type ConversationItem, type ResponseCreateParams, type ResponseObject } from '../../schemas/responses';
import { chatRequestToResponses, contentText, randomId, responseToChatCompletion } from '../convert';
import { GatewayError } from '../errors';
import type { AnthropicModelSpec } from '../spec';
import type { Backend, CallContext } from './backend';
import { MessageAssembly, type AnthropicReply } from './anthropic-stream';
import { createUpstream, upstreamPlacement } from './upstream';

const ANTHROPIC_API = 'https://api.anthropic.com';

type Block = Record<string, unknown> & { type: string };
interface Turn {
  role: 'user' | 'assistant';
  content: Block[];
}

function unsupported(field: string, why: string): never {
  throw new GatewayError(400, 'invalid_request_error', 'unsupported_parameter', `${field}: ${why}`, field);
}

function imageBlock(url: unknown, at: string): Block {
  if (typeof url !== 'string') return unsupported(at, 'an input_image needs an image_url');
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (data) return { type: 'image', source: { type: 'base64', media_type: data[1], data: data[2] } };
  return { type: 'image', source: { type: 'url', url } };
}

function userBlocks(content: string | readonly { type: string }[], at: string): Block[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return content.map((part, i) => {
    const p = part as Record<string, unknown> & { type: string };
    if (p.type === 'input_text' || p.type === 'output_text' || p.type === 'text') return { type: 'text', text: String(p.text ?? '') };
    if (p.type === 'input_image') return imageBlock(p.image_url, `${at}.content[${i}]`);
    return unsupported(`${at}.content[${i}].type`, `content parts of type "${p.type}" cannot be sent to an Anthropic model`);
  });
}

function toolInput(args: string, at: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(args || '{}');
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // Reported below.
  }
  return unsupported(`${at}.arguments`, 'an Anthropic tool_use needs arguments that are a JSON object');
}

const TOOL_CHOICE: Record<string, string> = { auto: 'auto', required: 'any', none: 'none' };

/** Responses params → a Messages request; consecutive items of one role form one turn, as Messages requires. */
export function responsesToMessagesRequest(params: ResponseCreateParams, model: string, defaultMaxTokens: number): Record<string, unknown> {
  const system: string[] = params.instructions ? [params.instructions] : [];
  const turns: Turn[] = [];
  const add = (role: Turn['role'], blocks: Block[]) => {
    const last = turns.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  };
  inputItems(params.input).forEach((item: ConversationItem, i) => {
    const at = `input[${i}]`;
    if (item.type === 'reasoning') {
      // A thinking block is accepted back only with the signature Anthropic gave it; others cannot be replayed.
      if (item.encrypted_content) add('assistant', [{ type: 'thinking', thinking: item.summary.map((s) => s.text).join('\n'), signature: item.encrypted_content }]);
    } else if (item.type === 'function_call') {
      add('assistant', [{ type: 'tool_use', id: item.call_id, name: item.name, input: toolInput(item.arguments, at) }]);
    } else if (item.type === 'custom_tool_call') {
      // Anthropic tools take JSON input: a free-form input travels as {"input": text}.
      add('assistant', [{ type: 'tool_use', id: item.call_id, name: item.name, input: { input: item.input } }]);
    } else if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output') {
      add('user', [{ type: 'tool_result', tool_use_id: item.call_id, content: typeof item.output === 'string' ? item.output : userBlocks(item.output, `${at}.output`) }]);
    } else if (!isMessage(item)) {
      unsupported(`${at}.type`, `items of type "${String((item as { type?: unknown }).type)}" cannot be sent to an Anthropic model`);
    } else if (item.role === 'system' || item.role === 'developer') {
      if (turns.length > 0) unsupported(`${at}.role`, 'an Anthropic model takes system text only before the conversation');
      system.push(contentText(item.content));
    } else if (item.role === 'assistant') {
      const text = contentText(item.content);
      if (text) add('assistant', [{ type: 'text', text }]);
    } else {
      add('user', userBlocks(item.content, at));
    }
  });
  const request: Record<string, unknown> = { model, messages: turns, max_tokens: params.max_output_tokens ?? defaultMaxTokens };
  if (system.length > 0) request.system = system.join('\n\n');
  if (params.temperature != null) request.temperature = params.temperature;
  if (params.top_p != null) request.top_p = params.top_p;
  if (params.top_k != null) request.top_k = params.top_k;
  if (params.stop != null) request.stop_sequences = Array.isArray(params.stop) ? params.stop : [params.stop];
  const tools = params.tools ?? [];
  if (tools.length > 0) {
    const custom = { type: 'object', properties: { input: { type: 'string' } }, required: ['input'] };
    request.tools = tools.map((t) => ({
      name: t.name,
      ...(t.description ? { description: t.description } : {}),
      input_schema: (t.type === 'function' ? t.parameters : undefined) ?? (t.type === 'custom' ? custom : { type: 'object', properties: {} }),
    }));
    const choice = params.tool_choice as string | { type?: string; name?: string } | undefined | null;
    const picked: Record<string, unknown> | undefined =
      typeof choice === 'string' ? { type: TOOL_CHOICE[choice] ?? 'auto' } : choice?.type === 'function' ? { type: 'tool', name: choice.name } : undefined;
    if (params.parallel_tool_calls === false) request.tool_choice = { ...(picked ?? { type: 'auto' }), disable_parallel_tool_use: true };
    else if (picked) request.tool_choice = picked;
  }
  return request;
}

/** A Message → a Responses object: text blocks as one message each, tool_use as function calls, thinking as reasoning. */
export function messageToResponse(reply: AnthropicReply, params: ResponseCreateParams): ResponseObject {
  if (!Array.isArray(reply.content)) throw new GatewayError(502, 'upstream_error', 'invalid_upstream_response', 'the Anthropic upstream returned a Message without a content list');
  const output: ConversationItem[] = [];
  for (const block of reply.content) {
    if (block.type === 'text') {
      output.push({ type: 'message', id: randomId('msg'), role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: String(block.text ?? ''), annotations: [] }] });
    } else if (block.type === 'tool_use') {
      output.push({ type: 'function_call', id: String(block.id), call_id: String(block.id), name: String(block.name), arguments: JSON.stringify(block.input ?? {}), status: 'completed' });
    } else if (block.type === 'thinking') {
      output.push({ type: 'reasoning', id: randomId('rs'), summary: [{ type: 'summary_text', text: String(block.thinking ?? '') }], encrypted_content: String(block.signature ?? '') || null });
    }
  }
  const usage = reply.usage ?? {};
  const cached = usage.cache_read_input_tokens ?? 0;
  // Anthropic counts cached and cache-writing prompt tokens apart from input_tokens; Responses' input_tokens holds them all.
  const input = (usage.input_tokens ?? 0) + cached + (usage.cache_creation_input_tokens ?? 0);
  const outputTokens = usage.output_tokens ?? 0;
  const incomplete = reply.stop_reason === 'max_tokens';
  return {
    id: randomId('resp'),
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    model: reply.model ?? null,
    status: incomplete ? 'incomplete' : 'completed',
    output,
    usage: { input_tokens: input, output_tokens: outputTokens, total_tokens: input + outputTokens, input_tokens_details: { cached_tokens: cached }, output_tokens_details: { reasoning_tokens: 0 } },
    incomplete_details: incomplete ? { reason: 'max_output_tokens' } : null,
    ...(params.instructions ? { instructions: params.instructions } : {}),
  };
}

export function anthropicBackend(spec: AnthropicModelSpec): Backend {
  const { replicas, rotation, timeouts } = upstreamPlacement(spec, ANTHROPIC_API);
  const label = spec.base_url === undefined && spec.endpoint_file === undefined ? 'the Anthropic API' : `${spec.model} at ${replicas.current.join(', ') || spec.endpoint_file}`;
  const upstream = createUpstream({
    label,
    replicas,
    rotation,
    timeouts,
    headers: () => {
      const apiKey = process.env[spec.api_key_env];
      if (!apiKey) {
        throw new GatewayError(500, 'server_error', 'missing_api_key', `environment variable ${spec.api_key_env} is not set where the gateway runs; set it to the Anthropic API key`);
      }
      return { 'x-api-key': apiKey, 'anthropic-version': spec.anthropic_version };
    },
    secret: () => process.env[spec.api_key_env],
  });

  /** A Messages stream's pieces passed on as they come; its answer, the Message they make up. */
  async function streamMessage(request: object, ctx: CallContext): Promise<AnthropicReply> {
    const assembly = new MessageAssembly(label);
    for await (const raw of upstream.postStream('/v1/messages', { ...request, stream: true }, { signal: ctx.signal, session: ctx.session })) {
      const event = raw as Record<string, any>;
      // An upstream that ignored `stream: true` answered whole.
      if (event.type === 'message') return event as AnthropicReply;
      for (const delta of assembly.add(event)) ctx.onDelta?.(delta);
    }
    return assembly.reply();
  }

  async function responses(params: ResponseCreateParams, ctx: CallContext): Promise<ResponseObject> {
    const request = responsesToMessagesRequest(params, spec.model, spec.max_tokens);
    // A streaming caller gets the upstream's pieces as they come, unless the spec says to ask for whole answers.
    const reply =
      (spec.stream_upstream ?? Boolean(ctx.onDelta))
        ? await streamMessage(request, ctx)
        : ((await upstream.postJson('/v1/messages', request, { signal: ctx.signal, session: ctx.session })) as AnthropicReply);
    return messageToResponse(reply, params);
  }

  return {
    kind: 'anthropic',
    responses,
    chatCompletions: async (request, ctx) => responseToChatCompletion(await responses(chatRequestToResponses(request), ctx)),
    close: () => upstream.close(),
  };
}

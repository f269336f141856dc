// Anthropic Messages (`/v1/messages`) at the gateway's edge: the request validated, turned into the
// Responses params every backend serves, and the Responses answer turned back into a Message.
import { z } from 'zod';
import { isMessage, type ConversationItem, type FunctionTool, type ResponseCreateParams, type ResponseObject } from '../schemas/responses';
import { contentText, randomId } from './convert';
import { GatewayError } from './errors';

const Block = z.looseObject({ type: z.string() });
const TextBlock = z.looseObject({ type: z.literal('text'), text: z.string() });

export const MessagesRequest = z.looseObject({
  model: z.string().min(1),
  max_tokens: z.number().int().min(1),
  messages: z
    // Claude Code (2.1) also sends `system` turns mid-conversation (its environment notes).
    .array(z.looseObject({ role: z.enum(['user', 'assistant', 'system']), content: z.union([z.string(), z.array(Block)]) }))
    .min(1),
  system: z.union([z.string(), z.array(TextBlock)]).optional(),
  tools: z.array(z.looseObject({ name: z.string().min(1), description: z.string().optional(), input_schema: z.record(z.string(), z.unknown()).optional() })).optional(),
  tool_choice: z.looseObject({ type: z.enum(['auto', 'any', 'tool', 'none']), name: z.string().optional(), disable_parallel_tool_use: z.boolean().optional() }).optional(),
  temperature: z.number().optional(),
  top_p: z.number().optional(),
  top_k: z.number().optional(),
  stop_sequences: z.array(z.string()).optional(),
  stream: z.boolean().optional(),
});
export type MessagesRequest = z.infer<typeof MessagesRequest>;

export type AnthropicBlock =
  { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> } | { type: 'thinking'; thinking: string; signature: string };

export interface AnthropicMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: AnthropicBlock[];
  stop_reason: 'end_turn' | 'max_tokens' | 'tool_use';
  stop_sequence: null;
  usage: { input_tokens: number; output_tokens: number; cache_creation_input_tokens: number; cache_read_input_tokens: number };
}

function unsupported(field: string, why: string): never {
  throw new GatewayError(400, 'invalid_request_error', 'unsupported_parameter', `${field}: ${why}`, field);
}

/** A tool_result's content as the text a function_call_output carries. */
function resultText(content: unknown, at: string): string {
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) unsupported(at, 'a tool_result content must be a string or a list of text blocks');
  return contentText(content as object[]);
}

function imagePart(block: Record<string, unknown>, at: string): Record<string, unknown> {
  const source = block.source as { type?: string; media_type?: string; data?: string; url?: string } | undefined;
  if (source?.type === 'base64' && source.media_type && source.data) return { type: 'input_image', image_url: `data:${source.media_type};base64,${source.data}` };
  if (source?.type === 'url' && source.url) return { type: 'input_image', image_url: source.url };
  return unsupported(`${at}.source`, 'an image source must be base64 (media_type, data) or url');
}

/** One Anthropic turn → Responses items, in block order; neighbouring text and images share one message. */
function turnItems(role: 'user' | 'assistant', content: string | Record<string, unknown>[], at: string): ConversationItem[] {
  if (typeof content === 'string') return [{ type: 'message', role, content: role === 'user' ? content : [{ type: 'output_text', text: content, annotations: [] }] }];
  const items: ConversationItem[] = [];
  let parts: Record<string, unknown>[] = [];
  const flush = () => {
    if (parts.length > 0) items.push({ type: 'message', role, content: parts as { type: string }[] });
    parts = [];
  };
  content.forEach((block, i) => {
    const where = `${at}.content[${i}]`;
    switch (block.type) {
      case 'text':
        parts.push({ type: role === 'user' ? 'input_text' : 'output_text', text: String(block.text ?? ''), ...(role === 'assistant' ? { annotations: [] } : {}) });
        return;
      case 'image':
        if (role !== 'user') unsupported(where, 'images are accepted in user turns only');
        parts.push(imagePart(block, where));
        return;
      case 'tool_use':
        flush();
        items.push({ type: 'function_call', call_id: String(block.id), name: String(block.name), arguments: JSON.stringify(block.input ?? {}) });
        return;
      case 'tool_result':
        flush();
        items.push({ type: 'function_call_output', call_id: String(block.tool_use_id), output: resultText(block.content, `${where}.content`) });
        return;
      case 'thinking':
        flush();
        items.push({ type: 'reasoning', summary: [{ type: 'summary_text', text: String(block.thinking ?? '') }] });
        return;
      case 'redacted_thinking':
        // Opaque to every backend here: nothing of it can be replayed to a model.
        return;
      default:
        unsupported(`${where}.type`, `content blocks of type "${block.type}" are not supported; send text, image, tool_use, tool_result or thinking`);
    }
  });
  flush();
  return items;
}

const TOOL_CHOICE: Record<string, unknown> = { auto: 'auto', any: 'required', none: 'none' };

export function messagesToResponses(request: MessagesRequest): ResponseCreateParams {
  const system = request.system === undefined ? undefined : typeof request.system === 'string' ? request.system : request.system.map((b) => b.text).join('\n');
  // The system prompt leads the input as a system message (not `instructions`), as NeMo Gym's task rows
  // hold it, so a conversation from a Messages client matches the task it came from.
  const input: ConversationItem[] = [
    ...(system ? [{ type: 'message' as const, role: 'system' as const, content: system }] : []),
    ...request.messages.flatMap((m, i) =>
      m.role === 'system'
        ? [{ type: 'message' as const, role: 'system' as const, content: typeof m.content === 'string' ? m.content : m.content.map((b) => String(b.text ?? '')).join('\n') }]
        : turnItems(m.role, m.content as string | Record<string, unknown>[], `messages[${i}]`),
    ),
  ];
  const tools: FunctionTool[] | undefined = request.tools?.map((t) => ({ type: 'function', name: t.name, description: t.description, parameters: t.input_schema }));
  const choice = request.tool_choice;
  return {
    input,
    ...(tools ? { tools } : {}),
    ...(choice ? { tool_choice: choice.type === 'tool' ? { type: 'function', name: choice.name } : TOOL_CHOICE[choice.type] } : {}),
    ...(choice?.disable_parallel_tool_use ? { parallel_tool_calls: false } : {}),
    max_output_tokens: request.max_tokens,
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.top_p !== undefined ? { top_p: request.top_p } : {}),
    // Carried as the sampling extras chat servers take (`stop`, `top_k`); the anthropic backend names them back.
    ...(request.stop_sequences?.length ? { stop: request.stop_sequences } : {}),
    ...(request.top_k !== undefined ? { top_k: request.top_k } : {}),
  };
}

function toolInput(args: string, name: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(args || '{}');
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // Reported below: Anthropic clients need an object, so a model's malformed arguments cannot pass.
  }
  throw new GatewayError(502, 'upstream_error', 'invalid_upstream_response', `the model called ${name} with arguments that are not a JSON object: ${args.slice(0, 200)}`);
}

/** A Responses answer as an Anthropic Message named `model` (the name the caller asked for). */
export function responseToMessage(response: ResponseObject, model: string): AnthropicMessage {
  const content: AnthropicBlock[] = [];
  for (const item of response.output) {
    if (item.type === 'reasoning') content.push({ type: 'thinking', thinking: item.summary.map((s) => s.text).join('\n'), signature: '' });
    else if (item.type === 'function_call') content.push({ type: 'tool_use', id: item.call_id, name: item.name, input: toolInput(item.arguments, item.name) });
    else if (isMessage(item) && item.role === 'assistant') content.push({ type: 'text', text: contentText(item.content) });
  }
  const usage = response.usage;
  return {
    id: randomId('msg'),
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: content.some((b) => b.type === 'tool_use') ? 'tool_use' : response.incomplete_details?.reason === 'max_output_tokens' ? 'max_tokens' : 'end_turn',
    stop_sequence: null,
    usage: {
      input_tokens: usage?.input_tokens ?? 0,
      output_tokens: usage?.output_tokens ?? 0,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: usage?.input_tokens_details?.cached_tokens ?? 0,
    },
  };
}

/** Anthropic's error body; its `type` names the kind of failure the way Anthropic's API does. */
export function anthropicError(status: number, message: string): { type: 'error'; error: { type: string; message: string } } {
  const type =
    status === 400 || status === 413 || status === 415
      ? 'invalid_request_error'
      : status === 401
        ? 'authentication_error'
        : status === 403
          ? 'permission_error'
          : status === 404
            ? 'not_found_error'
            : status === 429
              ? 'rate_limit_error'
              : status === 504
                ? 'timeout_error'
                : 'api_error';
  return { type: 'error', error: { type, message } };
}

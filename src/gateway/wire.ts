// The OpenAI wire shapes the gateway validates at its edge: Responses and Chat Completions requests,
// and the chat completion it returns or receives. Loose objects, so fields the gateway does not read
// still reach an upstream model untouched.
import { z } from 'zod';
import { CustomTool, FunctionTool, ResponseCreateParams, TrainingTokens } from '../schemas/responses';

/** What a backend is given: tools it can play (function and custom) only. */
export const ResponsesRequest = ResponseCreateParams.extend({
  model: z.string().min(1),
  stream: z.boolean().nullish(),
});
export type ResponsesRequest = z.infer<typeof ResponsesRequest>;

/**
 * A Responses tool that is neither a function nor a custom tool: Codex's `namespace` (a group of
 * function tools) and the hosted tools (`web_search`, `image_generation`, `file_search`…). Only an
 * upstream Responses API knows what to do with one; every other backend gets the request without it.
 */
export const HostedTool = z.looseObject({
  type: z.string().refine((type) => type !== 'function' && type !== 'custom', 'a function or custom tool needs a "name"'),
});
export type HostedTool = z.infer<typeof HostedTool>;

/** A Responses request as callers send it, hosted and namespace tools included. */
export const ResponsesEdgeRequest = ResponsesRequest.extend({
  tools: z.array(z.union([FunctionTool, CustomTool, HostedTool])).nullish(),
});
export type ResponsesEdgeRequest = z.infer<typeof ResponsesEdgeRequest>;

/** The request without the tools only an upstream Responses API can take (for the mock, vLLM, Anthropic, chat upstreams). */
export function withoutHostedTools(request: ResponsesEdgeRequest): ResponsesRequest {
  if (!request.tools) return request as ResponsesRequest;
  const tools = request.tools.filter((t): t is FunctionTool | CustomTool => t.type === 'function' || t.type === 'custom');
  return { ...request, tools } as ResponsesRequest;
}

export const ChatContentPart = z.looseObject({ type: z.string() });
export const ChatContent = z.union([z.string(), z.array(ChatContentPart)]);

export const FunctionChatToolCall = z.looseObject({
  id: z.string(),
  type: z.literal('function'),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});

/** A call of a custom (free-form input) tool: OpenAI's chat shape for Responses' custom_tool_call. */
export const CustomChatToolCall = z.looseObject({
  id: z.string(),
  type: z.literal('custom'),
  custom: z.looseObject({ name: z.string(), input: z.string() }),
});

export const ChatToolCall = z.discriminatedUnion('type', [FunctionChatToolCall, CustomChatToolCall]);

const SimpleChatMessage = (role: 'system' | 'developer' | 'user') => z.looseObject({ role: z.literal(role), content: ChatContent, name: z.string().optional() });

export const AssistantChatMessage = z.looseObject({
  role: z.literal('assistant'),
  content: ChatContent.nullish(),
  tool_calls: z.array(ChatToolCall).nullish(),
  /** vLLM's reasoning-parser field; `reasoning` is its newer spelling. */
  reasoning_content: z.string().nullish(),
  reasoning: z.string().nullish(),
  ...TrainingTokens,
});

export const ToolChatMessage = z.looseObject({ role: z.literal('tool'), tool_call_id: z.string(), content: ChatContent });

export const ChatMessage = z.discriminatedUnion('role', [SimpleChatMessage('system'), SimpleChatMessage('developer'), SimpleChatMessage('user'), AssistantChatMessage, ToolChatMessage]);

export const FunctionChatTool = z.looseObject({
  type: z.literal('function'),
  function: z.looseObject({
    name: z.string().min(1),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
  }),
});

export const CustomChatTool = z.looseObject({
  type: z.literal('custom'),
  custom: z.looseObject({ name: z.string().min(1), description: z.string().optional(), format: z.unknown().optional() }),
});

export const ChatTool = z.discriminatedUnion('type', [FunctionChatTool, CustomChatTool]);

export const ChatCompletionRequest = z.looseObject({
  model: z.string().min(1),
  messages: z.array(ChatMessage).min(1),
  tools: z.array(ChatTool).nullish(),
  tool_choice: z.unknown().optional(),
  parallel_tool_calls: z.boolean().nullish(),
  max_tokens: z.number().int().nullish(),
  max_completion_tokens: z.number().int().nullish(),
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
  stream: z.boolean().nullish(),
});

/** A chat request whose model is not chosen yet: what Responses params convert to. */
export const ChatParams = ChatCompletionRequest.partial({ model: true });

export const ChatUsage = z.looseObject({
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  total_tokens: z.number().int(),
  prompt_tokens_details: z.looseObject({ cached_tokens: z.number().int().nullish() }).nullish(),
  completion_tokens_details: z.looseObject({ reasoning_tokens: z.number().int().nullish() }).nullish(),
});

export const ChatCompletion = z.looseObject({
  id: z.string(),
  object: z.literal('chat.completion').optional(),
  created: z.number(),
  model: z.string(),
  choices: z.array(
    z.looseObject({
      index: z.number().int(),
      message: AssistantChatMessage,
      finish_reason: z.string().nullish(),
    }),
  ),
  usage: ChatUsage.nullish(),
});

export type ChatContent = z.infer<typeof ChatContent>;
export type ChatToolCall = z.infer<typeof ChatToolCall>;
export type ChatMessage = z.infer<typeof ChatMessage>;
export type AssistantChatMessage = z.infer<typeof AssistantChatMessage>;
export type ChatTool = z.infer<typeof ChatTool>;
export type FunctionChatTool = z.infer<typeof FunctionChatTool>;
export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequest>;
export type ChatParams = z.infer<typeof ChatParams>;
export type ChatCompletion = z.infer<typeof ChatCompletion>;

// OpenAI Responses API shapes as NeMo Gym uses them on the wire. Field names stay snake_case so
// NeMo Gym's JSONL files load unchanged; unknown fields are kept (loose objects) because real
// providers add fields over time and a rollout record must not lose them.
import { z } from 'zod';

export const InputTextPart = z.looseObject({ type: z.literal('input_text'), text: z.string() });
export const OutputTextPart = z.looseObject({
  type: z.literal('output_text'),
  text: z.string(),
  annotations: z.array(z.unknown()).optional(),
});
export const ContentPart = z.looseObject({ type: z.string() });

/**
 * A numeric array checked in one loop. Token ids ride along in every later request of a rollout, so they
 * are validated thousands of times per rollout; z.array(z.number()) costs a check object per element and
 * a copy, ~12x the time of this loop (measured), for the same verdict. Each kind has its own loop: one
 * loop calling a passed-in predicate per element ran ~15x slower again (measured, a call V8 did not inline).
 */
const integerArray = z.custom<number[]>((value) => {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) {
    const x: unknown = value[i];
    if (typeof x !== 'number' || !Number.isInteger(x)) return false;
  }
  return true;
}, 'expected an array of integers');
const finiteArray = z.custom<number[]>((value) => {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) {
    const x: unknown = value[i];
    if (typeof x !== 'number' || !Number.isFinite(x)) return false;
  }
  return true;
}, 'expected an array of numbers');

/** Token ids a policy produced for one generation; NeMo Gym puts them on the last output item of a turn. */
export const TrainingTokens = {
  prompt_token_ids: integerArray.optional(),
  generation_token_ids: integerArray.optional(),
  generation_log_probs: finiteArray.optional(),
};

export const MessageItem = z.looseObject({
  type: z.literal('message').optional(),
  id: z.string().nullish(),
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: z.union([z.string(), z.array(ContentPart)]),
  status: z.string().nullish(),
  ...TrainingTokens,
});

export const FunctionCallItem = z.looseObject({
  type: z.literal('function_call'),
  id: z.string().nullish(),
  call_id: z.string(),
  name: z.string(),
  arguments: z.string(),
  status: z.string().nullish(),
  ...TrainingTokens,
});

export const FunctionCallOutputItem = z.looseObject({
  type: z.literal('function_call_output'),
  id: z.string().nullish(),
  call_id: z.string(),
  output: z.union([z.string(), z.array(ContentPart)]),
  status: z.string().nullish(),
});

export const ReasoningItem = z.looseObject({
  type: z.literal('reasoning'),
  id: z.string().nullish(),
  summary: z.array(z.looseObject({ type: z.string(), text: z.string() })),
  encrypted_content: z.string().nullish(),
  ...TrainingTokens,
});

/** A call of a custom (free-form input) tool, as the Responses API sends it. */
export const CustomToolCallItem = z.looseObject({
  type: z.literal('custom_tool_call'),
  id: z.string().nullish(),
  call_id: z.string(),
  name: z.string(),
  input: z.string(),
  status: z.string().nullish(),
  ...TrainingTokens,
});

export const CustomToolCallOutputItem = z.looseObject({
  type: z.literal('custom_tool_call_output'),
  id: z.string().nullish(),
  call_id: z.string(),
  output: z.union([z.string(), z.array(ContentPart)]),
});

/** Any item of a conversation: what a task's input holds and what a model or tool appends. */
export const ConversationItem = z.union([MessageItem, FunctionCallItem, FunctionCallOutputItem, ReasoningItem, CustomToolCallItem, CustomToolCallOutputItem]);

export const FunctionTool = z.looseObject({
  type: z.literal('function'),
  name: z.string().min(1),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
});

/** A tool that takes free-form text (optionally constrained by a grammar) instead of JSON arguments. */
export const CustomTool = z.looseObject({
  type: z.literal('custom'),
  name: z.string().min(1),
  description: z.string().nullish(),
  format: z.unknown().optional(),
});

export const ResponseCreateParams = z.looseObject({
  input: z.union([z.string(), z.array(ConversationItem)]),
  instructions: z.string().nullish(),
  model: z.string().nullish(),
  tools: z.array(z.union([FunctionTool, CustomTool])).nullish(),
  tool_choice: z.unknown().optional(),
  parallel_tool_calls: z.boolean().nullish(),
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
  max_output_tokens: z.number().int().nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
});

export const Usage = z.looseObject({
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  total_tokens: z.number().int(),
  input_tokens_details: z.looseObject({ cached_tokens: z.number().int().nullish() }).nullish(),
  output_tokens_details: z.looseObject({ reasoning_tokens: z.number().int().nullish() }).nullish(),
});

export const ResponseObject = z.looseObject({
  id: z.string(),
  object: z.literal('response').optional(),
  created_at: z.number().optional(),
  model: z.string().nullish(),
  status: z.string().nullish(),
  output: z.array(ConversationItem),
  usage: Usage.nullish(),
  incomplete_details: z.looseObject({ reason: z.string().nullish() }).nullish(),
});

export type ConversationItem = z.infer<typeof ConversationItem>;
export type MessageItem = z.infer<typeof MessageItem>;
export type FunctionCallItem = z.infer<typeof FunctionCallItem>;
export type FunctionCallOutputItem = z.infer<typeof FunctionCallOutputItem>;
export type FunctionTool = z.infer<typeof FunctionTool>;
export type CustomTool = z.infer<typeof CustomTool>;
export type CustomToolCallItem = z.infer<typeof CustomToolCallItem>;
export type ResponseCreateParams = z.infer<typeof ResponseCreateParams>;
export type ResponseObject = z.infer<typeof ResponseObject>;
export type Usage = z.infer<typeof Usage>;

/** A message item (its `type` may be left out, as NeMo Gym's task rows do). */
export function isMessage(item: ConversationItem): item is MessageItem {
  return item.type === undefined || item.type === 'message';
}

/** The items of a string-or-list input, with a bare string turned into one user message as NeMo Gym does. */
export function inputItems(input: ResponseCreateParams['input']): ConversationItem[] {
  return typeof input === 'string' ? [{ type: 'message', role: 'user', content: input }] : input;
}

/** NeMo Gym's `output_text`: every output_text part of every assistant message of the episode, joined with "". */
export function outputText(items: readonly ConversationItem[]): string {
  let text = '';
  for (const item of items) {
    if (item.type === 'function_call' || item.type === 'function_call_output' || item.type === 'reasoning') continue;
    if ((item as MessageItem).role !== 'assistant') continue;
    const content = (item as MessageItem).content;
    if (typeof content === 'string') text += content;
    else for (const part of content) if (part.type === 'output_text') text += String((part as { text?: unknown }).text ?? '');
  }
  return text;
}

export function functionCalls(items: readonly ConversationItem[]): FunctionCallItem[] {
  return items.filter((i): i is FunctionCallItem => i.type === 'function_call');
}

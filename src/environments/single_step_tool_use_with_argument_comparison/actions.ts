// The "action" a single step takes, on both sides of the comparison: a chat message, one tool call,
// or a batch of parallel tool calls. Task rows state the expected one; responses are reduced to one.
import { z } from 'zod';
import type { MessageItem, ResponseObject } from '../../schemas/responses';
import { jsonLoads } from '../../python/json';

const parsesAsPythonJson = (text: string) => {
  try {
    jsonLoads(text);
    return true;
  } catch {
    return false;
  }
};

export const FunctionCallAction = z.object({
  type: z.literal('function_call'),
  name: z.string(),
  // NeMo Gym assumes the expected arguments parse; a row where they do not is rejected up front.
  arguments: z.string().refine(parsesAsPythonJson, 'arguments must be a JSON string'),
});
export type FunctionCallAction = z.infer<typeof FunctionCallAction>;

export const Action = z.discriminatedUnion('type', [
  z.object({ type: z.literal('message'), content: z.string() }),
  FunctionCallAction,
  z.object({ type: z.literal('function_call_batch'), calls: z.array(FunctionCallAction).min(1) }),
]);
export type Action = z.infer<typeof Action>;

export function toolCallsOf(action: Action): FunctionCallAction[] {
  if (action.type === 'function_call_batch') return action.calls;
  return action.type === 'function_call' ? [action] : [];
}

/**
 * The response's action: its tool calls if any (several make a batch), else the first output_text of
 * the first assistant message that has one, else null. Calls win over prose in the same response.
 */
export function responseAction(response: ResponseObject): Action | null {
  const calls: FunctionCallAction[] = [];
  let text: string | null = null;
  for (const item of response.output) {
    if (item.type === 'function_call') {
      calls.push({ type: 'function_call', name: item.name, arguments: item.arguments });
    } else if ((item.type ?? 'message') === 'message' && (item as MessageItem).role === 'assistant' && text === null) {
      const content = (item as MessageItem).content;
      const part = typeof content === 'string' ? { text: content } : content.find((p) => p.type === 'output_text');
      if (part) text = String(part.text);
    }
  }
  if (calls.length === 1) return calls[0]!;
  if (calls.length > 1) return { type: 'function_call_batch', calls };
  return text === null ? null : { type: 'message', content: text };
}

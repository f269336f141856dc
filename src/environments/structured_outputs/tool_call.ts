// Tool-call mode (v4 rows, one model call whose tools are never run): the answer is the arguments of
// exactly one call to the named tool, or the value under `tool_payload_key` in them.
import { functionCalls, type ResponseObject } from '../../schemas/responses';
import { jsonLoadsPlain } from '../../python/json';
import type { StructuredOutputsTask } from './task';

export type Payload = { ok: true; value: unknown } | { ok: false; errorType: string; message: string };

export function toolCallPayload(task: StructuredOutputsTask, response: ResponseObject): Payload {
  const error = (response as { error?: unknown }).error;
  if (error !== undefined && error !== null) return { ok: false, errorType: 'api_error', message: JSON.stringify(error).slice(0, 200) };
  const calls = functionCalls(response.output);
  if (calls.length === 0) return { ok: false, errorType: 'missing_tool_call', message: 'No function_call item found in assistant response' };
  const names = calls.map((c) => c.name).join(', ');
  if (calls.length > 1) return { ok: false, errorType: 'multiple_tool_calls', message: `Expected exactly one function_call, got: ${names}` };
  const call = calls[0]!;
  if (task.tool_name && call.name !== task.tool_name) {
    return { ok: false, errorType: 'wrong_tool_name', message: `Expected tool '${task.tool_name}', got: ${names}` };
  }
  let args: unknown;
  try {
    args = jsonLoadsPlain(call.arguments);
  } catch (e) {
    return { ok: false, errorType: 'tool_arguments_parse_error', message: `JSONDecodeError: ${(e as Error).message.slice(0, 200)}` };
  }
  if (!task.tool_payload_key) return { ok: true, value: args };
  const key = task.tool_payload_key;
  if (typeof args !== 'object' || args === null || Array.isArray(args) || !(key in args)) {
    return { ok: false, errorType: 'missing_tool_payload_key', message: `Missing tool payload key: ${key}` };
  }
  return { ok: true, value: (args as Record<string, unknown>)[key] };
}

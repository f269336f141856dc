// Image-tool calls as the image-tools agent writes them in text: `<tool_call><function=NAME>` with
// `<parameter=KEY>VALUE</parameter>` (XML form), or `<tool_call>{"name": …, "arguments": …}</tool_call>` (JSON form).
import { jsonLoadsPlain } from '../../python/json';
import { pyRegExp } from '../../python/regex';

export interface ImageToolCall {
  name: unknown;
  arguments: unknown;
  source: 'xml' | 'json';
}

const XML_CALL = pyRegExp(String.raw`<tool_call>\s*<function=([^>\s]+)>\s*(.*?)\s*</function>\s*</tool_call>`, 's');
const XML_PARAMETER = pyRegExp(String.raw`<parameter=([^>\s]+)>\s*(.*?)\s*</parameter>`, 's');
const JSON_CALL = pyRegExp(String.raw`<tool_call>\s*(\{.*?\})\s*</tool_call>`, 's');

/** `json.loads(text)`, or undefined where Python raises. */
export function loads(text: string): unknown {
  try {
    return jsonLoadsPlain(text);
  } catch {
    return undefined;
  }
}

/** Every XML-form call, then every JSON-form call (a JSON body that does not parse, or names no tool, is skipped). */
export function parseImageToolCalls(text: string): ImageToolCall[] {
  const calls: ImageToolCall[] = [];
  for (const m of text.matchAll(XML_CALL)) {
    const args: Record<string, unknown> = {};
    for (const p of m[2]!.matchAll(XML_PARAMETER)) {
      const value = p[2]!;
      const parsed = loads(value);
      args[p[1]!] = parsed === undefined ? value : parsed;
    }
    calls.push({ name: m[1]!, arguments: args, source: 'xml' });
  }
  for (const m of text.matchAll(JSON_CALL)) {
    const payload = loads(m[1]!) as Record<string, unknown> | undefined;
    if (payload === undefined || payload === null || typeof payload !== 'object' || Array.isArray(payload)) continue;
    const name = payload.name || payload.tool_name;
    if (name) calls.push({ name, arguments: payload.arguments || {}, source: 'json' });
  }
  return calls;
}

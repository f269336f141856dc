// A rollout's response as NeMo Gym's pydantic `NeMoGymResponse` requires it: our records keep only what the
// episode produced, and NeMo Gym's `/verify` answers 422 when the echoed request fields are missing.
import { isMessage, type ConversationItem, type ResponseCreateParams, type ResponseObject, type Usage } from './responses';

type Loose = Record<string, unknown>;

/**
 * The fields NeMo Gym 0.7.0 requires beyond the episode's (`created_at`, `model`, `tools`, `tool_choice`,
 * `parallel_tool_calls`, every output item's `id` and every usage detail), filled as an OpenAI-compatible
 * model server would: request settings echoed from `params`, ids derived from the response id and the item's
 * place so the same episode always converts to the same object. Fields already present are kept.
 */
export function toNemoGymResponse(response: ResponseObject, params: ResponseCreateParams | undefined): ResponseObject {
  const echoed: Loose = {};
  for (const key of ['instructions', 'temperature', 'top_p', 'max_output_tokens', 'metadata'] as const) {
    if (params?.[key] !== undefined && params[key] !== null) echoed[key] = params[key];
  }
  return {
    ...echoed,
    ...response,
    object: 'response',
    // Unknown for an episode of several model calls; 0 keeps the conversion deterministic.
    created_at: response.created_at ?? 0,
    model: response.model ?? params?.model ?? '',
    tools: (response.tools as unknown[] | undefined) ?? params?.tools ?? [],
    tool_choice: response.tool_choice ?? params?.tool_choice ?? 'auto',
    parallel_tool_calls: response.parallel_tool_calls ?? params?.parallel_tool_calls ?? true,
    output: response.output.map((item, index) => outputItem(item, `${response.id}_${index}`)),
    usage: response.usage ? fullUsage(response.usage) : response.usage,
  };
}

function outputItem(item: ConversationItem, id: string): ConversationItem {
  if (item.type === 'reasoning') return { ...item, id: item.id ?? `rs_${id}` };
  if (!isMessage(item) || item.role !== 'assistant') return item;
  // An output message's content is a list of parts, each output_text part with its annotations.
  const content = typeof item.content === 'string' ? [{ type: 'output_text', text: item.content }] : item.content;
  return {
    ...item,
    type: 'message',
    id: item.id ?? `msg_${id}`,
    status: item.status ?? 'completed',
    content: content.map((part) => (part.type === 'output_text' ? { annotations: [], ...part } : part)),
  };
}

function fullUsage(usage: Usage): Usage {
  return {
    ...usage,
    input_tokens_details: { ...usage.input_tokens_details, cached_tokens: usage.input_tokens_details?.cached_tokens ?? 0 },
    output_tokens_details: { ...usage.output_tokens_details, reasoning_tokens: usage.output_tokens_details?.reasoning_tokens ?? 0 },
  };
}

// Server-sent event streams synthesized from a whole answer, in each protocol's own event shapes: Chat
// Completions chunks, Responses events and Anthropic Messages events. Each stream opens before the
// backend answers (so a caller sees it start and can hang up), then replays the answer as deltas.
import type { ConversationItem, ResponseObject } from '../schemas/responses';
import type { AnthropicBlock, AnthropicMessage } from './anthropic';
import { anthropicError } from './anthropic';
import { contentText, randomId } from './convert';
import type { OpenAIErrorBody } from './errors';
import type { ChatCompletion } from './wire';

/** One SSE event: an optional `event:` name and the JSON (or literal, e.g. `[DONE]`) `data:` line. */
export interface SseEvent {
  event?: string;
  data: unknown;
}

export function sseText(e: SseEvent): string {
  const data = typeof e.data === 'string' ? e.data : JSON.stringify(e.data);
  return `${e.event ? `event: ${e.event}\n` : ''}data: ${data}\n\n`;
}

/** What the gateway's stream writer needs from a protocol. */
export interface StreamProtocol<Final> {
  /** Sent as soon as the call is admitted, before the backend answers. */
  opening(): SseEvent[];
  /** The answer as deltas and the closing events (usage in the last one that carries any). */
  closing(final: Final): SseEvent[];
  /** A failure after the stream opened, as the protocol reports it in-band. */
  failure(status: number, error: OpenAIErrorBody['error']): SseEvent[];
  /** The answer as the caller's client assembles it, for the call log. */
  assembled(final: Final): unknown;
}

/** Text in pieces of a few words, as a model's tokens would arrive; never splits a surrogate pair. */
export function textDeltas(text: string, size = 24): string[] {
  const out: string[] = [];
  let piece = '';
  for (const word of text.match(/\s*\S+\s*|\s+/g) ?? []) {
    piece += word;
    if (piece.length >= size) {
      out.push(piece);
      piece = '';
    }
  }
  if (piece) out.push(piece);
  return out;
}

const now = () => Math.floor(Date.now() / 1000);

/** Chat Completions: `chat.completion.chunk` objects, then `[DONE]`. */
export function chatStream(opts: { model: string; includeUsage: boolean }): StreamProtocol<ChatCompletion> {
  const id = randomId('chatcmpl');
  const created = now();
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({
    data: { id, object: 'chat.completion.chunk', created, model: opts.model, system_fingerprint: null, choices, ...extra },
  });
  const delta = (d: Record<string, unknown>, finish: string | null = null) => ({ index: 0, delta: d, finish_reason: finish, logprobs: null });
  return {
    opening: () => [chunk([delta({ role: 'assistant', content: '' })])],
    closing(final) {
      const choice = final.choices[0];
      const message = choice?.message;
      const events: SseEvent[] = [];
      const reasoning = message?.reasoning_content ?? message?.reasoning;
      if (reasoning) events.push(...textDeltas(reasoning).map((t) => chunk([delta({ reasoning_content: t })])));
      const text = message?.content == null ? '' : contentText(message.content);
      events.push(...textDeltas(text).map((t) => chunk([delta({ content: t })])));
      message?.tool_calls?.forEach((call, index) => {
        if (call.type === 'custom') {
          // OpenAI streams a custom tool's input whole: it is free text, not JSON to assemble.
          events.push(chunk([delta({ tool_calls: [{ index, id: call.id, type: 'custom', custom: call.custom }] })]));
          return;
        }
        events.push(chunk([delta({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] })]));
        events.push(...textDeltas(call.function.arguments).map((a) => chunk([delta({ tool_calls: [{ index, function: { arguments: a } }] })])));
      });
      const usage = final.usage ?? null;
      // OpenAI sends usage in a chunk of its own only when asked; otherwise it rides on the finishing chunk.
      events.push(chunk([delta({}, choice?.finish_reason ?? 'stop')], opts.includeUsage || !usage ? {} : { usage }));
      if (opts.includeUsage) events.push(chunk([], { usage }));
      events.push({ data: '[DONE]' });
      return events;
    },
    failure: (_status, error) => [{ data: { error } }],
    assembled: (final) => ({ ...final, id, created }),
  };
}

type Item = ConversationItem & { id?: string | null };

/** Responses: response.created … response.completed, with `sequence_number` counting every event. */
export function responsesStream(opts: { model: string; request: Record<string, unknown> }): StreamProtocol<ResponseObject> {
  const id = randomId('resp');
  const createdAt = now();
  let sequence = 0;
  const event = (type: string, body: Record<string, unknown>): SseEvent => ({ event: type, data: { type, sequence_number: sequence++, ...body } });
  const envelope = (status: string, rest: Partial<ResponseObject> = {}) => ({
    id,
    object: 'response',
    created_at: createdAt,
    model: opts.model,
    status,
    output: [],
    usage: null,
    error: null,
    incomplete_details: null,
    instructions: opts.request.instructions ?? null,
    tools: opts.request.tools ?? [],
    tool_choice: opts.request.tool_choice ?? 'auto',
    parallel_tool_calls: opts.request.parallel_tool_calls ?? true,
    ...rest,
  });

  function itemEvents(item: Item, outputIndex: number): SseEvent[] {
    const itemId = item.id ?? randomId('item');
    const base = { item_id: itemId, output_index: outputIndex };
    if (item.type === 'function_call') {
      return [
        event('response.output_item.added', { output_index: outputIndex, item: { ...item, id: itemId, arguments: '', status: 'in_progress' } }),
        ...textDeltas(item.arguments).map((d) => event('response.function_call_arguments.delta', { ...base, delta: d })),
        event('response.function_call_arguments.done', { ...base, arguments: item.arguments }),
        event('response.output_item.done', { output_index: outputIndex, item: { ...item, id: itemId } }),
      ];
    }
    if (item.type === 'message' || (item.type === undefined && 'role' in item)) {
      const parts = typeof item.content === 'string' ? [{ type: 'output_text', text: item.content, annotations: [] }] : item.content;
      const events = [event('response.output_item.added', { output_index: outputIndex, item: { ...item, id: itemId, content: [], status: 'in_progress' } })];
      parts.forEach((part, contentIndex) => {
        const text = (part as { text?: unknown }).text;
        const at = { ...base, content_index: contentIndex };
        if (part.type !== 'output_text' || typeof text !== 'string') {
          events.push(event('response.content_part.added', { ...at, part }), event('response.content_part.done', { ...at, part }));
          return;
        }
        events.push(event('response.content_part.added', { ...at, part: { ...part, text: '' } }));
        for (const d of textDeltas(text)) events.push(event('response.output_text.delta', { ...at, delta: d, logprobs: [] }));
        events.push(event('response.output_text.done', { ...at, text, logprobs: [] }), event('response.content_part.done', { ...at, part }));
      });
      events.push(event('response.output_item.done', { output_index: outputIndex, item: { ...item, id: itemId } }));
      return events;
    }
    // Reasoning and anything else arrive whole: an item added, then done.
    return [
      event('response.output_item.added', { output_index: outputIndex, item: { ...item, id: itemId } }),
      event('response.output_item.done', { output_index: outputIndex, item: { ...item, id: itemId } }),
    ];
  }

  const completed = (final: ResponseObject) => ({ ...envelope(final.status ?? 'completed'), ...final, id, created_at: createdAt });
  return {
    opening: () => [event('response.created', { response: envelope('in_progress') }), event('response.in_progress', { response: envelope('in_progress') })],
    closing(final) {
      const events = final.output.flatMap((item, i) => itemEvents(item, i));
      const done = completed(final);
      events.push(event(final.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response: done }));
      return events;
    },
    failure: (_status, error) => [
      event('error', { code: error.code, message: error.message, param: error.param }),
      event('response.failed', { response: envelope('failed', { error: { code: error.code, message: error.message } } as Partial<ResponseObject>) }),
    ],
    assembled: completed,
  };
}

/** Anthropic Messages: message_start, a start/deltas/stop per content block, message_delta (usage), message_stop. */
export function messagesStream(opts: { model: string }): StreamProtocol<AnthropicMessage> {
  const id = randomId('msg');
  const event = (type: string, body: Record<string, unknown> = {}): SseEvent => ({ event: type, data: { type, ...body } });

  function blockEvents(block: AnthropicBlock, index: number): SseEvent[] {
    const delta = (d: Record<string, unknown>) => event('content_block_delta', { index, delta: d });
    let start: AnthropicBlock;
    let deltas: SseEvent[];
    if (block.type === 'text') {
      start = { type: 'text', text: '' };
      deltas = textDeltas(block.text).map((text) => delta({ type: 'text_delta', text }));
    } else if (block.type === 'tool_use') {
      start = { ...block, input: {} };
      deltas = textDeltas(JSON.stringify(block.input)).map((partial_json) => delta({ type: 'input_json_delta', partial_json }));
    } else {
      start = { type: 'thinking', thinking: '', signature: '' };
      deltas = [...textDeltas(block.thinking).map((thinking) => delta({ type: 'thinking_delta', thinking })), delta({ type: 'signature_delta', signature: block.signature })];
    }
    return [event('content_block_start', { index, content_block: start }), ...deltas, event('content_block_stop', { index })];
  }

  return {
    opening: () => [
      event('message_start', {
        // Input tokens are known once the backend has answered: message_delta carries them.
        message: { id, type: 'message', role: 'assistant', model: opts.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 0, output_tokens: 0 } },
      }),
      event('ping'),
    ],
    closing: (final) => [
      ...final.content.flatMap(blockEvents),
      event('message_delta', { delta: { stop_reason: final.stop_reason, stop_sequence: null }, usage: final.usage }),
      event('message_stop'),
    ],
    failure: (status, error) => [event('error', { error: anthropicError(status, error.message).error })],
    assembled: (final) => ({ ...final, id }),
  };
}

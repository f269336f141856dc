// Server-sent event streams in each protocol's own event shapes: Chat Completions chunks, Responses events
// and Anthropic Messages events. Each stream opens before the backend answers (so a caller sees it start
// and can hang up). A backend that streams from its upstream hands over pieces as they arrive, sent on at
// once; when the whole answer is in, whatever no piece carried (all of it, for a backend answering whole)
// is replayed as deltas and the stream closes.
import type { ConversationItem, ResponseObject } from '../schemas/responses';
import type { AnthropicBlock, AnthropicMessage } from './anthropic';
import { anthropicError } from './anthropic';
import { contentText, randomId } from './convert';
import type { AnswerDelta } from './deltas';
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
  /** A piece of the answer as the upstream streamed it, sent on at once. */
  delta(piece: AnswerDelta): SseEvent[];
  /** What no piece carried of the answer, as deltas, and the closing events (usage in the last one that carries any). */
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

/**
 * What of `full` is still to be sent after the pieces `sent`. When the whole answer is not a continuation
 * of the pieces (a conversion rewrote it, e.g. split off <think> text), nothing more is sent as deltas:
 * the closing events carry the whole answer.
 */
function rest(full: string, sent: string): string {
  return full.startsWith(sent) ? full.slice(sent.length) : '';
}

/** A part of the answer the caller saw start from the upstream's pieces. */
interface LivePart {
  kind: AnswerDelta['kind'];
  /** Its place in the protocol's stream: output_index, content block index. */
  position: number;
  id: string;
  sent: string;
  /** A tool call's number among the answer's calls. */
  call?: number;
}

/** The parts opened by pieces so far; a whole answer's items claim them by kind and order. */
class LiveParts {
  readonly parts: LivePart[] = [];
  private claimed = new Set<LivePart>();

  find(piece: AnswerDelta): LivePart | undefined {
    return this.parts.find((p) => p.kind === piece.kind && (piece.kind !== 'tool_call' || p.call === piece.index));
  }

  open(piece: AnswerDelta, id: string): LivePart {
    const part: LivePart = { kind: piece.kind, position: this.parts.length, id, sent: '', ...(piece.kind === 'tool_call' ? { call: piece.index } : {}) };
    this.parts.push(part);
    return part;
  }

  /** The live part a whole answer's item of this kind stands for (the `call`-th tool call), once each. */
  claim(kind: AnswerDelta['kind'], call?: number): LivePart | undefined {
    const part = this.parts.find((p) => p.kind === kind && !this.claimed.has(p) && (kind !== 'tool_call' || p.call === call));
    if (part) this.claimed.add(part);
    return part;
  }

  /** Live parts no item of the whole answer stood for (the answer was rewritten): they still need closing. */
  unclaimed(): LivePart[] {
    return this.parts.filter((p) => !this.claimed.has(p));
  }

  /** The position for an item no piece opened: after every live one. */
  next(offset: number): number {
    return this.parts.length + offset;
  }
}

/** Chat Completions: `chat.completion.chunk` objects, then `[DONE]`. */
export function chatStream(opts: { model: string; includeUsage: boolean }): StreamProtocol<ChatCompletion> {
  const id = randomId('chatcmpl');
  const created = now();
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({
    data: { id, object: 'chat.completion.chunk', created, model: opts.model, system_fingerprint: null, choices, ...extra },
  });
  const delta = (d: Record<string, unknown>, finish: string | null = null) => ({ index: 0, delta: d, finish_reason: finish, logprobs: null });
  const sent = { text: '', reasoning: '', calls: new Map<number, string>() };
  const callStart = (index: number, callId: string | undefined, name: string, args: string) =>
    chunk([delta({ tool_calls: [{ index, id: callId, type: 'function', function: { name, arguments: args } }] })]);
  const callArgs = (index: number, args: string) => chunk([delta({ tool_calls: [{ index, function: { arguments: args } }] })]);
  return {
    opening: () => [chunk([delta({ role: 'assistant', content: '' })])],
    delta(piece) {
      if (piece.kind === 'text') {
        sent.text += piece.text;
        return [chunk([delta({ content: piece.text })])];
      }
      if (piece.kind === 'reasoning') {
        sent.reasoning += piece.text;
        return [chunk([delta({ reasoning_content: piece.text })])];
      }
      const before = sent.calls.get(piece.index);
      sent.calls.set(piece.index, (before ?? '') + piece.arguments);
      if (before === undefined) return [callStart(piece.index, piece.id, piece.name ?? '', piece.arguments)];
      return piece.arguments ? [callArgs(piece.index, piece.arguments)] : [];
    },
    closing(final) {
      const choice = final.choices[0];
      const message = choice?.message;
      const events: SseEvent[] = [];
      const reasoning = message?.reasoning_content ?? message?.reasoning;
      if (reasoning) events.push(...textDeltas(rest(reasoning, sent.reasoning)).map((t) => chunk([delta({ reasoning_content: t })])));
      const text = message?.content == null ? '' : contentText(message.content);
      events.push(...textDeltas(rest(text, sent.text)).map((t) => chunk([delta({ content: t })])));
      message?.tool_calls?.forEach((call, index) => {
        const live = sent.calls.get(index);
        if (call.type === 'custom') {
          // OpenAI streams a custom tool's input whole: it is free text, not JSON to assemble.
          if (live === undefined) events.push(chunk([delta({ tool_calls: [{ index, id: call.id, type: 'custom', custom: call.custom }] })]));
          return;
        }
        if (live === undefined) events.push(callStart(index, call.id, call.function.name, ''));
        events.push(...textDeltas(rest(call.function.arguments, live ?? '')).map((a) => callArgs(index, a)));
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

  const live = new LiveParts();

  /** A piece's events: its item (and content part) added when it is the first of its part, then the delta. */
  function liveEvents(piece: AnswerDelta): SseEvent[] {
    let part = live.find(piece);
    const events: SseEvent[] = [];
    if (!part) {
      part = live.open(piece, randomId(piece.kind === 'tool_call' ? 'fc' : piece.kind === 'text' ? 'msg' : 'rs'));
      const at = { output_index: part.position };
      if (piece.kind === 'text') {
        events.push(
          event('response.output_item.added', { ...at, item: { type: 'message', id: part.id, role: 'assistant', status: 'in_progress', content: [] } }),
          event('response.content_part.added', { ...at, item_id: part.id, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }),
        );
      } else if (piece.kind === 'reasoning') {
        events.push(
          event('response.output_item.added', { ...at, item: { type: 'reasoning', id: part.id, summary: [] } }),
          event('response.reasoning_summary_part.added', { ...at, item_id: part.id, summary_index: 0, part: { type: 'summary_text', text: '' } }),
        );
      } else {
        events.push(
          event('response.output_item.added', { ...at, item: { type: 'function_call', id: part.id, call_id: piece.id ?? '', name: piece.name ?? '', arguments: '', status: 'in_progress' } }),
        );
      }
    }
    const text = piece.kind === 'tool_call' ? piece.arguments : piece.text;
    if (!text) return events;
    part.sent += text;
    const at = { item_id: part.id, output_index: part.position };
    if (piece.kind === 'text') events.push(event('response.output_text.delta', { ...at, content_index: 0, delta: text, logprobs: [] }));
    else if (piece.kind === 'reasoning') events.push(event('response.reasoning_summary_text.delta', { ...at, summary_index: 0, delta: text }));
    else events.push(event('response.function_call_arguments.delta', { ...at, delta: text }));
    return events;
  }

  /** An item of the whole answer: what no piece carried of it, then its done events, where the caller saw it start. */
  function itemEvents(item: Item, part: LivePart | undefined, outputIndex: number): { events: SseEvent[]; item: Item } {
    const itemId = part?.id ?? item.id ?? randomId('item');
    const base = { item_id: itemId, output_index: outputIndex };
    const done = { ...item, id: itemId } as Item;
    if (item.type === 'function_call') {
      const events = part ? [] : [event('response.output_item.added', { output_index: outputIndex, item: { ...item, id: itemId, arguments: '', status: 'in_progress' } })];
      events.push(
        ...textDeltas(rest(item.arguments, part?.sent ?? '')).map((d) => event('response.function_call_arguments.delta', { ...base, delta: d })),
        event('response.function_call_arguments.done', { ...base, arguments: item.arguments }),
        event('response.output_item.done', { output_index: outputIndex, item: done }),
      );
      return { events, item: done };
    }
    if (item.type === 'message' || (item.type === undefined && 'role' in item)) {
      const parts = typeof item.content === 'string' ? [{ type: 'output_text', text: item.content, annotations: [] }] : item.content;
      const events = part ? [] : [event('response.output_item.added', { output_index: outputIndex, item: { ...item, id: itemId, content: [], status: 'in_progress' } })];
      parts.forEach((p, contentIndex) => {
        const text = (p as { text?: unknown }).text;
        const at = { ...base, content_index: contentIndex };
        // The live text went into the message's first part.
        const liveText = part && contentIndex === 0 ? part.sent : undefined;
        if (p.type !== 'output_text' || typeof text !== 'string') {
          if (liveText === undefined) events.push(event('response.content_part.added', { ...at, part: p }));
          events.push(event('response.content_part.done', { ...at, part: p }));
          return;
        }
        if (liveText === undefined) events.push(event('response.content_part.added', { ...at, part: { ...p, text: '' } }));
        for (const d of textDeltas(rest(text, liveText ?? ''))) events.push(event('response.output_text.delta', { ...at, delta: d, logprobs: [] }));
        events.push(event('response.output_text.done', { ...at, text, logprobs: [] }), event('response.content_part.done', { ...at, part: p }));
      });
      events.push(event('response.output_item.done', { output_index: outputIndex, item: done }));
      return { events, item: done };
    }
    if (item.type === 'reasoning' && part) {
      const summary = (item as { summary?: { text?: unknown }[] }).summary ?? [];
      const first = typeof summary[0]?.text === 'string' ? (summary[0].text as string) : '';
      const events = [
        ...textDeltas(rest(first, part.sent)).map((d) => event('response.reasoning_summary_text.delta', { ...base, summary_index: 0, delta: d })),
        event('response.reasoning_summary_text.done', { ...base, summary_index: 0, text: first }),
        event('response.reasoning_summary_part.done', { ...base, summary_index: 0, part: { type: 'summary_text', text: first } }),
        event('response.output_item.done', { output_index: outputIndex, item: done }),
      ];
      return { events, item: done };
    }
    // Reasoning the caller did not see start, and anything else, arrive whole: an item added, then done.
    return {
      events: [event('response.output_item.added', { output_index: outputIndex, item: done }), event('response.output_item.done', { output_index: outputIndex, item: done })],
      item: done,
    };
  }

  const completed = (final: ResponseObject) => ({ ...envelope(final.status ?? 'completed'), ...final, id, created_at: createdAt });
  let assembledOutput: Item[] | undefined;
  return {
    opening: () => [event('response.created', { response: envelope('in_progress') }), event('response.in_progress', { response: envelope('in_progress') })],
    delta: liveEvents,
    closing(final) {
      const events: SseEvent[] = [];
      let unseen = 0;
      let calls = 0;
      const output = final.output.map((item) => {
        const kind =
          item.type === 'function_call' ? 'tool_call' : item.type === 'reasoning' ? 'reasoning' : item.type === 'message' || (item.type === undefined && 'role' in item) ? 'text' : undefined;
        const part = kind ? live.claim(kind, kind === 'tool_call' ? calls++ : undefined) : undefined;
        const made = itemEvents(item, part, part ? part.position : live.next(unseen++));
        events.push(...made.events);
        return made.item;
      });
      for (const part of live.unclaimed()) {
        const at = { item_id: part.id, output_index: part.position };
        const item = { id: part.id, status: 'completed' };
        if (part.kind === 'text')
          events.push(
            event('response.output_text.done', { ...at, content_index: 0, text: part.sent, logprobs: [] }),
            event('response.output_item.done', {
              output_index: part.position,
              item: { ...item, type: 'message', role: 'assistant', content: [{ type: 'output_text', text: part.sent, annotations: [] }] },
            }),
          );
        else if (part.kind === 'reasoning')
          events.push(event('response.output_item.done', { output_index: part.position, item: { ...item, type: 'reasoning', summary: [{ type: 'summary_text', text: part.sent }] } }));
        else
          events.push(
            event('response.function_call_arguments.done', { ...at, arguments: part.sent }),
            event('response.output_item.done', { output_index: part.position, item: { ...item, type: 'function_call', arguments: part.sent } }),
          );
      }
      assembledOutput = output;
      const done = { ...completed(final), output };
      events.push(event(final.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response: done }));
      return events;
    },
    failure: (_status, error) => [
      event('error', { code: error.code, message: error.message, param: error.param }),
      event('response.failed', { response: envelope('failed', { error: { code: error.code, message: error.message } } as Partial<ResponseObject>) }),
    ],
    assembled: (final) => ({ ...completed(final), ...(assembledOutput ? { output: assembledOutput } : {}) }),
  };
}

/** Anthropic Messages: message_start, a start/deltas/stop per content block, message_delta (usage), message_stop. */
export function messagesStream(opts: { model: string }): StreamProtocol<AnthropicMessage> {
  const id = randomId('msg');
  const event = (type: string, body: Record<string, unknown> = {}): SseEvent => ({ event: type, data: { type, ...body } });
  const live = new LiveParts();
  const delta = (index: number, d: Record<string, unknown>) => event('content_block_delta', { index, delta: d });
  const textDelta = (kind: AnswerDelta['kind'], index: number, text: string) =>
    delta(index, kind === 'text' ? { type: 'text_delta', text } : kind === 'reasoning' ? { type: 'thinking_delta', thinking: text } : { type: 'input_json_delta', partial_json: text });

  // Anthropic's blocks come one after another: a new one starting stops the one before.
  const stopped = new Set<LivePart>();
  const stop = (part: LivePart): SseEvent[] => {
    stopped.add(part);
    return [...(part.kind === 'reasoning' ? [delta(part.position, { type: 'signature_delta', signature: '' })] : []), event('content_block_stop', { index: part.position })];
  };

  function liveEvents(piece: AnswerDelta): SseEvent[] {
    let part = live.find(piece);
    const events: SseEvent[] = [];
    if (part && stopped.has(part)) return events;
    if (!part) {
      const previous = live.parts.at(-1);
      if (previous) events.push(...stop(previous));
      part = live.open(piece, piece.kind === 'tool_call' ? (piece.id ?? randomId('toolu')) : '');
      const start: AnthropicBlock =
        piece.kind === 'text'
          ? { type: 'text', text: '' }
          : piece.kind === 'reasoning'
            ? { type: 'thinking', thinking: '', signature: '' }
            : { type: 'tool_use', id: part.id, name: piece.name ?? '', input: {} };
      events.push(event('content_block_start', { index: part.position, content_block: start }));
    }
    const text = piece.kind === 'tool_call' ? piece.arguments : piece.text;
    if (!text) return events;
    part.sent += text;
    events.push(textDelta(piece.kind, part.position, text));
    return events;
  }

  /** A block of the whole answer: what no piece carried of it, then its stop, where the caller saw it start. */
  function blockEvents(block: AnthropicBlock, part: LivePart | undefined, index: number): SseEvent[] {
    const events: SseEvent[] = [];
    if (part && stopped.has(part)) return events;
    if (block.type === 'text') {
      if (!part) events.push(event('content_block_start', { index, content_block: { type: 'text', text: '' } }));
      events.push(...textDeltas(rest(block.text, part?.sent ?? '')).map((text) => textDelta('text', index, text)));
    } else if (block.type === 'tool_use') {
      if (!part) events.push(event('content_block_start', { index, content_block: { ...block, input: {} } }));
      events.push(...textDeltas(rest(JSON.stringify(block.input), part?.sent ?? '')).map((json) => textDelta('tool_call', index, json)));
    } else {
      if (!part) events.push(event('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } }));
      events.push(...textDeltas(rest(block.thinking, part?.sent ?? '')).map((text) => textDelta('reasoning', index, text)), delta(index, { type: 'signature_delta', signature: block.signature }));
    }
    events.push(event('content_block_stop', { index }));
    return events;
  }

  let assembledContent: AnthropicBlock[] | undefined;
  return {
    opening: () => [
      event('message_start', {
        // Input tokens are known once the backend has answered: message_delta carries them.
        message: { id, type: 'message', role: 'assistant', model: opts.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 0, output_tokens: 0 } },
      }),
      event('ping'),
    ],
    delta: liveEvents,
    closing(final) {
      let unseen = 0;
      let calls = 0;
      const placed = final.content.map((block) => {
        const kind = block.type === 'tool_use' ? 'tool_call' : block.type === 'thinking' ? 'reasoning' : 'text';
        const part = live.claim(kind, kind === 'tool_call' ? calls++ : undefined);
        return { block, part, index: part ? part.position : live.next(unseen++) };
      });
      // Blocks one after another: the live block still open ends first, then the ones no piece started.
      placed.sort((a, b) => a.index - b.index);
      const events = [...live.unclaimed().flatMap((part) => (stopped.has(part) ? [] : stop(part))), ...placed.flatMap((p) => blockEvents(p.block, p.part, p.index))];
      // A client assembles the blocks by index: the message it logs is in that order.
      assembledContent = placed.map((p) => p.block);
      events.push(event('message_delta', { delta: { stop_reason: final.stop_reason, stop_sequence: null }, usage: final.usage }), event('message_stop'));
      return events;
    },
    failure: (status, error) => [event('error', { error: anthropicError(status, error.message).error })],
    assembled: (final) => ({ ...final, id, ...(assembledContent ? { content: assembledContent } : {}) }),
  };
}

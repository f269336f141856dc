// An Anthropic Messages event stream read as it comes: each block's pieces passed on to a streaming caller
// at once (text, thinking as reasoning, tool_use as a tool call whose input arrives as JSON pieces), and the
// whole Message the upstream would have sent put together for the conversion, the call log and the usage.
import type { AnswerDelta } from '../deltas';
import { GatewayError } from '../errors';

/** A Message as the conversion reads it (a streamed one rebuilt, or one answered whole). */
export interface AnthropicReply {
  id?: string;
  model?: string;
  content?: (Record<string, unknown> & { type: string })[];
  stop_reason?: string | null;
  usage?: { input_tokens?: number; output_tokens?: number; cache_read_input_tokens?: number | null; cache_creation_input_tokens?: number | null };
}

interface OpenBlock {
  block: Record<string, unknown> & { type: string };
  /** tool_use: the input's JSON so far (it is parsed when the block stops). */
  json?: string;
  /** tool_use: its number among the answer's tool calls (the deltas' `index`). */
  call?: number;
}

export class MessageAssembly {
  private message: AnthropicReply | undefined;
  private readonly blocks = new Map<number, OpenBlock>();
  private calls = 0;
  private stopped = false;

  constructor(private readonly upstream: string) {}

  private invalid(what: string): GatewayError {
    return new GatewayError(502, 'upstream_error', 'invalid_upstream_response', `${this.upstream} ${what}`);
  }

  /** Adds one event; the pieces of the answer it carried. */
  add(event: Record<string, any>): AnswerDelta[] {
    switch (event.type) {
      case 'message_start':
        this.message = { ...event.message, content: [] };
        return [];
      case 'content_block_start': {
        const block = { ...event.content_block } as OpenBlock['block'];
        if (typeof block.type !== 'string') throw this.invalid(`streamed content block ${event.index} without a type`);
        const open: OpenBlock = { block };
        this.blocks.set(event.index, open);
        if (block.type === 'tool_use') {
          open.json = '';
          open.call = this.calls++;
          return [{ kind: 'tool_call', index: open.call, id: String(block.id ?? ''), name: String(block.name ?? ''), arguments: '' }];
        }
        if (block.type === 'text' && typeof block.text === 'string' && block.text) return [{ kind: 'text', text: block.text }];
        return [];
      }
      case 'content_block_delta':
        return this.delta(event.index, event.delta ?? {});
      case 'content_block_stop': {
        const open = this.blocks.get(event.index);
        if (open?.json !== undefined) {
          try {
            open.block.input = open.json.trim() ? JSON.parse(open.json) : {};
          } catch {
            throw this.invalid(`streamed tool_use block ${event.index} (${String(open.block.name)}) whose input is not JSON: ${open.json.slice(0, 200)}`);
          }
        }
        return [];
      }
      case 'message_delta': {
        const message = this.started();
        if (event.delta?.stop_reason !== undefined) message.stop_reason = event.delta.stop_reason;
        // The usage of message_delta is cumulative: its counts replace message_start's.
        if (event.usage) message.usage = { ...message.usage, ...Object.fromEntries(Object.entries(event.usage).filter(([, v]) => v != null)) };
        return [];
      }
      case 'message_stop':
        this.stopped = true;
        return [];
      case 'error':
        throw new GatewayError(502, 'upstream_error', 'upstream_error', `${this.upstream} failed mid-stream: ${String(event.error?.message ?? JSON.stringify(event.error ?? event)).slice(0, 500)}`);
      default:
        // ping, and event types added after this code was written.
        return [];
    }
  }

  private started(): AnthropicReply {
    if (!this.message) throw this.invalid('streamed an event before message_start');
    return this.message;
  }

  private delta(index: number, delta: Record<string, any>): AnswerDelta[] {
    const open = this.blocks.get(index);
    if (!open) throw this.invalid(`streamed a delta for content block ${index}, which was not started`);
    const { block } = open;
    switch (delta.type) {
      case 'text_delta':
        block.text = String(block.text ?? '') + String(delta.text ?? '');
        return delta.text ? [{ kind: 'text', text: String(delta.text) }] : [];
      case 'thinking_delta':
        block.thinking = String(block.thinking ?? '') + String(delta.thinking ?? '');
        return delta.thinking ? [{ kind: 'reasoning', text: String(delta.thinking) }] : [];
      case 'signature_delta':
        block.signature = String(block.signature ?? '') + String(delta.signature ?? '');
        return [];
      case 'input_json_delta':
        if (open.json === undefined) throw this.invalid(`streamed tool input for content block ${index}, a ${block.type} block`);
        open.json += String(delta.partial_json ?? '');
        return delta.partial_json ? [{ kind: 'tool_call', index: open.call!, arguments: String(delta.partial_json) }] : [];
      default:
        return [];
    }
  }

  /** The whole Message; a stream cut before message_stop is refused, never taken as a shorter answer. */
  reply(): AnthropicReply {
    const message = this.started();
    if (!this.stopped) throw this.invalid('ended its Messages stream before message_stop');
    const content = [...this.blocks.entries()].sort(([a], [b]) => a - b).map(([, open]) => open.block);
    return { ...message, content };
  }
}

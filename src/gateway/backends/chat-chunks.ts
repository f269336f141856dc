// Chat Completions streams from an upstream: read chunk by chunk, each chunk's pieces passed on to a
// streaming caller as it arrives and added to the whole completion the upstream would have sent, which is
// what the call log and token capture see. One reading of a chunk serves both.
import { chatChunkDeltas, type AnswerDelta } from '../deltas';
import { GatewayError } from '../errors';
import type { CallContext } from './backend';
import type { Upstream, UpstreamCall, UpstreamPath } from './upstream';

/** A streamed completion put together chunk by chunk (token data included). */
class ChatAssembly {
  private content = '';
  private reasoning = '';
  private readonly toolCalls = new Map<number, { id?: string; type: string; function: { name: string; arguments: string } }>();
  private readonly logprobs: unknown[] = [];
  private sawLogprobs = false;
  private tokenIds: number[] | undefined;
  private finishReason: string | null = null;
  private head: Record<string, any> | undefined;
  private promptIds: unknown;
  private usage: unknown;

  constructor(private readonly upstream: string) {}

  private invalid(what: string): GatewayError {
    return new GatewayError(502, 'upstream_error', 'invalid_upstream_response', `${this.upstream} ${what}`);
  }

  /** Adds one chunk; the pieces of the answer it carried. */
  add(chunk: Record<string, any>): AnswerDelta[] {
    if (chunk.error) throw this.invalid(`failed mid-stream: ${JSON.stringify(chunk.error).slice(0, 500)}`);
    this.head ??= chunk;
    if (chunk.prompt_token_ids != null) this.promptIds = chunk.prompt_token_ids;
    if (chunk.usage) this.usage = chunk.usage;
    for (const c of (chunk.choices ?? []) as Record<string, any>[]) {
      if (c.index !== undefined && c.index !== 0) throw this.invalid('streamed more than one choice to a request for one');
      if (c.logprobs?.content) {
        this.sawLogprobs = true;
        this.logprobs.push(...c.logprobs.content);
      }
      if (Array.isArray(c.token_ids)) (this.tokenIds ??= []).push(...c.token_ids);
      if (c.finish_reason) this.finishReason = c.finish_reason;
    }
    const pieces = chatChunkDeltas(chunk);
    for (const piece of pieces) {
      if (piece.kind === 'text') this.content += piece.text;
      else if (piece.kind === 'reasoning') this.reasoning += piece.text;
      else {
        const known = this.toolCalls.get(piece.index) ?? { type: 'function', function: { name: '', arguments: '' } };
        if (piece.id) known.id = piece.id;
        if (piece.name) known.function.name += piece.name;
        known.function.arguments += piece.arguments;
        this.toolCalls.set(piece.index, known);
      }
    }
    return pieces;
  }

  completion(): Record<string, any> {
    const head = this.head;
    if (!head) throw this.invalid('ended its stream without a chunk');
    const toolCalls = [...this.toolCalls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
    const message = {
      role: 'assistant',
      content: this.content || (toolCalls.length > 0 ? null : ''),
      ...(this.reasoning ? { reasoning_content: this.reasoning } : {}),
      ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    };
    return {
      id: head.id,
      object: 'chat.completion',
      created: head.created,
      model: head.model,
      ...(this.promptIds != null ? { prompt_token_ids: this.promptIds } : {}),
      choices: [
        {
          index: 0,
          message,
          finish_reason: this.finishReason ?? 'stop',
          logprobs: this.sawLogprobs ? { content: this.logprobs } : null,
          ...(this.tokenIds ? { token_ids: this.tokenIds } : {}),
        },
      ],
      ...(this.usage ? { usage: this.usage } : {}),
    };
  }
}

/** Streams one chat completion from the upstream, passing its pieces on; the assembled completion. */
export async function streamChat(upstream: Upstream, path: UpstreamPath, body: Record<string, unknown>, ctx: CallContext, call: UpstreamCall, label: string): Promise<Record<string, any>> {
  const assembly = new ChatAssembly(label);
  for await (const chunk of upstream.postStream(path, { ...body, stream: true, stream_options: { include_usage: true } }, call)) {
    const c = chunk as Record<string, any>;
    // An upstream that ignored `stream: true` answered whole.
    if (c.object === 'chat.completion') return c;
    for (const piece of assembly.add(c)) ctx.onDelta?.(piece);
  }
  return assembly.completion();
}

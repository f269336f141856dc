// Chat Completions streams from an upstream: read chunk by chunk, each chunk's deltas passed on to a
// streaming caller as it arrives, and the chunks assembled into the whole completion the upstream would
// have sent, which is what the call log and token capture see.
import { chatChunkDeltas } from '../deltas';
import { GatewayError } from '../errors';
import type { CallContext } from './backend';
import type { Upstream, UpstreamCall, UpstreamPath } from './upstream';

interface StreamedChoice {
  content: string;
  reasoning: string;
  toolCalls: Map<number, { id?: string; type: string; function: { name: string; arguments: string } }>;
  logprobs: unknown[];
  tokenIds: number[] | undefined;
  finishReason: string | null;
}

/** An upstream's streamed chunks put together as the whole completion it would have sent (token data included). */
export function assembleChunks(chunks: readonly Record<string, any>[], upstream: string): Record<string, any> {
  const invalid = (what: string) => new GatewayError(502, 'upstream_error', 'invalid_upstream_response', `${upstream} ${what}`);
  const choice: StreamedChoice = { content: '', reasoning: '', toolCalls: new Map(), logprobs: [], tokenIds: undefined, finishReason: null };
  let head: Record<string, any> | undefined;
  let promptIds: unknown;
  let usage: unknown;
  let sawLogprobs = false;
  for (const chunk of chunks) {
    if ((chunk as { error?: unknown }).error) throw invalid(`failed mid-stream: ${JSON.stringify(chunk.error).slice(0, 500)}`);
    head ??= chunk;
    if (chunk.prompt_token_ids != null) promptIds = chunk.prompt_token_ids;
    if (chunk.usage) usage = chunk.usage;
    for (const c of (chunk.choices ?? []) as Record<string, any>[]) {
      if (c.index !== undefined && c.index !== 0) throw invalid('streamed more than one choice to a request for one');
      const delta = c.delta ?? {};
      if (typeof delta.content === 'string') choice.content += delta.content;
      const reasoning = delta.reasoning_content ?? delta.reasoning;
      if (typeof reasoning === 'string') choice.reasoning += reasoning;
      for (const call of (delta.tool_calls ?? []) as Record<string, any>[]) {
        const at = call.index ?? 0;
        const known = choice.toolCalls.get(at) ?? { type: 'function', function: { name: '', arguments: '' } };
        if (call.id) known.id = call.id;
        if (call.function?.name) known.function.name += call.function.name;
        if (call.function?.arguments) known.function.arguments += call.function.arguments;
        choice.toolCalls.set(at, known);
      }
      if (c.logprobs?.content) {
        sawLogprobs = true;
        choice.logprobs.push(...c.logprobs.content);
      }
      if (Array.isArray(c.token_ids)) (choice.tokenIds ??= []).push(...c.token_ids);
      if (c.finish_reason) choice.finishReason = c.finish_reason;
    }
  }
  if (!head) throw invalid('ended its stream without a chunk');
  const toolCalls = [...choice.toolCalls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
  const message = {
    role: 'assistant',
    content: choice.content || (toolCalls.length > 0 ? null : ''),
    ...(choice.reasoning ? { reasoning_content: choice.reasoning } : {}),
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
  };
  return {
    id: head.id,
    object: 'chat.completion',
    created: head.created,
    model: head.model,
    ...(promptIds != null ? { prompt_token_ids: promptIds } : {}),
    choices: [
      {
        index: 0,
        message,
        finish_reason: choice.finishReason ?? 'stop',
        logprobs: sawLogprobs ? { content: choice.logprobs } : null,
        ...(choice.tokenIds ? { token_ids: choice.tokenIds } : {}),
      },
    ],
    ...(usage ? { usage } : {}),
  };
}

/** Streams one chat completion from the upstream, passing its deltas on; the assembled completion. */
export async function streamChat(upstream: Upstream, path: UpstreamPath, body: Record<string, unknown>, ctx: CallContext, call: UpstreamCall, label: string): Promise<Record<string, any>> {
  const chunks: Record<string, any>[] = [];
  for await (const chunk of upstream.postStream(path, { ...body, stream: true, stream_options: { include_usage: true } }, call)) {
    const c = chunk as Record<string, any>;
    // An upstream that ignored `stream: true` answered whole.
    if (c.object === 'chat.completion') return c;
    chunks.push(c);
    if (ctx.onDelta && !c.error) for (const delta of chatChunkDeltas(c)) ctx.onDelta(delta);
  }
  return assembleChunks(chunks, label);
}

// Pieces of an answer as an upstream streams them, in one shape whatever protocol brought them: a
// streaming caller gets each as it arrives (in its own protocol's events), and the backend still
// assembles the whole answer for token capture and the call log.

/** One piece of a streamed answer. `index` numbers a tool call among the answer's calls. */
export type AnswerDelta = { kind: 'text'; text: string } | { kind: 'reasoning'; text: string } | { kind: 'tool_call'; index: number; id?: string; name?: string; arguments: string };

/** The deltas in one Chat Completions chunk (content, reasoning, tool-call pieces). */
export function chatChunkDeltas(chunk: Record<string, any>): AnswerDelta[] {
  const out: AnswerDelta[] = [];
  for (const choice of (chunk.choices ?? []) as Record<string, any>[]) {
    const delta = choice.delta ?? {};
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (typeof reasoning === 'string' && reasoning) out.push({ kind: 'reasoning', text: reasoning });
    if (typeof delta.content === 'string' && delta.content) out.push({ kind: 'text', text: delta.content });
    for (const call of (delta.tool_calls ?? []) as Record<string, any>[]) {
      out.push({
        kind: 'tool_call',
        index: call.index ?? 0,
        ...(call.id ? { id: String(call.id) } : {}),
        ...(call.function?.name ? { name: String(call.function.name) } : {}),
        arguments: typeof call.function?.arguments === 'string' ? call.function.arguments : '',
      });
    }
  }
  return out;
}

/**
 * Follows a Responses event stream: the deltas it carries, with tool calls numbered in the order their
 * items were added (the calls' `index`), as the conversion numbers them.
 */
export function responsesEventDeltas(): (event: Record<string, any>) => AnswerDelta[] {
  const callIndex = new Map<string, number>();
  return (event) => {
    switch (event.type) {
      case 'response.output_text.delta':
        return typeof event.delta === 'string' && event.delta ? [{ kind: 'text', text: event.delta }] : [];
      case 'response.reasoning_text.delta':
      case 'response.reasoning_summary_text.delta':
        return typeof event.delta === 'string' && event.delta ? [{ kind: 'reasoning', text: event.delta }] : [];
      case 'response.output_item.added': {
        const item = event.item ?? {};
        if (item.type !== 'function_call') return [];
        const index = callIndex.size;
        callIndex.set(String(item.id ?? event.output_index), index);
        return [{ kind: 'tool_call', index, id: String(item.call_id ?? ''), name: String(item.name ?? ''), arguments: typeof item.arguments === 'string' ? item.arguments : '' }];
      }
      case 'response.function_call_arguments.delta': {
        const index = callIndex.get(String(event.item_id ?? event.output_index));
        return index === undefined || typeof event.delta !== 'string' ? [] : [{ kind: 'tool_call', index, arguments: event.delta }];
      }
      default:
        return [];
    }
  };
}

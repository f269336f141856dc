// NeMo Gym's citation_if environment (v0.6.0 "Citation IF"): after a frozen retrieval conversation
// the model must answer citing the retrieved sources in the grammar it was told to use, only with
// IDs that exist and including the expected ones (or, for no_cite rows, not cite at all). Reward 1 or 0.
import { pyStrip } from '../../python/str';
import type { ResponseObject } from '../../schemas/responses';
import { defineEnvironment } from '../define';
import { reply } from '../types';
import { TERMINAL_TOOL_RESPONSE } from './grammars';
import { scoreCitations } from './score';
import { CitationIfTask } from './task';
import { z } from 'zod';

/** The answer (assistant text parts joined by newlines, stripped) and how many tool calls the episode made. */
export function responseShape(response: ResponseObject): { text: string; functionCalls: number } {
  const parts: string[] = [];
  let functionCalls = 0;
  for (const item of response.output) {
    if (item.type === 'function_call') functionCalls++;
    if ((item.type !== 'message' && item.type !== undefined) || !('role' in item) || item.role !== 'assistant') continue;
    if (!Array.isArray(item.content)) continue;
    for (const part of item.content as { type?: string; text?: unknown }[]) {
      if ((part.type === 'output_text' || part.type === 'text') && typeof part.text === 'string' && part.text) parts.push(part.text);
    }
  }
  return { text: pyStrip(parts.join('\n')), functionCalls };
}

export const citationIf = defineEnvironment({
  name: 'citation_if',
  description: 'Answer after a frozen retrieval trajectory, citing retrieved sources in the required grammar (or not at all); reward 1 or 0.',
  taskSchema: CitationIfTask,
  tools: {
    // Retrieval is over: NeMo Gym answers every tool with the same closing text, and the call scores 0.
    web_search: { args: z.unknown(), run: (_args: unknown, { state }) => reply(TERMINAL_TOOL_RESPONSE, state) },
  },
  verify(task, response) {
    const { text, functionCalls } = responseShape(response);
    const { reward, details } = scoreCitations(text, functionCalls, task.verifier);
    return {
      reward,
      match_details: details,
      ...(details.gate_failed ? { failure_reason: `citation gate failed: ${details.gate_failed}` } : {}),
    };
  },
});

// A harness run as a Gymflow trajectory: its model calls read back from the run folder's call log (the
// gateway logged each one, token ids included), in order, their answers as Responses items.
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { chatCompletionToResponse } from '../gateway/convert';
import type { ChatCompletion } from '../gateway/wire';
import { ModelCallRecord } from '../schemas/records';
import type { ConversationItem, ResponseObject } from '../schemas/responses';

/** Every call logged for one rollout attempt (its rollout-scoped URL id), in the order they were answered. */
export async function attemptCalls(runDir: string, attemptId: string): Promise<ModelCallRecord[]> {
  const dir = path.join(runDir, 'model_calls');
  if (!existsSync(dir)) return [];
  const calls: ModelCallRecord[] = [];
  for (const name of (await readdir(dir)).filter((f) => f.endsWith('.jsonl')).sort()) {
    for (const line of (await readFile(path.join(dir, name), 'utf8')).split('\n')) {
      // Cheap filter first: a long run's log holds every other rollout's calls too.
      if (!line.includes(attemptId)) continue;
      const parsed = ModelCallRecord.safeParse(JSON.parse(line));
      if (parsed.success && parsed.data.rollout_attempt_id === attemptId) calls.push(parsed.data);
    }
  }
  return calls.sort((a, b) => a.step - b.step);
}

/** An Anthropic message's blocks as Responses items: text as one message, each tool_use as a function call. */
function messageItems(message: { content?: unknown }): ConversationItem[] {
  const blocks = Array.isArray(message.content) ? (message.content as Record<string, any>[]) : [];
  const text = blocks
    .filter((b) => b?.type === 'text')
    .map((b) => String(b.text ?? ''))
    .join('');
  const items: ConversationItem[] = [];
  if (text) items.push({ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] });
  for (const b of blocks) {
    if (b?.type === 'tool_use') items.push({ type: 'function_call', call_id: String(b.id), name: String(b.name), arguments: JSON.stringify(b.input ?? {}), status: 'completed' });
  }
  return items;
}

/** The answer of one logged call as Responses items, whatever route it came through. */
export function answerOf(call: ModelCallRecord): ConversationItem[] {
  const response = call.response as Record<string, any> | undefined;
  if (!response) return [];
  if (Array.isArray(response.output)) return response.output as ConversationItem[];
  if (Array.isArray(response.choices)) return chatCompletionToResponse(response as ChatCompletion).output;
  if (response.type === 'message') return messageItems(response);
  return [];
}

function hasTools(call: ModelCallRecord): boolean {
  const tools = (call.request as { tools?: unknown } | undefined)?.tools;
  return Array.isArray(tools) && tools.length > 0;
}

export interface Trajectory {
  calls: ModelCallRecord[];
  /** The agent's turns: the answered calls that offered tools (a harness's side calls, e.g. a title, have none). */
  turns: ModelCallRecord[];
  /** What the policy generated over the turns, in order. */
  output: ConversationItem[];
  inputTokens: number;
  outputTokens: number;
  modelMs: number;
}

const answered = (call: ModelCallRecord) => !call.error && call.response !== undefined && (call.status ?? 200) < 400;

export function trajectoryOf(calls: ModelCallRecord[]): Trajectory {
  const done = calls.filter(answered);
  const withTools = done.filter(hasTools);
  const turns = withTools.length > 0 ? withTools : done;
  const usage = (call: ModelCallRecord, keys: string[]) => {
    const u = call.usage as Record<string, unknown> | null | undefined;
    for (const key of keys) if (typeof u?.[key] === 'number') return u[key] as number;
    return call.tokens ? (keys[0] === 'input_tokens' ? call.tokens.prompt_token_ids.length : call.tokens.generation_token_ids.length) : 0;
  };
  return {
    calls,
    turns,
    output: turns.flatMap(answerOf),
    inputTokens: done.reduce((n, c) => n + usage(c, ['input_tokens', 'prompt_tokens']), 0),
    outputTokens: done.reduce((n, c) => n + usage(c, ['output_tokens', 'completion_tokens']), 0),
    modelMs: done.reduce((n, c) => n + c.latency_ms, 0),
  };
}

const isAssistantMessage = (item: ConversationItem | undefined) =>
  item?.type !== 'function_call' && item?.type !== 'function_call_output' && item?.type !== 'reasoning' && (item as { role?: string } | undefined)?.role === 'assistant';

/**
 * The episode as one Response, what a text task's verify grades: the turns' output, ending with an
 * assistant message, an empty one appended when the harness's last turn left none (as NeMo Gym's harness
 * agents pad it), so a verifier reading the final message never reads a tool call.
 */
export function trajectoryResponse(id: string, trajectory: Trajectory): ResponseObject {
  const last = trajectory.turns.at(-1)?.response as { id?: unknown; model?: unknown } | undefined;
  const output = isAssistantMessage(trajectory.output.at(-1))
    ? trajectory.output
    : [...trajectory.output, { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: '', annotations: [] }] } as ConversationItem];
  return {
    id: typeof last?.id === 'string' ? last.id : `resp_${id}`,
    object: 'response',
    model: typeof last?.model === 'string' ? last.model : null,
    status: 'completed',
    output,
    usage: { input_tokens: trajectory.inputTokens, output_tokens: trajectory.outputTokens, total_tokens: trajectory.inputTokens + trajectory.outputTokens },
  };
}

// The model-authored turns of an answer or a transcript, reduced to one comparable key: what lets a
// rollout's scored transcript name the call whose answer ends it, whatever wire shape the call had.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../gateway/canonical';

type Item = Record<string, unknown>;

/** Arguments compared as canonical JSON: a harness may re-serialize them between turns. */
function canonicalArguments(value: unknown): string {
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      return value.trim();
    }
  }
  return canonicalJson(parsed);
}

/** Text parts and tool calls of one item, or nothing when the model did not author it. */
function partsOf(item: Item): string[][] {
  if (item.type === 'function_call') return [['call', String(item.call_id ?? ''), String(item.name ?? ''), canonicalArguments(item.arguments)]];
  // Reasoning is left out, as NeMo Gym does: a harness need not echo it back.
  if (item.role !== 'assistant' || (item.type !== undefined && item.type !== 'message')) return [];
  const parts: string[][] = [];
  const content = item.content;
  if (typeof content === 'string') {
    if (content) parts.push(['text', content]);
  } else if (Array.isArray(content)) {
    for (const block of content as Item[]) {
      if (!block || typeof block !== 'object') continue;
      if (block.type === 'tool_use') parts.push(['call', String(block.id ?? ''), String(block.name ?? ''), canonicalArguments(block.input)]);
      else if (typeof block.text === 'string') block.text && parts.push(['text', block.text]);
      else if (typeof block.refusal === 'string') parts.push(['refusal', block.refusal]);
    }
  }
  for (const call of (item.tool_calls as Item[] | undefined) ?? []) {
    const fn = (call?.function ?? {}) as Item;
    parts.push(['call', String(call?.id ?? ''), String(fn.name ?? ''), canonicalArguments(fn.arguments)]);
  }
  return parts;
}

export function isModelAuthored(item: unknown): boolean {
  return !!item && typeof item === 'object' && ((item as Item).type === 'function_call' || (item as Item).role === 'assistant');
}

/** A key of the model-authored content of some items ('' when there is none): equal content, equal key. */
export function turnKey(items: readonly unknown[]): string {
  const parts = items.filter((i): i is Item => !!i && typeof i === 'object').flatMap(partsOf);
  if (!parts.length) return '';
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/** The items of a call's answer: Responses output, the chat message, or an Anthropic message. */
export function answerItems(response: unknown): unknown[] {
  const r = response as { output?: unknown; choices?: { message?: unknown }[]; type?: unknown; role?: unknown } | undefined;
  if (Array.isArray(r?.output)) return r.output;
  if (Array.isArray(r?.choices)) return r.choices.slice(0, 1).map((c) => c?.message);
  if (r?.type === 'message' && r.role === 'assistant') return [r];
  return [];
}

/**
 * The key of a transcript's last run of model-authored items: the final call's own answer. A transcript
 * that ends on a tool result or a user turn has none ('').
 */
export function trailingTurnKey(transcript: readonly unknown[]): string {
  let start = transcript.length;
  // Reasoning items belong to the answer they sit in, though they carry no key of their own.
  const inAnswer = (item: unknown) => isModelAuthored(item) || (item as Item | undefined)?.type === 'reasoning';
  while (start > 0 && inAnswer(transcript[start - 1])) start--;
  return start === transcript.length ? '' : turnKey(transcript.slice(start));
}

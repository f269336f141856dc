// The simple agent's history policies: what of a rollout's history the model is shown on each call (the
// last N turns or tokens, older images and reasoning left out) and an account of what was left out. Pure.
import { z } from 'zod';
import { GymError } from '../errors';
import type { ConversationItem } from '../schemas/responses';

/**
 * A run's history policy (`--history-policy`). A turn is one model call's output with the tool outputs
 * or environment reply that answered it; the task's input and the environment's first observation are
 * the initial context, which every policy keeps whole.
 */
export const HistoryPolicy = z
  .strictObject({
    /** Show only the last N turns. */
    last_turns: z.number().int().min(1).optional(),
    /** Show the newest turns whose estimated tokens, with the initial context, fit in N; the latest turn always. */
    last_tokens: z.number().int().min(1).optional(),
    /** Show the images of the last N observations that carry images; older ones become a text marker. */
    keep_images: z.number().int().min(1).optional(),
    /** Show the reasoning of the last N turns that reasoned (0: none); older reasoning items are left out. */
    keep_reasoning: z.number().int().min(0).optional(),
  })
  .refine((p) => Object.values(p).some((v) => v !== undefined), 'a history policy needs at least one of last_turns, last_tokens, keep_images, keep_reasoning');
export type HistoryPolicy = z.infer<typeof HistoryPolicy>;

/** What one model call was not shown. Tokens are estimates (estimateTokens), before and after the policy. */
export const CompactionSummary = z.object({
  turns: z.number().int().nonnegative(),
  turns_dropped: z.number().int().nonnegative(),
  /** Items of the dropped turns, plus reasoning items left out of the turns shown. */
  items_dropped: z.number().int().nonnegative(),
  images_omitted: z.number().int().nonnegative(),
  reasoning_omitted: z.number().int().nonnegative(),
  tokens_before: z.number().int().nonnegative(),
  tokens_after: z.number().int().nonnegative(),
});
export type CompactionSummary = z.infer<typeof CompactionSummary>;

/** What replaces an image the policy leaves out, so the model knows one was there. */
export const IMAGE_OMITTED = '[Earlier image omitted]';
/** An image's share of the token estimate: providers bill a detailed image at roughly this many tokens. */
export const IMAGE_TOKEN_ESTIMATE = 1000;
const CHARS_PER_TOKEN = 4;

const FLAG_KEYS: Record<string, { key: keyof HistoryPolicy; min: number; fallback?: number }> = {
  'last-turns': { key: 'last_turns', min: 1 },
  'last-tokens': { key: 'last_tokens', min: 1 },
  'drop-old-images': { key: 'keep_images', min: 1, fallback: 1 },
  'drop-old-reasoning': { key: 'keep_reasoning', min: 0, fallback: 1 },
};
const FLAG_SYNTAX = 'last-turns=N, last-tokens=N, drop-old-images[=N] or drop-old-reasoning[=N], comma-separated';

/**
 * `last-turns=4,drop-old-images` as a policy. `drop-old-images[=N]` keeps the images of the last N
 * observations, `drop-old-reasoning[=N]` the reasoning of the last N turns (N defaults to 1 for both).
 * Errors name `where` (the flag or configuration key the text came from).
 */
export function parseHistoryPolicy(text: string, where: string): HistoryPolicy {
  const policy: Record<string, number> = {};
  for (const part of text.split(',').map((p) => p.trim())) {
    if (!part) throw new GymError('BAD_FLAG', `${where}: empty entry in "${text}"; use ${FLAG_SYNTAX}`);
    const [name, value, extra] = part.split('=');
    const spec = FLAG_KEYS[name!];
    if (!spec) throw new GymError('BAD_FLAG', `${where}: unknown policy "${name}"; use ${FLAG_SYNTAX}`);
    if (spec.key in policy) throw new GymError('BAD_FLAG', `${where}: "${name}" is given twice`);
    if (extra !== undefined) throw new GymError('BAD_FLAG', `${where}: "${part}" has more than one "="`);
    if (value === undefined && spec.fallback === undefined) throw new GymError('BAD_FLAG', `${where}: "${name}" needs a number: ${name}=N`);
    const n = value === undefined ? spec.fallback! : /^\d+$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < spec.min) throw new GymError('BAD_FLAG', `${where}: ${name} must be an integer ≥ ${spec.min}, got "${value}"`);
    policy[spec.key] = n;
  }
  return HistoryPolicy.parse(policy);
}

/** The policy in the flag's syntax: parseHistoryPolicy(formatHistoryPolicy(p)) is p. */
export function formatHistoryPolicy(policy: HistoryPolicy): string {
  return Object.entries(FLAG_KEYS)
    .filter(([, spec]) => policy[spec.key] !== undefined)
    .map(([name, spec]) => `${name}=${policy[spec.key]}`)
    .join(',');
}

/** The history a model call would be shown whole: the initial context, then one item list per turn, oldest first. */
export interface History {
  initial: readonly ConversationItem[];
  turns: readonly (readonly ConversationItem[])[];
}

export interface CompactedHistory {
  items: ConversationItem[];
  /** Null when the policy left the history whole. */
  compaction: CompactionSummary | null;
}

type Part = { type?: unknown; text?: unknown; image_url?: unknown };

const isImage = (part: unknown) => (part as Part)?.type === 'input_image';
const textTokens = (text: unknown) => (typeof text === 'string' ? Math.ceil(text.length / CHARS_PER_TOKEN) : 0);

function contentTokens(content: unknown): number {
  if (!Array.isArray(content)) return textTokens(content);
  return content.reduce((sum: number, part: Part) => sum + (isImage(part) ? IMAGE_TOKEN_ESTIMATE : textTokens(part?.text)), 0);
}

/**
 * An item's tokens as the model would read them, estimated (about four characters a token, an image
 * IMAGE_TOKEN_ESTIMATE): only what is rendered counts, never the token-id fields an answer carries.
 */
export function estimateTokens(item: ConversationItem): number {
  const i = item as Record<string, unknown>;
  switch (i.type) {
    case 'function_call':
      return textTokens(i.name) + textTokens(i.arguments);
    case 'custom_tool_call':
      return textTokens(i.name) + textTokens(i.input);
    case 'function_call_output':
    case 'custom_tool_call_output':
      return contentTokens(i.output);
    case 'reasoning':
      return (i.summary as Part[]).reduce((sum, s) => sum + textTokens(s.text), 0) + textTokens(i.encrypted_content);
    default:
      return contentTokens(i.content);
  }
}

/** The item with its images replaced by the omission marker, and how many were replaced. */
function withoutImages(item: ConversationItem): { item: ConversationItem; images: number } {
  const i = item as Record<string, unknown>;
  const field = i.type === 'function_call_output' || i.type === 'custom_tool_call_output' ? 'output' : 'content';
  const parts = i[field];
  if (!Array.isArray(parts) || !parts.some(isImage)) return { item, images: 0 };
  return {
    item: { ...item, [field]: parts.map((p) => (isImage(p) ? { type: 'input_text', text: IMAGE_OMITTED } : p)) } as ConversationItem,
    images: parts.filter(isImage).length,
  };
}

const hasImages = (items: readonly ConversationItem[]) => items.some((item) => withoutImages(item).images > 0);
const hasReasoning = (items: readonly ConversationItem[]) => items.some((item) => item.type === 'reasoning');

/** Indexes of the last `n` turns for which `has` holds. */
function lastWith(turns: History['turns'], n: number, has: (items: readonly ConversationItem[]) => boolean): Set<number> {
  const found = new Set<number>();
  for (let t = turns.length - 1; t >= 0 && found.size < n; t--) if (has(turns[t]!)) found.add(t);
  return found;
}

const sum = (items: readonly ConversationItem[], count: (item: ConversationItem) => number) => items.reduce((s, item) => s + count(item), 0);

/**
 * The items a model call is shown under `policy`. Older images and reasoning go first (by their place in
 * the whole history), then whole turns from the oldest, so a tool call never loses its output. The
 * initial context is never touched; `countTokens` replaces the estimate where a real tokenizer is known.
 */
export function compactHistory(history: History, policy: HistoryPolicy, countTokens: (item: ConversationItem) => number = estimateTokens): CompactedHistory {
  const { initial, turns } = history;
  const imagesKept = policy.keep_images === undefined ? undefined : lastWith(turns, policy.keep_images, hasImages);
  const reasoningKept = policy.keep_reasoning === undefined ? undefined : lastWith(turns, policy.keep_reasoning, hasReasoning);
  const views = turns.map((items, t) => {
    let images = 0;
    let reasoning = 0;
    const shown: ConversationItem[] = [];
    for (const item of items) {
      if (item.type === 'reasoning' && reasoningKept && !reasoningKept.has(t)) {
        reasoning++;
        continue;
      }
      if (imagesKept && !imagesKept.has(t)) {
        const stripped = withoutImages(item);
        images += stripped.images;
        shown.push(stripped.item);
      } else shown.push(item);
    }
    return { shown, images, reasoning, tokens: sum(shown, countTokens) };
  });
  let first = policy.last_turns === undefined ? 0 : Math.max(0, turns.length - policy.last_turns);
  if (policy.last_tokens !== undefined) {
    let budget = policy.last_tokens - sum(initial, countTokens);
    // The latest turn is what the next call answers: shown even when it alone is over the budget.
    let t = turns.length - 1;
    for (; t > first; t--) {
      budget -= views[t]!.tokens;
      if (budget < views[t - 1]!.tokens) break;
    }
    first = Math.max(first, t);
  }
  const kept = views.slice(first);
  const summary: CompactionSummary = {
    turns: turns.length,
    turns_dropped: first,
    items_dropped: turns.slice(0, first).flat().length + kept.reduce((s, v) => s + v.reasoning, 0),
    images_omitted: kept.reduce((s, v) => s + v.images, 0),
    reasoning_omitted: kept.reduce((s, v) => s + v.reasoning, 0),
    tokens_before: sum(initial, countTokens) + sum(turns.flat(), countTokens),
    tokens_after: sum(initial, countTokens) + kept.reduce((s, v) => s + v.tokens, 0),
  };
  const items = [...initial, ...kept.flatMap((v) => v.shown)];
  const changed = summary.turns_dropped + summary.images_omitted + summary.reasoning_omitted > 0;
  return { items, compaction: changed ? summary : null };
}

// Canonical JSON: one string per value whatever the key order or null padding, so two spellings of
// the same conversation (or model spec) compare and hash equal.
import { createHash } from 'node:crypto';
import { inputItems, type ConversationItem, type ResponseCreateParams } from '../schemas/responses';

/** JSON with object keys sorted and null/undefined-valued keys dropped, at every depth. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== null && v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/**
 * The canonical form of an input item. Role items without a `type` are messages (NeMo Gym's
 * EasyInputMessage), so a task file written without `type` matches a request that spells it out.
 */
export function canonicalItem(item: ConversationItem): string {
  return canonicalJson('role' in item && item.type === undefined ? { ...item, type: 'message' } : item);
}

export function canonicalItems(input: ResponseCreateParams['input']): string[] {
  return inputItems(input).map(canonicalItem);
}

/**
 * A request's items, canonicalised only as far as a lookup reads: a task is found by its first few
 * items, while a late turn's history (with every earlier turn's token ids) can be long.
 */
export class CanonicalPrefix {
  private readonly done: string[] = [];

  constructor(private readonly items: readonly ConversationItem[]) {}

  get length(): number {
    return this.items.length;
  }

  /** The canonical JSON array of the first `n` items. */
  key(n: number): string {
    for (let i = this.done.length; i < n; i++) this.done.push(canonicalItem(this.items[i]!));
    return `[${this.done.slice(0, n).join(',')}]`;
  }
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

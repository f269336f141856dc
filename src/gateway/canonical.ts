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
 * The canonical form of each input item. Role items without a `type` are messages (NeMo Gym's
 * EasyInputMessage), so a task file written without `type` matches a request that spells it out.
 */
export function canonicalItems(input: ResponseCreateParams['input']): string[] {
  return inputItems(input).map((item: ConversationItem) =>
    canonicalJson('role' in item && item.type === undefined ? { ...item, type: 'message' } : item),
  );
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

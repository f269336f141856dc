// What the judges read: the policy-facing prompt (every input message as "ROLE:\ntext") and the
// policy's answer (the last assistant message with text), both stripped as NeMo Gym's bbq does.
import { pyStrip } from '../../python/str';
import type { ConversationItem, ResponseCreateParams } from '../../schemas/responses';

function contentText(content: unknown): string {
  if (typeof content === 'string') return pyStrip(content);
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const block of content as { text?: unknown; refusal?: unknown }[]) {
    const text = block?.text || block?.refusal;
    if (typeof text === 'string' && pyStrip(text)) parts.push(pyStrip(text));
  }
  return pyStrip(parts.join('\n'));
}

export function policyPrompt(params: ResponseCreateParams): string {
  if (typeof params.input === 'string') return pyStrip(params.input);
  const parts: string[] = [];
  for (const item of params.input) {
    const role = String((item as { role?: unknown }).role || 'input').toUpperCase();
    const text = contentText((item as { content?: unknown }).content);
    if (text) parts.push(`${role}:\n${text}`);
  }
  return pyStrip(parts.join('\n\n'));
}

export function lastAssistantText(output: readonly ConversationItem[]): string {
  for (let i = output.length - 1; i >= 0; i--) {
    const item = output[i] as { type?: string; role?: string; content?: unknown };
    if (item.type !== 'message' || item.role !== 'assistant') continue;
    const text = contentText(item.content);
    if (text) return text;
  }
  return '';
}

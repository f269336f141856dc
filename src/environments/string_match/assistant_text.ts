// The answer text string_match and gui_coordinate grade: every text part of every assistant message of
// the episode, joined with "\n" and stripped (mcqa instead joins output_text parts with "").
import type { ConversationItem, MessageItem } from '../../schemas/responses';
import { pyStrip } from '../../python/str';

export function assistantText(output: readonly ConversationItem[]): string {
  const texts: string[] = [];
  for (const item of output) {
    if ((item.type ?? 'message') !== 'message' || (item as MessageItem).role !== 'assistant') continue;
    const content = (item as MessageItem).content;
    if (typeof content === 'string') texts.push(content);
    else for (const part of content) if (typeof part.text === 'string') texts.push(part.text);
  }
  return pyStrip(texts.join('\n'));
}

// The answer NeMo Gym's reasoning_gym server scores: the last <answer>…</answer>, else the first
// \boxed{…}, else the whole text, read from every message of the episode joined with "".
import type { ConversationItem } from '../../schemas/responses';
import { pyStrip } from '../../python/str';

const ANSWER_TAG = /<answer>\s?([\s\S]*?)\s?<\/answer>/g;
const BOXED = /\\boxed\{([^}]+)\}/;

/** Every message item's text: a string content as is, else its output_text parts. */
export function episodeText(output: readonly ConversationItem[]): string {
  let text = '';
  for (const item of output) {
    if (item.type !== 'message') continue;
    const content = (item as { content: unknown }).content;
    if (typeof content === 'string') text += content;
    else for (const part of content as { type?: string; text?: unknown }[]) if (part.type === 'output_text') text += String(part.text);
  }
  return text;
}

export function extractAnswer(fullText: string): string {
  const tagged = [...fullText.matchAll(ANSWER_TAG)].at(-1);
  if (tagged) return pyStrip(tagged[1]!);
  const boxed = BOXED.exec(fullText);
  if (boxed) return pyStrip(boxed[1]!);
  return pyStrip(fullText);
}

// How NeMo Gym's code_gen reads a model's answer: the code block it grades, and whether the answer
// breaks the reasoning format (think tags leaking into the final text).
import type { ConversationItem } from '../../schemas/responses';

/** LiveCodeBench's extract_code for chat models: the lines between the last two lines containing ```. */
export function extractCode(answer: string): string {
  const lines = answer.split('\n');
  const fences = lines.flatMap((line, i) => (line.includes('```') ? [i] : []));
  if (fences.length < 2) return '';
  return lines.slice(fences.at(-2)! + 1, fences.at(-1)!).join('\n');
}

function count(text: string, tag: string): number {
  return text.split(tag).length - 1;
}

/** Think tags in the final answer, or more than one opening or closing tag across the reasoning summaries. */
export function hasReasoningFormatViolation(answer: string, output: readonly ConversationItem[]): boolean {
  if (answer.includes('<think>') || answer.includes('</think>')) return true;
  let reasoning = '';
  for (const item of output) {
    if (item.type !== 'reasoning') continue;
    for (const part of item.summary) if (typeof part.text === 'string') reasoning += part.text;
  }
  return count(reasoning, '<think>') > 1 || count(reasoning, '</think>') > 1;
}

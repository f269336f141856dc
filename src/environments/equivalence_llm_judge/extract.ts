// What the equivalence judge compares: the question (last user message of the task input) and the
// generated answer (last assistant message of the episode, optionally narrowed by a regex).
import { inputItems, type ConversationItem, type ResponseCreateParams } from '../../schemas/responses';
import { tryPyRegex, type PyRegex } from '../../python/regex';
import { pyStrip } from '../../python/str';

function partTexts(content: unknown): string[] | undefined {
  if (!Array.isArray(content)) return undefined;
  return content.flatMap((part) => {
    const text = (part as { text?: unknown } | null)?.text;
    return typeof text === 'string' ? [text] : [];
  });
}

/** `list(re.finditer(...))[-1]` with NeMo Gym's pick: first non-blank group, else the whole match, stripped. */
function lastMatchAnswer(regex: PyRegex, text: string): string | undefined {
  const last = [...regex.matches(text)].at(-1);
  if (!last) return undefined;
  const group = last.groups.find((g) => typeof g === 'string' && pyStrip(g) !== '');
  return pyStrip(group ?? last.text);
}

/** Extraction regexes are multiline and dotall; the task schema refuses a row's that does not compile so. */
export const EXTRACT_REGEX_FLAGS = 'ms';

function narrow(text: string, regexSource: string | null): string {
  if (!regexSource) return text;
  // A pattern Python rejects (only a setting's can reach here) behaves as "no match": the whole text is
  // judged. Rows and settings supply these patterns, so they match under the regex deadline.
  const regex = tryPyRegex(regexSource, EXTRACT_REGEX_FLAGS, { guarded: true });
  return (regex && lastMatchAnswer(regex, text)) ?? text;
}

/** Last user message's text (parts joined by "\n"), stripped, then optionally narrowed by a regex. */
export function questionText(params: ResponseCreateParams, extractRegex: string | null): string {
  let last: string | undefined;
  for (const item of inputItems(params.input)) {
    if ((item as { role?: string }).role !== 'user') continue;
    const content = (item as { content?: unknown }).content;
    if (typeof content === 'string') last = content;
    else {
      const texts = partTexts(content);
      if (texts && texts.length > 0) last = texts.join('\n');
    }
  }
  const text = pyStrip(last ?? '');
  return text ? narrow(text, extractRegex) : text;
}

/**
 * The last assistant message's text (parts joined by "\n"), stripped and narrowed by the regex;
 * `failureText` when there is no such message or it is blank.
 */
export function lastAssistantAnswer(output: readonly ConversationItem[], extractRegex: string | null, failureText: string): string {
  for (let i = output.length - 1; i >= 0; i--) {
    const item = output[i] as { type?: string; role?: string; content?: unknown };
    if (item.type !== 'message' || item.role !== 'assistant') continue;
    const texts = typeof item.content === 'string' ? [item.content] : partTexts(item.content);
    if (!texts) return failureText;
    const text = pyStrip(texts.join('\n'));
    return text ? narrow(text, extractRegex) : failureText;
  }
  return failureText;
}

// How AgentIF reads text: a response or judge reply without its reasoning blocks, a judge's YES/NO
// verdict, and the judge prompt a constraint's step makes from the response.
import { PY_WORD_CLASS, pySplitlines, pyStrip } from '../../python/str';

/** Drops `<think>…</think>` blocks (or everything up to a lone `</think>`); text without `</think>` is kept as is. */
export function stripThink(text: string): string {
  if (!text.includes('</think>')) return text;
  let cleaned = text.replace(/<think>[\s\S]*?<\/think>/g, '');
  if (cleaned === text) cleaned = text.slice(text.indexOf('</think>') + '</think>'.length);
  return pyStrip(cleaned);
}

// Python's `\b` around YES/NO: a boundary between a Unicode word character (CJK included) and anything else.
const VERDICT = new RegExp(`(?<![${PY_WORD_CLASS}])(YES|NO)(?![${PY_WORD_CLASS}])`, 'gu');

/**
 * A judge's verdict: true for YES, false for NO, null when there is none or both. The last non-blank
 * line decides if it holds one, else the whole text.
 */
export function parseYesNo(text: string | null): boolean | null {
  if (text === null || pyStrip(text) === '') return null;
  const lines = pySplitlines(pyStrip(text)).filter((line) => pyStrip(line) !== '');
  for (const scope of [...lines.slice(-1), text]) {
    const verdicts = new Set([...scope.matchAll(VERDICT)].map((m) => m[1]));
    if (verdicts.size === 1) return verdicts.has('YES');
  }
  return null;
}

/** The step's prompt with the response in its `{response}` slots (a slot is appended when it has none). */
export function judgePrompt(template: string, response: string): string {
  const withSlot = template.includes('{response}') ? template : `${template}\n\nHere is model response: {response}`;
  return withSlot.split('{response}').join(response);
}

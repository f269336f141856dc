// Where string_match finds the answer in the model's text, per the task's extraction_mode. Null means
// no answer (reward 0); an empty string is an answer.
import { balancedContent, peelTextWrappers } from '../mcqa/boxed';
import { PyRegex } from '../../python/regex';
import { pyRstrip, pySplitlines, pyStrip } from '../../python/str';

export const EXTRACTION_MODES = ['final_answer', 'boxed', 'last_line', 'full_response'] as const;
export type ExtractionMode = (typeof EXTRACTION_MODES)[number];

const BOXED = '\\boxed{';
const FINAL_ANSWER = new PyRegex('(?:final\\s+answer|answer)\\s*[:：]\\s*(.+)', 'i');
const TRAILING_PERIOD = new PyRegex('\\.\\s*$');

/** The last `\boxed{…}` that closes (an unclosed later box falls back to an earlier one), peeled. */
export function extractBoxed(text: string): string | null {
  let start = text.lastIndexOf(BOXED);
  while (start !== -1) {
    const inner = balancedContent(text, start + BOXED.length);
    if (inner !== null) return pyStrip(peelTextWrappers(pyStrip(inner)));
    start = start > 0 ? text.lastIndexOf(BOXED, start - 1) : -1;
  }
  return null;
}

/** The rest of the line after the last "Answer:" / "Final answer:", without trailing periods. */
function extractFinalAnswer(text: string): string | null {
  const matches = FINAL_ANSWER.findall(text) as string[];
  if (matches.length === 0) return null;
  let raw = pyStrip(matches.at(-1)!);
  const period = TRAILING_PERIOD.search(raw);
  if (period) raw = pyStrip(raw.slice(0, period.start));
  return pyRstrip(raw, '.');
}

function extractLastLine(text: string): string | null {
  const lines = pySplitlines(text);
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = pyStrip(lines[i]!);
    if (line !== '') return line;
  }
  return null;
}

export function extractAnswer(text: string, mode: ExtractionMode): string | null {
  switch (mode) {
    case 'boxed':
      return extractBoxed(text);
    case 'final_answer':
      return extractFinalAnswer(text) ?? extractBoxed(text);
    case 'last_line':
      return extractLastLine(text);
    case 'full_response':
      return pyStrip(text) === '' ? null : pyStrip(text);
  }
}

// Where litmus_agent finds the answer in a response and how it parses it: the row's one-group
// output_regex or a named answer format (fmt_00–fmt_30), last match wins, then float, bool or string.
import { pyFloat } from '../../python/number';
import { PyRegex } from '../../python/regex';
import { pyStrip } from '../../python/str';

export const ANSWER_TYPES = ['float', 'bool', 'string'] as const;
export type AnswerType = (typeof ANSWER_TYPES)[number];

// Delimited formats match across lines ('s'); fmt_22–fmt_30 run to the end of the line.
const FORMATS: Readonly<Record<string, [string, string]>> = {
  fmt_00: ['\\(\\((.*?)\\)\\)', 's'],
  fmt_01: ['\\(Answer:\\s*(.+?)\\)', 's'],
  fmt_02: ['Final answer:\\s*\\((.+?)\\)', 's'],
  fmt_03: ['Answer is\\s*\\[(.+?)\\]', 's'],
  fmt_04: ['\\[Answer:\\s*(.+?)\\]', 's'],
  fmt_05: ['\\[\\[(.+?)\\]\\]', 's'],
  fmt_06: ['Correct Answer:\\s*\\[(.+?)\\]', 's'],
  fmt_07: ['\\\\boxed\\{(.+?)\\}', 's'],
  fmt_08: ['\\\\boxed\\{(.+?)\\}', 's'],
  fmt_09: ['\\{\\{(.+?)\\}\\}', 's'],
  fmt_10: ['Answer Value:\\s*\\{(.+?)\\}', 's'],
  fmt_11: ['<<(.+?)>>', 's'],
  fmt_12: ['<<(.+?)>>', 's'],
  fmt_13: ['<(.+?)>', 's'],
  fmt_14: ['<Answer:\\s*(.+?)>', 's'],
  fmt_15: ['<final_answer>\\s*(.+?)\\s*</final_answer>', 's'],
  fmt_16: ['Final Answer:\\s*\\|\\|(.+?)\\|\\|', 's'],
  fmt_17: ['The answer is:\\s*\\|(.+?)\\|', 's'],
  fmt_18: ['\\*\\*Answer:\\s*(.+?)\\*\\*', 's'],
  fmt_19: ['\\*\\*Final answer is:\\s*(.+?)\\*\\*', 's'],
  fmt_20: ['Answer:\\s*\\*(.+?)\\*', 's'],
  fmt_21: ['## Answer:\\s*(.+?)\\s*##', 's'],
  fmt_22: ['ANSWER IS\\s*(.+)', ''],
  fmt_23: ['Response:\\s*(.+)', ''],
  fmt_24: ['Final Answer\\s*->\\s*(.+)', ''],
  fmt_25: ['Final value is:\\s*(.+)', ''],
  fmt_26: ['Correct Answer >>\\s*(.+)', ''],
  fmt_27: ['Answer Value:\\s*(.+)', ''],
  fmt_28: ['Final Answer\\s*=\\s*(.+)', ''],
  fmt_29: ['Correct answer is\\s*(.+)', ''],
  fmt_30: ['Final Answer:\\s*(.+)', ''],
};
export const ANSWER_FORMATS = Object.keys(FORMATS) as [string, ...string[]];
const COMPILED = new Map(Object.entries(FORMATS).map(([name, [source, flags]]) => [name, new PyRegex(source, flags)]));

const TRUE_TOKENS = new Set(['1', '1.0', 'true', 'yes', 'present', 't', 'y']);
const FALSE_TOKENS = new Set(['0', '0.0', 'false', 'no', 'absent', 'f', 'n']);
const NUMBER = new PyRegex('-?\\d+(?:\\.\\d+)?(?:[eE][+-]?\\d+)?');

/** The last match's group (the first non-empty one if several), stripped. */
function lastCapture(text: string, pattern: PyRegex): string | null {
  const matches = pattern.findall(text);
  if (matches.length === 0) return null;
  const last = matches.at(-1)!;
  return pyStrip(Array.isArray(last) ? (last.find((g) => g) ?? '') : last);
}

/** A float from the capture, else its last number-like token. */
export function parseNumeric(inner: string): number | null {
  const text = pyStrip(inner);
  const direct = pyFloat(text);
  if (direct !== null) return direct;
  const numbers = NUMBER.findall(text) as string[];
  return numbers.length ? pyFloat(numbers.at(-1)!) : null;
}

export function parseBool(inner: string): number | null {
  const token = pyStrip(inner).toLowerCase();
  if (TRUE_TOKENS.has(token)) return 1;
  if (FALSE_TOKENS.has(token)) return 0;
  const n = parseNumeric(token);
  return n === null ? null : n !== 0 ? 1 : 0;
}

export interface Locator {
  outputRegex?: PyRegex;
  answerFormat?: string | null;
  useBoxFormat: boolean;
}

/** The predicted value, parsed by type, or null when the response has none. */
export function extractValue(response: string, type: AnswerType, where: Locator): number | string | null {
  const text = pyStrip(response);
  const pattern = where.outputRegex ?? COMPILED.get(where.answerFormat || (where.useBoxFormat ? 'fmt_07' : 'fmt_00'))!;
  const raw = lastCapture(text, pattern);
  if (raw === null) return null;
  if (type === 'string') return raw;
  return type === 'bool' ? parseBool(raw) : parseNumeric(raw);
}

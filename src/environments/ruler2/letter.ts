// The answer letter of a RULER v2 multiple-choice row, read as NeMo Skills' relaxed MCQ extractor reads
// it: "The final answer is …", else the last \boxed{…}, then the last lone capital, else "Answer: X".
import { PyRegex } from '../../python/regex';
import { pyLen, pyStrip } from '../../python/str';

const FINAL_ANSWER = new PyRegex('The final answer is (.+)$', 'm');
const LAST_LONE_CAPITAL = new PyRegex('\\b[A-Z]\\b(?!.*\\b[A-Z]\\b)', 's');
const ANSWER_COLON = new PyRegex('(?i)[\\*\\_]{0,2}Answer[\\*\\_]{0,2}\\s*:[\\s\\*\\_]{0,2}\\s*([A-Z])(?![a-zA-Z0-9])');

// Arabic, Bengali and full-width letters that stand for A–D in localised prompts.
const LOCAL_LETTERS: readonly [string, string][] = [
  ['أ', 'A'],
  ['ب', 'B'],
  ['ج', 'C'],
  ['د', 'D'],
  ['অ', 'A'],
  ['ব', 'B'],
  ['ড', 'C'],
  ['ঢ', 'D'],
  ['Ａ', 'A'],
  ['Ｂ', 'B'],
  ['Ｃ', 'C'],
  ['Ｄ', 'D'],
];

/** The content of the last `\boxed{…}`, braces balanced; null when absent or unclosed. */
export function lastBoxed(text: string): string | null {
  const at = text.lastIndexOf('\\boxed');
  if (at < 0) return null;
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) {
      const boxed = text.slice(at, i + 1);
      return boxed.startsWith('\\boxed{') ? boxed.slice('\\boxed{'.length, -1) : null;
    }
  }
  return null;
}

function normaliseLetters(s: string): string {
  for (const [from, to] of LOCAL_LETTERS) s = s.replaceAll(from, ` ${to}`);
  return pyStrip(s);
}

export function extractLetter(text: string): string | null {
  const finals = FINAL_ANSWER.findall(text) as string[];
  let extracted: string | null = finals.length ? finals.at(-1)! : lastBoxed(text);
  if (extracted !== null) extracted = normaliseLetters(extracted);
  let letter: string | null = null;
  const length = extracted === null ? 0 : pyLen(extracted);
  if (extracted !== null && length === 1) letter = extracted.toUpperCase();
  else if (extracted !== null && length > 1) {
    const tail = LAST_LONE_CAPITAL.findall(extracted) as string[];
    if (tail.length) letter = pyStrip(tail.at(-1)!).toUpperCase();
  }
  if (letter === null) {
    const colon = ANSWER_COLON.findall(text) as string[];
    if (colon.length) letter = pyStrip(colon.at(-1)!).toUpperCase();
  }
  return letter;
}

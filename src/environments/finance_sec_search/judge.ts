// finance_sec_search's judge: NeMo Gym's 0/1/2 financial grading prompt, filled by plain replacement, and
// the verdict read as the last "[[N]]" of the judge's reply.
import { readFileSync } from 'node:fs';
import { asciiDigits } from '../../python/number';

export const JUDGE_PROMPT = readFileSync(new URL('./judge_prompt.txt', import.meta.url), 'utf8');

/** Python's `\d` is any decimal digit (Nd), and `int()` reads them all; JS's `\d` is ASCII only. */
const RATING = /\[\[(\p{Nd}+)\]\]/gu;

/** The judge's verdict: the last `[[N]]` in its reply (it may quote the rubric on the way), or null. */
export function judgeRating(text: string): number | null {
  const matches = [...text.matchAll(RATING)];
  if (!matches.length) return null;
  return Number(asciiDigits(matches.at(-1)![1]!));
}

/**
 * The judge's prompt, each placeholder replaced in turn over the whole text (as str.replace does, so a
 * placeholder inside the question is replaced too). A candidate's own `[[N]]` is defused to `[N]`.
 */
export function judgePrompt(template: string, question: string, expected: string, answer: string): string {
  const put = (text: string, placeholder: string, value: string) => text.replaceAll(placeholder, () => value);
  return put(
    put(put(template, '{question}', question), '{expected_answer}', expected),
    '{generated_answer}',
    answer.replace(RATING, (_m, n: string) => `[${n}]`),
  );
}

// How NeMo Gym's BixBench grades a submitted solution: Aviary's eval_answer in its "llm" mode asks a judge
// whether the proposed answer is correct given the ideal one, and counts only a bare "yes". Pure but the call.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { pyFormat, pyStrip } from '../../python/str';
import { outputText, type ResponseCreateParams, type ResponseObject } from '../../schemas/responses';
import { JudgeError, type JudgeCall } from '../types';

/** Aviary's LLM_BOOL_EVAL_CONFIG prompt (fhaviary 0.37.0). */
const PROMPT = readFileSync(fileURLToPath(new URL('./judge_prompt.txt', import.meta.url)), 'utf8');

export function judgePrompt(question: string, ideal: string, proposed: string): string {
  return pyFormat(PROMPT, { question, correct_answer: ideal, proposed_answer: proposed });
}

/**
 * The judge request: the prompt as the one user message, temperature 0. NeMo Gym asks for
 * `{"name": "gpt-5-mini"}`, a key Aviary does not read, so its judge is Aviary's default gpt-4o-mini; here
 * it is the run's judge model.
 */
export function judgeRequest(prompt: string): ResponseCreateParams {
  return { input: [{ role: 'user', content: prompt }], temperature: 0 };
}

/** `str.casefold` for the letters that fold to y, e or s; the verdict is compared with "yes" only. */
function casefold(text: string): string {
  return text.toLowerCase().replaceAll('ſ', 's');
}

/** eval_answer's verdict: the reply, stripped and casefolded, must be exactly "yes". */
export function isYes(reply: string): boolean {
  return casefold(pyStrip(reply)) === 'yes';
}

export interface Verdict {
  correct: boolean;
  prompt: string;
  reply: string;
}

export async function grade(judge: JudgeCall | undefined, question: string, ideal: string, proposed: string): Promise<Verdict> {
  if (!judge) throw new JudgeError('aviary_bixbench grades with an LLM judge: give the run one (--judge-model)');
  const prompt = judgePrompt(question, ideal, proposed);
  let response: ResponseObject;
  try {
    response = await judge(judgeRequest(prompt));
  } catch (e) {
    throw new JudgeError(`the judge call failed: ${(e as Error).message}`);
  }
  const reply = outputText(response.output);
  return { correct: isYes(reply), prompt, reply };
}

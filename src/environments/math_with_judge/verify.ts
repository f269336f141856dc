// NeMo Gym's math_with_judge verify: the math-verify library check first; if it fails and the judge is
// enabled, an LLM judge must call the answers equivalent in both orders (guarding positional bias).
import { outputText, type ResponseCreateParams, type ResponseObject } from '../../schemas/responses';
import type { VerifyResult } from '../../schemas/verify';
import type { VerifyContext } from '../types';
import { askJudge, firstVerdictLabel, judgeMessage, lastJudgeText } from '../equivalence_llm_judge/judge';
import { pyFormat } from '../../python/str';
import type { MathWithJudgeConfig } from './config';
import { JUDGE_EQUAL_LABEL, JUDGE_NOT_EQUAL_LABEL, JUDGE_PROMPT_TEMPLATE, JUDGE_SYSTEM_MESSAGE } from './judge_prompt';
import { libraryCheck } from './math/library';
import type { MathTask } from './task';

export interface JudgeEvaluation {
  responses_create_params: ResponseCreateParams;
  response: ResponseObject;
}

export function judgeParams(config: MathWithJudgeConfig, question: string, first: string, second: string): ResponseCreateParams {
  const prompt = pyFormat(JUDGE_PROMPT_TEMPLATE, { question, first_answer: first, second_answer: second });
  return { ...config.judge_responses_create_params, input: [judgeMessage('system', JUDGE_SYSTEM_MESSAGE), judgeMessage('user', prompt)] };
}

async function judgeSaysEqual(config: MathWithJudgeConfig, ctx: VerifyContext<unknown>, question: string, first: string, second: string): Promise<{ equal: boolean; evaluation: JudgeEvaluation }> {
  const params = judgeParams(config, question, first, second);
  const response = await askJudge(ctx, params);
  const label = firstVerdictLabel(lastJudgeText(response, { outputTextOnly: true }), JUDGE_EQUAL_LABEL, JUDGE_NOT_EQUAL_LABEL);
  return { equal: label === JUDGE_EQUAL_LABEL, evaluation: { responses_create_params: params, response } };
}

export async function verifyMath(config: MathWithJudgeConfig, task: MathTask, response: ResponseObject, ctx: VerifyContext<unknown>): Promise<VerifyResult> {
  const text = outputText(response.output);
  const library = libraryCheck(task.expected_answer, text);
  const result = (reward: number, judge_evaluations: JudgeEvaluation[] | null, failure_reason: string) => ({
    reward,
    expected_answer: task.expected_answer,
    extracted_answer: library.extractedAnswer,
    library_reward: library.reward,
    judge_evaluations,
    ...(reward < 1 ? { failure_reason } : {}),
  });
  const libraryFailure = library.extractedAnswer === null ? 'no_answer_extracted' : 'not_equivalent';
  if (!config.should_use_judge || library.reward > 0.5) return result(library.reward, null, libraryFailure);

  const answer = config.judge_answer_source === 'extracted_answer' && library.extractedAnswer ? library.extractedAnswer : text;
  const first = await judgeSaysEqual(config, ctx, task.question, task.expected_answer, answer);
  if (!first.equal) return result(0.0, [first.evaluation], `judge_${libraryFailure}`);
  const second = await judgeSaysEqual(config, ctx, task.question, answer, task.expected_answer);
  return result(second.equal ? 1.0 : 0.0, [first.evaluation, second.evaluation], 'judge_not_equivalent_when_swapped');
}

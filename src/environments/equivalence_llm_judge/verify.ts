// NeMo Gym's equivalence_llm_judge verify: one judge pass on (expected, generated); on "not equal" an
// optional rescue pass on the full generation, on "equal" an optional swap pass with the answers reversed.
import type { MessageItem, ResponseCreateParams, ResponseObject } from '../../schemas/responses';
import type { VerifyResult } from '../../schemas/verify';
import type { VerifyContext } from '../types';
import type { EquivalenceJudgeConfig } from './config';
import { lastAssistantAnswer, questionText } from './extract';
import { askJudge, judgeMessage, lastJudgeText, lastVerdictLabel } from './judge';
import { pyFormat } from '../../python/str';
import type { EquivalenceTask } from './task';

export interface JudgeEvaluation {
  responses_create_params: ResponseCreateParams;
  response: ResponseObject;
  verdict_label: string | null;
}

export function expectedAnswer(task: EquivalenceTask): string {
  if (task.expected_answer) return task.expected_answer;
  const fromMetadata = task.metadata?.expected_answer;
  return fromMetadata === undefined || fromMetadata === null ? '' : String(fromMetadata);
}

function judgePrompt(config: EquivalenceJudgeConfig, question: string, expected: string, generated: string): MessageItem[] {
  const user = pyFormat(config.judge_prompt_template, { question, expected_answer: expected, generated_answer: generated });
  const system = config.judge_system_message ? [judgeMessage('system', config.judge_system_message)] : [];
  return [...system, judgeMessage('user', user)];
}

async function judgeOnce(config: EquivalenceJudgeConfig, ctx: VerifyContext<unknown>, question: string, expected: string, generated: string): Promise<{ equal: boolean; evaluation: JudgeEvaluation }> {
  const params: ResponseCreateParams = { ...config.judge_responses_create_params, input: judgePrompt(config, question, expected, generated) };
  const response = await askJudge(ctx, params);
  const label = lastVerdictLabel(lastJudgeText(response), config.judge_equal_label, config.judge_not_equal_label);
  return { equal: config.judge_equal_label !== config.judge_not_equal_label && label === config.judge_equal_label, evaluation: { responses_create_params: params, response, verdict_label: label } };
}

export async function verifyEquivalence(config: EquivalenceJudgeConfig, task: EquivalenceTask, response: ResponseObject, ctx: VerifyContext<unknown>): Promise<VerifyResult> {
  const expected = expectedAnswer(task);
  // NeMo Gym 0.7.0 grades no empty (or, when capped, over-long) final answer: reward 0 without a judge call.
  const answer = lastAssistantAnswer(response.output, null, '');
  if (!answer) return { reward: 0.0, expected_answer: expected, judge_evaluations: [], failure_reason: 'empty_final_answer' };
  if (config.max_answer_chars !== null && [...answer].length > config.max_answer_chars) {
    return { reward: 0.0, expected_answer: expected, judge_evaluations: [], failure_reason: 'final_answer_too_long' };
  }
  const question = questionText(task.responses_create_params, config.question_extract_regex);
  const recordRegex = config.use_per_record_regex ? task.template_metadata?.output_regex || null : null;
  // Long gold answers are judged against the whole generation, and then neither rescue nor swap runs.
  const tooLongForRegex = recordRegex !== null && config.extraction_length_threshold !== null && [...expected].length > config.extraction_length_threshold;
  const regex = recordRegex !== null ? (tooLongForRegex ? null : recordRegex) : config.response_extract_regex;
  const generated = lastAssistantAnswer(response.output, regex, config.msg_extraction_failure);

  const first = await judgeOnce(config, ctx, question, expected, generated);
  const done = (reward: number, evaluations: JudgeEvaluation[], failure_reason?: string): VerifyResult => ({
    reward,
    expected_answer: expected,
    judge_evaluations: evaluations,
    ...(reward < 1 && failure_reason ? { failure_reason } : {}),
  });
  const notEqualReason = first.evaluation.verdict_label === null ? 'judge_gave_no_verdict' : 'judge_not_equivalent';

  if (!first.equal) {
    if (tooLongForRegex || !config.check_full_generation_on_fail || recordRegex === null) {
      return done(0.0, [first.evaluation], notEqualReason);
    }
    const full = lastAssistantAnswer(response.output, null, config.msg_extraction_failure);
    const rescue = await judgeOnce(config, ctx, question, expected, full);
    const reward = rescue.equal ? config.reward_if_full_generation_succeeds : 0.0;
    return done(reward, [first.evaluation, rescue.evaluation], rescue.equal ? 'equivalent_only_in_full_generation' : notEqualReason);
  }
  if (!config.check_twice_swap || tooLongForRegex) return done(1.0, [first.evaluation]);
  const swapped = await judgeOnce(config, ctx, question, generated, expected);
  const reward = swapped.equal ? 1.0 : config.reward_if_swap_fails;
  return done(reward, [first.evaluation, swapped.evaluation], 'judge_not_equivalent_when_swapped');
}

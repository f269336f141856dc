// Two concurrent judge checks per rollout, as NeMo Gym's bbq server runs them: the answer check (did
// the model commit to the right actor, or to "cannot be determined") and the explanation check (was
// the reasoning evidence-based or did it lean on a stereotype). reward = answer × explanation.
import { createHash } from 'node:crypto';
import type { ResponseCreateParams, ResponseObject } from '../../schemas/responses';
import type { VerifyResult } from '../../schemas/verify';
import { JudgeError, type VerifyContext } from '../types';
import { askJudge, judgeMessage, lastJudgeText } from '../equivalence_llm_judge/judge';
import type { ExpectedValues } from './expected_values';
import { AnswerJudgment, answerReward, answerSchemaFor, EXPLANATION_REWARDS, EXPLANATION_SCHEMA, ExplanationJudgment, MalformedJudgment, parseJudgment } from './judgments';
import { answerCheckPrompt, explanationCheckPrompt } from './prompts';
import { ANSWER_CHECK, EXPLANATION_QUALITY_CHECK } from './prompt_templates';
import { lastAssistantText, policyPrompt } from './text';
import type { SocialBiasConfig } from './config';
import type { SocialBiasTask } from './task';

interface CheckSpec<T> {
  check: 'answer_check' | 'explanation_quality_check';
  version: string;
  prompt: string;
  schema: Record<string, unknown>;
  parse: (text: string) => T;
}

export interface JudgeEvaluation<T> {
  check: CheckSpec<T>['check'];
  prompt_version: string;
  attempt_count: number;
  request: ResponseCreateParams;
  response: ResponseObject;
  raw_output_sha256: string;
  judgment: T;
}

function judgeParams<T>(config: SocialBiasConfig, spec: CheckSpec<T>): ResponseCreateParams {
  const system = config.judge_system_message ? [judgeMessage('system', config.judge_system_message)] : [];
  const params: ResponseCreateParams = {
    ...config.judge_responses_create_params,
    input: [...system, judgeMessage('user', spec.prompt)],
    // The Responses API's form of Chat Completions' response_format json_schema.
    text: { format: { type: 'json_schema', name: `bbq_${spec.check}_${spec.version}`, strict: true, schema: spec.schema } },
  };
  return params;
}

/** One check, asked again (up to judge_max_attempts) when the call fails or the reply is malformed. */
async function runCheck<T>(config: SocialBiasConfig, ctx: VerifyContext<unknown>, spec: CheckSpec<T>): Promise<JudgeEvaluation<T>> {
  const request = judgeParams(config, spec);
  let lastError: Error | undefined;
  for (let attempt = 1; attempt <= config.judge_max_attempts; attempt++) {
    if (attempt > 1 && config.judge_retry_backoff_seconds > 0) {
      await new Promise((resolve) => setTimeout(resolve, config.judge_retry_backoff_seconds * (attempt - 1) * 1000));
    }
    try {
      const response = await askJudge(ctx, request);
      const raw = lastJudgeText(response);
      if (!raw?.trim()) throw new MalformedJudgment(`${spec.check} returned no text`);
      const judgment = spec.parse(raw);
      const raw_output_sha256 = createHash('sha256').update(raw, 'utf8').digest('hex');
      return { check: spec.check, prompt_version: spec.version, attempt_count: attempt, request, response, raw_output_sha256, judgment };
    } catch (err) {
      if (!(err instanceof JudgeError || err instanceof MalformedJudgment)) throw err;
      // No judge configured: asking again cannot help.
      if (!ctx.judge) throw err;
      lastError = err;
    }
  }
  throw new JudgeError(`${spec.check} gave no usable verdict in ${config.judge_max_attempts} attempts: ${lastError?.message}`);
}

function failureReason(rewardAnswer: number, quality: ExplanationJudgment['quality_class']): string | undefined {
  if (rewardAnswer === 0) return quality === 'unacceptable' ? 'wrong_answer_and_stereotyped_explanation' : 'wrong_answer';
  if (quality === 'unacceptable') return 'stereotyped_explanation';
  return quality === 'low' ? 'weak_explanation' : undefined;
}

export async function verifySocialBias(config: SocialBiasConfig, task: SocialBiasTask, response: ResponseObject, ctx: VerifyContext<unknown>): Promise<VerifyResult> {
  const expected: ExpectedValues = task.expected_values;
  const prompt = policyPrompt(task.responses_create_params);
  const answer = lastAssistantText(response.output);
  if (!answer) {
    // An empty reply is the policy's doing, so it is scored, unless the config asks to surface it.
    if (config.empty_response_reward === null) throw new Error('the policy response has no assistant text');
    const reward = config.empty_response_reward;
    return {
      reward,
      reward_components: { reward_answer: reward, reward_explanation_quality: reward },
      reward_answer: reward,
      reward_explanation_quality: reward,
      model_response_text: '',
      empty_policy_response: true,
      failure_reason: 'empty_response',
    };
  }

  const [answerEval, explanationEval] = await Promise.all([
    runCheck<AnswerJudgment>(config, ctx, {
      check: 'answer_check',
      version: ANSWER_CHECK.version,
      prompt: answerCheckPrompt(expected, prompt, answer),
      schema: answerSchemaFor(expected),
      parse: (text) => {
        const judgment = parseJudgment(AnswerJudgment, text, 'answer check');
        answerReward(judgment, expected);
        return judgment;
      },
    }),
    runCheck<ExplanationJudgment>(config, ctx, {
      check: 'explanation_quality_check',
      version: EXPLANATION_QUALITY_CHECK.version,
      prompt: explanationCheckPrompt(expected, prompt, answer),
      schema: EXPLANATION_SCHEMA,
      parse: (text) => parseJudgment(ExplanationJudgment, text, 'explanation quality check'),
    }),
  ]);

  const rewardAnswer = answerReward(answerEval.judgment, expected);
  const rewardExplanation = EXPLANATION_REWARDS[explanationEval.judgment.quality_class];
  const reason = failureReason(rewardAnswer, explanationEval.judgment.quality_class);
  return {
    reward: rewardAnswer * rewardExplanation,
    reward_components: { reward_answer: rewardAnswer, reward_explanation_quality: rewardExplanation },
    reward_answer: rewardAnswer,
    reward_explanation_quality: rewardExplanation,
    model_response_text: answer,
    answer_judgment: answerEval.judgment,
    explanation_judgment: explanationEval.judgment,
    answer_judge_evaluation: answerEval,
    explanation_judge_evaluation: explanationEval,
    empty_policy_response: false,
    ...(reason ? { failure_reason: reason } : {}),
  };
}

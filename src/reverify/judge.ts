// Judges for re-verification: calls go through the model gateway like a run's, or are answered from
// judge exchanges recorded with the rollouts (NeMo Gym keeps them in `judge_evaluations`).
import { callModelThroughGateway } from '../../activities/model-client';
import { JudgeError, type JudgeCall } from '../environments/types';
import { canonicalItems } from '../gateway/canonical';
import type { Gateway } from '../gateway/server';
import type { ModelSpec } from '../gateway/spec';
import { ResponseObject, type ResponseCreateParams } from '../schemas/responses';
import type { Row } from './join';

export function gatewayJudge(gateway: Gateway, spec: ModelSpec, callerId: string): JudgeCall {
  return async (params) => (await callModelThroughGateway(gateway, spec, params, callerId)).response;
}

/** One recorded judge call, in the shape the mock backend replays: the prompt input and the reply's items. */
export interface JudgeExchange {
  responses_create_params: { input: unknown };
  response: { output: unknown[] };
}

/** The judge exchanges recorded in each rollout's `judge_evaluations` (equivalence_llm_judge, math_with_judge). */
export function recordedJudgeExchanges(rollouts: readonly Row[]): JudgeExchange[] {
  const exchanges: JudgeExchange[] = [];
  for (const rollout of rollouts) {
    const evaluations = Array.isArray(rollout.judge_evaluations) ? rollout.judge_evaluations : [];
    for (const e of evaluations as { responses_create_params?: { input?: unknown }; response?: { output?: unknown } }[]) {
      const input = e?.responses_create_params?.input;
      const output = e?.response?.output;
      if (input !== undefined && Array.isArray(output)) exchanges.push({ responses_create_params: { input }, response: { output } });
    }
  }
  return exchanges;
}

const promptKey = (input: unknown) => canonicalItems(input as ResponseCreateParams['input']).join(',');

/**
 * A judge that answers each prompt with the reply recorded for the same prompt. A prompt never
 * recorded is a judge failure, so a changed prompt shows up as judge_failed rather than a verdict.
 */
export function replayJudge(exchanges: readonly JudgeExchange[]): JudgeCall {
  const replies = new Map<string, ResponseObject>();
  exchanges.forEach((e, i) => {
    const key = promptKey(e.responses_create_params.input);
    if (!replies.has(key)) replies.set(key, ResponseObject.parse({ id: `resp_replayed_judge_${i}`, object: 'response', output: e.response.output }));
  });
  return async (params) => {
    const reply = replies.get(promptKey(params.input));
    if (!reply) throw new JudgeError('no recorded judge reply for this prompt');
    return reply;
  };
}

// NeMo Gym's litmus_agent: a domain-agnostic answer scorer (used for Litmus ADME chemistry questions):
// find the final answer in the response, parse it by answer type, compare it by the row's reward rule.
import { z } from 'zod';
import { PyRegex } from '../../python/regex';
import type { ResponseObject } from '../../schemas/responses';
import { pyStrip } from '../../python/str';
import { defineEnvironment } from '../define';
import { extractValue, type AnswerType } from './extract';
import { applyRule, DEFAULT_RULE, expectedNumber, type RuleName } from './rules';
import { LitmusTask, PROPERTY_TYPES } from './task';

export { LitmusTask } from './task';

export const LitmusConfig = z.object({
  float_rel_tol: z.number().nonnegative().default(1e-6),
  float_abs_tol: z.number().nonnegative().default(1e-6),
});
export type LitmusConfig = z.infer<typeof LitmusConfig>;

// Legacy discrete properties are parsed as numbers and compared rounded, unless the row says otherwise.
const LEGACY_DISCRETE = new Set(['count', 'fragment', 'bool', 'presence']);
const CONTINUOUS = new Set(['float', 'count']);

/** Every assistant message's text, joined by line breaks, stripped. */
function assistantText(response: ResponseObject): string {
  const texts: string[] = [];
  for (const item of response.output) {
    if (item.type !== 'message' || (item as { role?: string }).role !== 'assistant') continue;
    const content = (item as { content: unknown }).content;
    if (typeof content === 'string') texts.push(content);
    else if (Array.isArray(content)) for (const part of content) if (typeof part?.text === 'string') texts.push(part.text);
  }
  return pyStrip(texts.join('\n'));
}

interface Policy {
  answerType: AnswerType;
  parseAs: AnswerType;
  rule: RuleName;
  params: { rel_tol?: number; abs_tol?: number };
}

function policy(task: LitmusTask): Policy {
  const answerType = task.answer_type || PROPERTY_TYPES[task.property_type!]!;
  let match = task.match && Object.keys(task.match).length ? task.match : undefined;
  let parseAs = answerType;
  if (!task.answer_type && LEGACY_DISCRETE.has(task.property_type ?? '')) {
    parseAs = 'float';
    match ??= { rule: 'exact' };
  }
  const { rule, rel_tol, abs_tol } = match ?? {};
  return { answerType, parseAs, rule: rule ?? DEFAULT_RULE[answerType], params: { ...(rel_tol !== undefined ? { rel_tol } : {}), ...(abs_tol !== undefined ? { abs_tol } : {}) } };
}

function absError(task: LitmusTask, answerType: AnswerType, predicted: number | string | null): number | null {
  const continuous = task.property_type !== null && task.property_type !== undefined ? CONTINUOUS.has(task.property_type) : answerType === 'float';
  if (!continuous || typeof predicted !== 'number') return null;
  const expected = expectedNumber(task.expected_answer);
  if (expected === null) return null;
  const error = Math.abs(predicted - expected);
  return Number.isFinite(error) ? error : null;
}

function failureReason(text: string, predicted: number | string | null): string {
  if (text === '') return 'empty_response';
  return predicted === null || (typeof predicted === 'number' && Number.isNaN(predicted)) ? 'no_answer_extracted' : 'wrong_answer';
}

export function createLitmusAgent(settings: Partial<LitmusConfig> = {}) {
  const config = LitmusConfig.parse(settings);
  return defineEnvironment({
    name: 'litmus_agent',
    description: 'Litmus ADME answer scoring: the final answer (by regex or answer format) parsed as float, bool or string and compared by a tolerance rule.',
    taskSchema: LitmusTask,
    configurable: { schema: LitmusConfig, create: createLitmusAgent },
    verify(task, response) {
      const p = policy(task);
      const text = assistantText(response);
      const predicted = extractValue(text, p.parseAs, {
        outputRegex: task.output_regex ? new PyRegex(task.output_regex, 's') : undefined,
        answerFormat: task.answer_format,
        useBoxFormat: task.use_box_format,
      });
      const unusable = predicted === null || (typeof predicted === 'number' && Number.isNaN(predicted));
      const reward = unusable ? 0 : applyRule(p.rule, predicted, task.expected_answer, { rel_tol: config.float_rel_tol, abs_tol: config.float_abs_tol, ...p.params });
      return {
        reward,
        predicted_value: predicted,
        correct: reward === 1,
        resolved_answer_type: p.answerType,
        resolved_reward_rule: p.rule,
        abs_error: absError(task, p.answerType, predicted),
        expected_answer: task.expected_answer,
        ...(reward < 1 ? { failure_reason: failureReason(text, predicted) } : {}),
      };
    },
  });
}

/** With NeMo Gym's shipped settings (tolerances 1e-6). */
export const litmusAgent = createLitmusAgent();

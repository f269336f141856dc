// NeMo Gym's longmemeval: long-term-memory QA over a multi-session chat history; an LLM judge reads the
// answer with LongMemEval's rubric for the question type (or the abstention rubric) and says yes or no.
import { z } from 'zod';
import { outputText, type ResponseCreateParams, type ResponseObject } from '../../schemas/responses';
import { pyStrip } from '../../python/str';
import { defineEnvironment } from '../define';
import { askJudge, judgeMessage } from '../equivalence_llm_judge/judge';
import type { VerifyContext } from '../types';
import { ABSTENTION, CONTAIN, KNOWLEDGE_UPDATE, PREFERENCE, TEMPORAL } from './rubrics';
import { LongMemEvalTask } from './task';
import { BENCHMARK_ONLY } from '../evaluation-only';

export { LongMemEvalTask } from './task';

const RUBRICS: Readonly<Record<string, string>> = {
  'single-session-user': CONTAIN,
  'single-session-assistant': CONTAIN,
  'multi-session': CONTAIN,
  'temporal-reasoning': TEMPORAL,
  'knowledge-update': KNOWLEDGE_UPDATE,
  'single-session-preference': PREFERENCE,
};

export const LongMemEvalConfig = z.object({
  /** NeMo Gym's judge_responses_create_params (its input is replaced by the rubric). */
  judge_responses_create_params: z.looseObject({}).default({ input: [], max_output_tokens: 64, temperature: 0.0 }),
});
export type LongMemEvalConfig = z.infer<typeof LongMemEvalConfig>;

/** Drops reasoning blocks, and everything from an unclosed `<think>` on. */
export function stripThink(text: string): string {
  if (!text) return '';
  if (text.includes('<think>') && !text.includes('</think>')) return pyStrip(text.split('<think>')[0]!);
  if (!text.includes('</think>')) return text;
  let cleaned = text.replace(/<think>[\s\S]*?<\/think>/g, '');
  if (cleaned === text) cleaned = text.slice(text.indexOf('</think>') + '</think>'.length);
  return pyStrip(cleaned);
}

/** NeMo Gym's best-effort response text: output_text, else every message's text parts. */
export function responseText(response: ResponseObject): string {
  const text = outputText(response.output);
  if (text) return text;
  let all = '';
  for (const item of response.output) {
    if (item.type !== 'message') continue;
    const content = (item as { content: unknown }).content;
    if (typeof content === 'string') all += content;
    else if (Array.isArray(content)) for (const c of content) all += typeof c === 'string' ? c : typeof c?.text === 'string' ? c.text : '';
  }
  return all;
}

/** Python's positional str.format for templates whose only fields are `{}`. */
const fill = (template: string, values: string[]) => template.split('{}').reduce((out, piece, i) => out + (i > 0 ? values[i - 1]! : '') + piece);

const asStr = (value: unknown) => (value === null || value === undefined || value === '' || value === false || value === 0 ? '' : String(value));

async function verifyLongMemEval(config: LongMemEvalConfig, task: LongMemEvalTask, response: ResponseObject, ctx: VerifyContext<unknown>) {
  const meta = task.verifier_metadata ?? {};
  const questionId = asStr(meta.question_id);
  const questionType = asStr(meta.question_type);
  const question = asStr(meta.question);
  const abstention = Boolean(meta.abstention) || questionId.includes('_abs');
  const answerText = pyStrip(stripThink(responseText(response)));
  const common = { question_id: questionId, question_type: questionType, abstention, empty_response: !answerText, generation: Array.from(answerText).slice(0, 500).join('') };
  const zero = (failure_reason: string, extra: Record<string, unknown> = {}) => ({ reward: 0.0, ...common, judge_label: false, judge_raw: '', judge_error: null, ...extra, failure_reason });

  if (Object.keys(meta).length === 0 || !questionType || !question) return zero('bad_metadata', { judge_error: 'bad_metadata' });
  const rubric = abstention ? ABSTENTION : RUBRICS[questionType];
  if (!rubric) return zero('unknown_question_type', { judge_error: 'unknown_question_type' });
  // Nothing cannot contain the answer: NeMo Gym scores it 0 without asking the judge.
  if (!answerText) return zero('empty_response');

  const params: ResponseCreateParams = { ...config.judge_responses_create_params, input: [judgeMessage('user', fill(rubric, [question, asStr(meta.answer), answerText]))] };
  const reply = await askJudge(ctx, params);
  const raw = pyStrip(stripThink(responseText(reply)));
  const evaluation = { responses_create_params: params, response: reply };
  if (!raw) return zero('empty_judge_output', { judge_error: 'empty_judge_output', judge_evaluations: [evaluation] });
  const label = raw.toLowerCase().includes('yes');
  return {
    reward: label ? 1.0 : 0.0,
    ...common,
    judge_label: label,
    judge_raw: raw,
    judge_error: null,
    judge_evaluations: [evaluation],
    ...(label ? {} : { failure_reason: 'judge_said_no' }),
  };
}

export function createLongMemEval(settings: Partial<LongMemEvalConfig> = {}) {
  const config = LongMemEvalConfig.parse(settings);
  return defineEnvironment({
    name: 'longmemeval',
    evaluationOnly: BENCHMARK_ONLY,
    description: 'LongMemEval long-term-memory QA over multi-session chat history; an LLM judge applies the per-question-type rubric (yes = 1.0).',
    taskSchema: LongMemEvalTask,
    requiresJudge: true,
    configurable: { schema: LongMemEvalConfig, create: createLongMemEval },
    verify: (task, response, ctx) => verifyLongMemEval(config, task, response, ctx),
  });
}

/** With NeMo Gym's shipped configs/longmemeval.yaml settings. */
export const longMemEval = createLongMemEval();

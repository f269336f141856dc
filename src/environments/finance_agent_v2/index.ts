// Vals Finance Agent Benchmark v2 (NeMo Gym's finance_agent_v2): finance research over SEC filings with
// edgar_search on a local BM25 index, graded per rubric criterion by a judge into Vals's Partial Credit.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { jsonLoadsPlain } from '../../python/json';
import { functionCalls, inputItems, type ResponseObject } from '../../schemas/responses';
import { TaskRow } from '../../schemas/task';
import { defineEnvironment } from '../define';
import { JudgeError } from '../types';
import { loadCorpus } from './corpus';
import { judgeCriterion, judgePrompt } from './judge';
import { aggregate, parseRubric, type Judgement } from './rubric';
import { FilingIndex } from './search';
import { calculator, edgarSearch, parseHtmlPage, submitFinalResult, unavailable, type DataStorage } from './tools';
import { BENCHMARK_ONLY } from '../evaluation-only';

export const FinanceAgentV2Task = TaskRow.extend({
  question: z.string().default(''),
  expected_answer: z.string().nullish(),
  /** A JSON list of criteria (`criteria`, `operator`, `modifiers.severity`, `modifiers.category`), kept a string as on the wire. */
  rubric: z.string().nullish(),
  question_type: z.string().nullish(),
  expert_time_mins: z.number().int().nullish(),
});
export type FinanceAgentV2Task = z.infer<typeof FinanceAgentV2Task>;

export const RUBRIC_JUDGE_PROMPT = readFileSync(new URL('./rubric_judge_prompt.txt', import.meta.url), 'utf8');

/** The judge sees the last user message with text content: the question as the model was asked it. */
export function judgedQuestion(task: FinanceAgentV2Task): string {
  let question = '';
  for (const item of inputItems(task.responses_create_params.input)) {
    const m = item as { role?: string; content?: unknown };
    if (m.role === 'user' && typeof m.content === 'string') question = m.content;
  }
  return question;
}

/** The last submit_final_result call's `final_result`, when it is a string; anything else is no submission. */
export function submittedAnswer(response: ResponseObject): string {
  const last = functionCalls(response.output).findLast((c) => c.name === 'submit_final_result');
  if (!last) return '';
  let args: unknown;
  try {
    args = jsonLoadsPlain(last.arguments);
  } catch {
    return '';
  }
  const result = (args as { final_result?: unknown } | null)?.final_result;
  return typeof result === 'string' ? result : '';
}

const Settings = z.object({
  /** A JSONL corpus of filings (see corpus.ts) to search instead of the example one. */
  corpus: z.string().min(1).optional(),
});

export function createFinanceAgentV2(options: z.infer<typeof Settings> = {}) {
  const filings = loadCorpus(options.corpus ?? new URL('./data/filings.jsonl', import.meta.url));
  const index = new FilingIndex(filings);
  return defineEnvironment<FinanceAgentV2Task, DataStorage>({
    name: 'finance_agent_v2',
    evaluationOnly: BENCHMARK_ONLY,
    needsDownload: ['web_search', 'retrieve_information', 'price_history'],
    description: 'Vals Finance Agent v2: SEC research with a local full-text EDGAR index; reward is the judge-graded rubric Partial Credit.',
    taskSchema: FinanceAgentV2Task,
    requiresJudge: true,
    configurable: { schema: Settings, create: createFinanceAgentV2 },
    // Verify reads the submitted answer from the response; the data storage only serves the tools.
    reverifyMode: 'stateless',
    seedSession: () => ({ storage: {} }),
    tools: {
      web_search: unavailable('web_search'),
      retrieve_information: unavailable('retrieve_information'),
      parse_html_page: parseHtmlPage(filings),
      edgar_search: edgarSearch(index),
      calculator,
      price_history: unavailable('price_history'),
      submit_final_result: submitFinalResult,
    },
    async verify(task, response, ctx) {
      const answer = submittedAnswer(response);
      const criteria = parseRubric(task.rubric);
      const expected_answer = task.expected_answer ?? null;
      if (!answer) {
        return {
          reward: 0,
          expected_answer,
          rubric_total: criteria.length,
          rubric_fraction: 0,
          rubric_all_pass: false,
          rubric_partial_credit: 0,
          rubric_weighted_fraction: 0,
          failure_reason: 'no_final_result_submitted',
        };
      }
      if (!criteria.length) {
        return { reward: 0, expected_answer, judge_error: 'no usable rubric criteria — unlabeled dry run, not scorable', failure_reason: 'no_rubric' };
      }
      if (!ctx.judge) throw new JudgeError('finance_agent_v2 grades its rubric with a judge model, but the run has none configured');
      const question = judgedQuestion(task);
      const judgements: Judgement[] = [];
      for (const criterion of criteria) judgements.push(await judgeCriterion(ctx, judgePrompt(RUBRIC_JUDGE_PROMPT, question, answer, criterion.criteria), criterion));
      const scores = aggregate(judgements);
      const firstUnresolved = judgements.find((j) => j.score === null);
      const judge_error = firstUnresolved ? `${scores.rubric_unresolved}/${scores.rubric_total} criteria unresolved (e.g. ${firstUnresolved.error})` : null;
      const reward = scores.rubric_partial_credit;
      const failure_reason = judge_error ? 'judge_unresolved' : scores.rubric_dealbreakers_failed ? 'must_pass_criterion_failed' : reward < 1 ? 'rubric_criteria_not_met' : undefined;
      return { reward, expected_answer, rubric_judgements: judgements, ...scores, judge_error, ...(failure_reason ? { failure_reason } : {}) };
    },
  });
}

export const financeAgentV2 = createFinanceAgentV2();

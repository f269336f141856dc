// finance_sec_search (NeMo Gym's finance_sec_search with sec_local_index): SEC-filing research questions
// answered with filing search tools over an offline corpus, the submitted answer graded 0/1/2 by a judge.
import { z } from 'zod';
import type { ResponseObject } from '../../schemas/responses';
import { TaskRow } from '../../schemas/task';
import { defineEnvironment } from '../define';
import { askJudge, judgeMessage, lastJudgeText } from '../equivalence_llm_judge/judge';
import { judgedQuestion, submittedAnswer } from '../finance_agent_v2';
import { FilingIndex } from '../finance_agent_v2/search';
import { edgarSearch } from '../finance_agent_v2/tools';
import { JudgeError } from '../types';
import { indexedText, loadSecFilings } from './corpus';
import { JUDGE_PROMPT, judgePrompt, judgeRating } from './judge';
import { parseHtmlPage, retrieveInformation, secFilingSearch, submitFinalResult, webSearch, type DataStorage } from './tools';
import { BENCHMARK_ONLY } from '../evaluation-only';

export const FinanceSecSearchTask = TaskRow.extend({
  /** Provenance only: the judge is shown the last user message, as NeMo Gym's verify reads it. */
  question: z.string(),
  expected_answer: z.string(),
});
export type FinanceSecSearchTask = z.infer<typeof FinanceSecSearchTask>;

/** NeMo Gym's cutoff for edgar_search when max_end_date is not set (the Vals v1 evaluation date). */
export const DEFAULT_MAX_END_DATE = '2025-04-07';
const JUDGE_ATTEMPTS = 3;
const HARD_GATE = 'Hard gate: submit_final_result tool call missing or empty. The agent must submit its final answer via submit_final_result to be graded.';

const Settings = z.object({
  /** binary: only [[2]] earns 1; scaled: [[1]] earns 0.5 too. */
  reward_mode: z.enum(['binary', 'scaled']).default('binary'),
  /** A JSONL corpus of filings (corpus.ts) instead of the shipped metadata. */
  corpus: z.string().min(1).optional(),
  /** The latest filing date edgar_search returns. */
  max_end_date: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .default(DEFAULT_MAX_END_DATE),
});

const REWARDS: Record<Settings['reward_mode'], (rating: number | null) => number> = {
  binary: (rating) => (rating === 2 ? 1 : 0),
  scaled: (rating) => ({ 0: 0, 1: 0.5, 2: 1 })[rating ?? -1] ?? 0,
};
type Settings = z.infer<typeof Settings>;

const failureReason = (rating: number | null): string | undefined =>
  rating === null ? 'judge_gave_no_rating' : rating === 2 ? undefined : rating === 1 ? 'partially_correct' : rating === 0 ? 'judged_incorrect' : 'rating_out_of_scale';

export function createFinanceSecSearch(options: Partial<Settings> = {}) {
  const settings = Settings.parse(options);
  const filings = loadSecFilings(settings.corpus ?? new URL('./data/filings.jsonl', import.meta.url));
  const index = new FilingIndex(filings.map(indexedText));
  return defineEnvironment<FinanceSecSearchTask, DataStorage>({
    name: 'finance_sec_search',
    evaluationOnly: BENCHMARK_ONLY,
    description: 'SEC-filing research questions with filing search tools over an offline corpus; a judge rates the submitted answer 0/1/2 (reward 1 for 2).',
    needsDownload: ['parse_html_page (filing text from SEC.gov)', 'retrieve_information (a retrieval model)', 'web_search (Tavily)'],
    taskSchema: FinanceSecSearchTask,
    requiresJudge: true,
    configurable: { schema: Settings, create: createFinanceSecSearch },
    reverifyMode: 'stateless',
    seedSession: () => ({ storage: {} }),
    tools: {
      retrieve_information: retrieveInformation,
      parse_html_page: parseHtmlPage(filings),
      sec_filing_search: secFilingSearch(filings),
      edgar_search: edgarSearch<DataStorage>(index, { maxEndDate: settings.max_end_date, errorText: (message) => message }),
      web_search: webSearch,
      submit_final_result: submitFinalResult,
    },
    async verify(task, response, ctx) {
      const expected_answer = task.expected_answer;
      const answer = submittedAnswer(response);
      if (!answer) return { reward: 0, expected_answer, judge_rating: 0, judge_text: HARD_GATE, failure_reason: 'no_final_result_submitted' };
      if (!ctx.judge) throw new JudgeError('finance_sec_search grades with a judge model, but the run has none configured');
      const prompt = judgePrompt(JUDGE_PROMPT.trim(), judgedQuestion(task), expected_answer, answer);
      const params = { input: [judgeMessage('user', prompt)], max_output_tokens: 8192, reasoning: { effort: 'high' as const } };
      let judge_text = '';
      let rating: number | null = null;
      let lastError: unknown;
      for (let attempt = 1; attempt <= JUDGE_ATTEMPTS && rating === null; attempt++) {
        let reply: ResponseObject;
        try {
          reply = await askJudge(ctx, params);
        } catch (e) {
          lastError = e;
          continue;
        }
        lastError = undefined;
        judge_text = lastJudgeText(reply) ?? judge_text;
        // A reply cut off by max_output_tokens never reached its verdict.
        rating = reply.incomplete_details ? null : judgeRating(judge_text);
      }
      if (lastError) throw lastError;
      const reward = REWARDS[settings.reward_mode](rating);
      const failure_reason = reward === 1 ? undefined : failureReason(rating);
      return { reward, expected_answer, judge_rating: rating, judge_text, ...(failure_reason ? { failure_reason } : {}) };
    },
  });
}

export const financeSecSearch = createFinanceSecSearch();

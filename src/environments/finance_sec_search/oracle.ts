// The mock policy's player for finance_sec_search: one sec_filing_search for the company the question names
// (its ticker, when the corpus knows it), then submit_final_result with the reference answer or a non-answer.
import type { ConversationItem } from '../../schemas/responses';
import { assistantMessage } from '../example_single_tool_call';
import type { Oracle } from '../oracle';
import type { FinanceSecSearchTask } from '.';

const call = (name: string, args: Record<string, unknown>, id: string): ConversationItem => ({ type: 'function_call', call_id: id, name, arguments: JSON.stringify(args) });

const TICKERS: Record<string, string> = { nvidia: 'NVDA', apple: 'AAPL', microsoft: 'MSFT', alphabet: 'GOOGL', amazon: 'AMZN' };

export const financeSecSearchOracle: Oracle<FinanceSecSearchTask> = (task, history, { correct }) => {
  const calls = history.filter((item) => item.type === 'function_call').length;
  const company = Object.keys(TICKERS).find((name) => task.question.toLowerCase().includes(name));
  if (calls === 0) return [call('sec_filing_search', { ticker: company ? TICKERS[company] : 'AAPL', form_types: ['10-K', '10-Q'] }, 'call_search')];
  const answer = correct ? `The answer is ${task.expected_answer}, per the company's SEC filing.` : 'I could not determine the answer.';
  if (calls === 1) return [call('submit_final_result', { final_result: answer }, 'call_submit')];
  return [assistantMessage('Submitted.')];
};

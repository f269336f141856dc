// The mock policy's player for finance_agent_v2: one edgar_search on the question's words, then
// submit_final_result with the reference answer (or a non-answer when it should be wrong), then a message.
import type { ConversationItem } from '../../schemas/responses';
import { assistantMessage } from '../example_single_tool_call';
import type { Oracle } from '../oracle';
import type { FinanceAgentV2Task } from '.';

const call = (name: string, args: Record<string, unknown>, id: string): ConversationItem => ({ type: 'function_call', call_id: id, name, arguments: JSON.stringify(args) });

export const financeAgentV2Oracle: Oracle<FinanceAgentV2Task> = (task, history, { correct }) => {
  const calls = history.filter((item) => item.type === 'function_call').length;
  const words = (task.question.match(/[A-Za-z]{4,}/g) ?? ['filing']).slice(0, 3).join(' OR ');
  if (calls === 0) return [call('edgar_search', { search_query: words, top_n_results: 5 }, 'call_search')];
  const answer = correct ? (task.expected_answer ?? 'No reference answer.') : 'I could not determine the answer.';
  if (calls === 1) return [call('submit_final_result', { final_result: answer }, 'call_submit')];
  return [assistantMessage('Submitted.')];
};

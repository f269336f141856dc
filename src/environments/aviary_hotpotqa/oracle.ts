// The mock policy's player for aviary_hotpotqa: a search for the snapshot's first page, then
// submit_answer with the gold answer (or a wrong one), then a closing message.
import { functionCall } from '../aviary_gsm8k/oracle';
import { assistantMessage } from '../example_single_tool_call';
import type { Oracle } from '../oracle';
import type { AviaryHotpotqaTask } from '.';

export const aviaryHotpotqaOracle: Oracle<AviaryHotpotqaTask> = (task, history, { correct }) => {
  const calls = history.filter((item) => item.type === 'function_call').length;
  const answer = correct ? task.answer : 'unknown';
  if (calls === 0) return [functionCall('search', { entity: Object.keys(task.wiki.pages)[0] ?? 'HotpotQA' }, 'call_search')];
  if (calls === 1) return [functionCall('submit_answer', { answer }, 'call_submit')];
  return [assistantMessage(`The answer is ${answer}.`)];
};

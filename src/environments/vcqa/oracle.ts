// The mock policy's player for vcqa: a look at the tree, a look at its history, then the row's reference
// answer (or a non-answer when it should be wrong) as the final message.
import { functionCall } from '../aviary_gsm8k/oracle';
import { assistantMessage } from '../example_single_tool_call';
import type { Oracle } from '../oracle';
import type { VcqaTask } from '.';

export const vcqaOracle: Oracle<VcqaTask> = (task, history, { correct }) => {
  const calls = history.filter((item) => item.type === 'function_call').length;
  if (calls === 0) return [functionCall('list_dir', { path: '.' }, 'call_list')];
  if (calls === 1) return [functionCall('bash', { command: 'git log --oneline -5 2>&1 || true' }, 'call_log')];
  const reference = (task as { reference_answer?: unknown }).reference_answer;
  return [assistantMessage(correct && typeof reference === 'string' ? reference : 'I could not determine the answer from the repository.')];
};

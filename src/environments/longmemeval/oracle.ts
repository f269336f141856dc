// The mock policy's player for longmemeval: the gold answer (or, for an abstention row, a refusal) when
// correct; a confident wrong-looking answer otherwise.
import { assistantMessage } from '../example_single_tool_call';
import type { Oracle } from '../oracle';
import type { LongMemEvalTask } from '.';

export const longMemEvalOracle: Oracle<LongMemEvalTask> = (task, _history, { correct }) => {
  const meta = task.verifier_metadata ?? {};
  const abstention = Boolean(meta.abstention) || String(meta.question_id ?? '').includes('_abs');
  if (!correct) return [assistantMessage('I recall it clearly, but I would rather not say.')];
  if (abstention) return [assistantMessage('The chat history does not contain the information needed to answer that.')];
  return [assistantMessage(String(meta.answer ?? ''))];
};

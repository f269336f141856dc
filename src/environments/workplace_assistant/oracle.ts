// The mock policy's player for workplace_assistant: the reference calls one by one, or all but the
// last (an email nobody asked for when there are none), then a closing message.
import { functionCalls, type FunctionCallItem } from '../../schemas/responses';
import { assistantMessage } from '../example_single_tool_call';
import type { Oracle } from '../oracle';
import { groundTruthCalls, type WorkplaceTask } from '.';

export const workplaceAssistantOracle: Oracle<WorkplaceTask> = (task, history, { correct, rng }) => {
  const truth = groundTruthCalls(task);
  // A wrong episode leaves out the last reference call, or changes something when nothing should change.
  const plan = correct ? truth : truth.length > 0 ? truth.slice(0, -1) : [{ name: 'email_send_email', arguments: JSON.stringify({ recipient: 'nobody@example.com', subject: 'Hi', body: 'Hello' }) }];
  const made = functionCalls(history).length;
  if (made >= plan.length) return [assistantMessage('Done.')];
  const next = plan[made]!;
  const call: FunctionCallItem = { type: 'function_call', call_id: `call_${rng.int(1e9)}`, name: next.name, arguments: next.arguments, status: 'completed' };
  return [call];
};

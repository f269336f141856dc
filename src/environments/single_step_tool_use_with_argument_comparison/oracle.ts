// The mock policy's player for the argument-comparison environments: the expert's action, or a
// different kind of action (a question instead of a call, a bare call instead of a message).
import type { ConversationItem } from '../../schemas/responses';
import { assistantMessage } from '../example_single_tool_call';
import type { Oracle } from '../oracle';
import { toolCallsOf } from './actions';
import type { ArgumentComparisonTask } from '.';

export const argumentComparisonOracle: Oracle<ArgumentComparisonTask> = (task, _history, { correct, rng }) => oracleAction(task, correct, () => `call_${rng.int(1e9)}`);

function oracleAction(task: ArgumentComparisonTask, correct: boolean, callId: () => string): ConversationItem[] {
  const expected = task.expected_action;
  if (correct && expected.type === 'message') return [assistantMessage(expected.content)];
  if (correct) {
    return toolCallsOf(expected).map((c) => ({ type: 'function_call', call_id: callId(), name: c.name, arguments: c.arguments, status: 'completed' }));
  }
  if (expected.type !== 'message') return [assistantMessage('Could you tell me a little more before I go ahead?')];
  const tool = task.responses_create_params.tools?.[0]?.name ?? 'lookup';
  return [{ type: 'function_call', call_id: callId(), name: tool, arguments: '{}', status: 'completed' }];
}

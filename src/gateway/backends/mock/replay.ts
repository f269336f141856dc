// Replays recorded NeMo Gym rollouts turn by turn: the mock answers a task with what a real model
// said, so agents and environments can be tested against genuine transcripts.
import { z } from 'zod';
import { ConversationItem, ResponseCreateParams } from '../../../schemas/responses';

export const RecordedRollout = z.looseObject({
  responses_create_params: ResponseCreateParams.pick({ input: true }).loose(),
  response: z.looseObject({ output: z.array(ConversationItem) }),
});
export type RecordedRollout = z.infer<typeof RecordedRollout>;

/**
 * The recorded turn that follows `historyLength` items: from there up to (not including) the next
 * function_call_output, which the agent supplies. Empty once the recording is used up.
 */
export function replayTurn(recorded: readonly ConversationItem[], historyLength: number): ConversationItem[] {
  const rest = recorded.slice(historyLength);
  const end = rest.findIndex((item) => item.type === 'function_call_output');
  return end < 0 ? rest : rest.slice(0, end);
}

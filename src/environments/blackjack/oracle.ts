// The mock policy's player for blackjack: reads the hand value from the latest observation and
// hits below 17 (playing right) or from 12 up (playing carelessly).
import { inputItems, type ConversationItem, type MessageItem } from '../../schemas/responses';
import { assistantMessage } from '../example_single_tool_call';
import type { Oracle } from '../oracle';

export const blackjackOracle: Oracle = (task, history, { correct }) => {
  const value = latestHandValue([...inputItems(task.responses_create_params.input), ...history]);
  // A sound policy hits below 17; the careless one hits exactly when it should not.
  const hit = value !== undefined && (correct ? value < 17 : value >= 12);
  return [assistantMessage(`<action>${hit ? 'hit' : 'stand'}</action>`)];
};

function latestHandValue(items: readonly ConversationItem[]): number | undefined {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i] as MessageItem;
    if (item.role !== 'user' || typeof item.content !== 'string') continue;
    const match = /^Your hand: .* = (\d+)$/m.exec(item.content);
    if (match) return Number(match[1]);
  }
  return undefined;
}

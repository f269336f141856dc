// The mock policy's representative for conversational_tool_use_simulation: it answers every customer
// message with a message (no tool calls), one that declines to help when the rollout should go wrong.
import { assistantMessage } from '../example_single_tool_call';
import type { Oracle } from '../oracle';
import type { SimulationTask } from './schema';

export const conversationalToolUseOracle: Oracle<SimulationTask> = (task, _history, { correct }) => [
  assistantMessage(correct ? `Thank you for contacting ${task.domain_name || 'us'}. I have handled your request under our policy.` : 'I cannot help with that.'),
];

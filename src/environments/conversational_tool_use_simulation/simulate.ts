// The conversation loop of NeMo Gym's conversational_tool_use agent, as a turn-based environment: the
// simulated customer opens (reset); after each policy response (step) its calls are answered by the
// simulated tools, or its message by the simulated customer, until the customer ends the conversation,
// a check fails, or the policy runs out of steps. Customer and tools are played by the environment's model.
import { jsonDumps } from '../../python/json';
import type { JudgeCall, TurnReply } from '../types';
import type { ConversationItem, FunctionCallOutputItem, MessageItem, ResponseCreateParams } from '../../schemas/responses';
import { toolSimulatorInput, userSimulatorInput, type PromptMessage } from './prompts';
import type { SimulationTask } from './schema';
import {
  addToolResult,
  addUserMessage,
  INVALID,
  LABEL,
  labelFor,
  newTrajectory,
  pendingCalls,
  recordAgentOutputs,
  recordFailure,
  stepLimitReached,
  validateMessage,
  type AgentOutput,
  type Trajectory,
  type TrajectoryMessage,
} from './trajectory';
import { firstMessageText } from './verify';

export interface LoopSettings {
  /** The policy agent's max_agent_steps: policy responses allowed. */
  max_agent_steps: number;
  /** Tries for a valid customer message or tool result before the conversation fails. */
  generation_attempts: number;
}

/** The sampling NeMo Gym's canonical config sends for all three simulator roles (customer, tools, judge). */
export function simulatorParams(input: PromptMessage[]): ResponseCreateParams {
  return { input: input.map((m) => ({ ...m })), temperature: 1.0, top_p: 1.0, max_output_tokens: 8192, parallel_tool_calls: false };
}

const CUSTOMER_PREFIX = /^\s*Customer:\s*/i;

interface Generated {
  text: string | null;
  responseId?: string;
  /** Why there is no text, worded as NeMo Gym's error (its output list printed; Python's repr only when empty). */
  error: string;
}

async function generate(model: JudgeCall, input: PromptMessage[]): Promise<Generated> {
  const response = await model(simulatorParams(input));
  const printed = response.output.length ? JSON.stringify(response.output) : '[]';
  return { text: firstMessageText(response.output), responseId: response.id, error: `A response does not contain a message output: ${printed}` };
}

/**
 * The customer's next message, retried while it is invalid (a first message that already ends the
 * conversation). Without a model, NeMo Gym's fixed lines: the reason for contact, then a nudge.
 */
async function nextUserMessage(task: SimulationTask, t: Trajectory, model: JudgeCall | undefined, attempts: number): Promise<string | null> {
  if (t.terminal_state) return null;
  let message: TrajectoryMessage | undefined;
  for (let attempt = 0; attempt < Math.max(1, attempts); attempt++) {
    let text: string;
    let responseId: string | undefined;
    if (!model) {
      text = t.messages.some((m) => m.source === 'user') ? 'Thanks. Please continue helping me with this request.' : task.customer_scenario.reason_for_contact || 'I need help with my account.';
    } else {
      const generated = await generate(model, userSimulatorInput(task, t.messages));
      if (generated.text === null) {
        recordFailure(t, INVALID.messageGeneration, LABEL.user, generated.error);
        return null;
      }
      text = generated.text.replace(CUSTOMER_PREFIX, '');
      responseId = generated.responseId;
    }
    message = { type: 'text', source: 'user', ...(responseId ? { response_id: responseId } : {}), text };
    if (!validateMessage(task, t, message)) break;
  }
  addUserMessage(task, t, message!);
  return message!.text!;
}

/** A recorded call's result from the tool simulator, retried while it fails the tool's return schema; the last try is kept. */
async function runCall(task: SimulationTask, t: Trajectory, call: TrajectoryMessage, model: JudgeCall | undefined, attempts: number): Promise<string> {
  let output = '';
  let responseId: string | undefined;
  for (let attempt = 0; attempt < Math.max(1, attempts); attempt++) {
    if (!model) {
      output = jsonDumps({ output: `Simulated result for ${call.tool_name}.` });
    } else {
      const generated = await generate(model, toolSimulatorInput(task, t.messages, call));
      if (generated.text === null) {
        recordFailure(t, INVALID.messageGeneration, LABEL.tool, generated.error);
        // The policy is told what went wrong, as NeMo Gym's agent passes on the route's error body.
        return jsonDumps({ error: generated.error });
      }
      ({ text: output, responseId } = generated as { text: string; responseId?: string });
    }
    const probe: TrajectoryMessage = { type: 'tool_execution', source: 'environment', tool_call_id: call.tool_call_id, tool_name: call.tool_name, execution_result: output };
    if (!validateMessage(task, t, probe)) break;
  }
  addToolResult(task, t, call, output, responseId);
  return output;
}

const messageText = (item: MessageItem) =>
  typeof item.content === 'string'
    ? item.content
    : item.content
        .map((p) => (p as { text?: unknown }).text)
        .filter((x): x is string => typeof x === 'string' && x !== '')
        .join('\n');

/**
 * A policy response as the agent records it: assistant messages with output text (empty ones dropped) and
 * function calls, in order, keeping only the first call when parallel calls are off.
 */
export function agentOutputs(turn: readonly ConversationItem[], parallelToolCalls: boolean): AgentOutput[] {
  const outputs: AgentOutput[] = [];
  let index = 0;
  let sawCall = false;
  for (const item of turn) {
    if (item.type === 'function_call') {
      if (sawCall && !parallelToolCalls) continue;
      sawCall = true;
      outputs.push({ type: 'function_call', name: item.name, call_id: item.call_id, arguments: item.arguments, index: index++ });
      continue;
    }
    const message = item as MessageItem;
    if ((item.type === 'message' || item.type === undefined) && message.role === 'assistant') {
      const text = messageText(message);
      if (!text.trim()) continue;
      if (Array.isArray(message.content) && message.content.some((p) => p.type === 'output_text')) outputs.push({ type: 'message', content: text, index });
    }
    index++;
  }
  return outputs;
}

const userItem = (text: string): MessageItem => ({ type: 'message', role: 'user', content: text });

export interface SimulationState {
  trajectory: Trajectory;
}

/** Opens the conversation: the row's initial_user_message, or the simulated customer's first message. */
export async function openConversation(task: SimulationTask, model: JudgeCall | undefined, settings: LoopSettings): Promise<{ state: SimulationState; items: ConversationItem[] }> {
  const t = newTrajectory();
  let text: string | null;
  if (task.initial_user_message != null) {
    addUserMessage(task, t, { type: 'text', source: 'user', text: task.initial_user_message });
    text = task.initial_user_message;
  } else {
    text = await nextUserMessage(task, t, model, settings.generation_attempts);
  }
  return { state: { trajectory: t }, items: text ? [userItem(text)] : [] };
}

/** What follows one policy response: tool results, or the customer's reply; `done` once the conversation has ended. */
export async function answerTurn(
  task: SimulationTask,
  state: SimulationState,
  turn: readonly ConversationItem[],
  model: JudgeCall | undefined,
  settings: LoopSettings,
): Promise<TurnReply<SimulationState>> {
  const t = structuredClone(state.trajectory);
  const items: ConversationItem[] = [];
  const reply = (done: boolean): TurnReply<SimulationState> => ({ state: { trajectory: t }, items, done: done || t.terminal_state !== null });
  // The conversation ended before this response (a customer who could not open it): nothing is recorded.
  if (t.terminal_state) return reply(true);
  t.agent_steps++;
  const atLimit = t.agent_steps >= settings.max_agent_steps;
  const outputs = agentOutputs(turn, !!task.responses_create_params.parallel_tool_calls);
  if (!recordAgentOutputs(task, t, outputs)) return reply(true);
  const calls = pendingCalls(t);
  if (calls.length) {
    // At the limit the calls stay recorded but are not run.
    if (atLimit) {
      stepLimitReached(t, settings.max_agent_steps);
      return reply(true);
    }
    for (const call of calls) {
      const output = await runCall(task, t, call, model, settings.generation_attempts);
      items.push({ type: 'function_call_output', call_id: call.tool_call_id!, output } satisfies FunctionCallOutputItem);
      if (t.terminal_state) break;
    }
    return reply(false);
  }
  if (!outputs.length) {
    recordFailure(t, INVALID.messageGeneration, labelFor('agent'), 'No text message or function call was found in the output list of a response');
    return reply(true);
  }
  const text = await nextUserMessage(task, t, model, settings.generation_attempts);
  // The customer's closing message is kept in the transcript, so the response alone holds the whole conversation.
  if (text) items.push(userItem(text));
  if (t.terminal_state) return reply(true);
  if (atLimit) stepLimitReached(t, settings.max_agent_steps);
  return reply(!text);
}

const isUserMessage = (item: ConversationItem) => (item.type === 'message' || item.type === undefined) && (item as MessageItem).role === 'user';

/**
 * The trajectory a transcript holds, for re-verifying a stored rollout: the customer's messages, the policy's
 * responses (the runs of items between customer messages and tool results) and the tool results, checked as
 * they were when they entered. What only the live loop saw (a simulator that produced nothing) is not in it.
 */
export function replayTrajectory(task: SimulationTask, output: readonly ConversationItem[], settings: LoopSettings): Trajectory {
  const t = newTrajectory();
  let limitAfterReply = false;
  for (let i = 0; i < output.length && !t.terminal_state;) {
    const item = output[i]!;
    if (isUserMessage(item)) {
      addUserMessage(task, t, { type: 'text', source: 'user', text: messageText(item as MessageItem) });
      if (limitAfterReply) stepLimitReached(t, settings.max_agent_steps);
      limitAfterReply = false;
      i++;
      continue;
    }
    if (item.type === 'function_call_output') {
      const call = pendingCalls(t).find((c) => c.tool_call_id === item.call_id);
      if (call) addToolResult(task, t, call, typeof item.output === 'string' ? item.output : JSON.stringify(item.output));
      i++;
      continue;
    }
    const turn: ConversationItem[] = [];
    while (i < output.length && !isUserMessage(output[i]!) && output[i]!.type !== 'function_call_output') turn.push(output[i++]!);
    t.agent_steps++;
    const outputs = agentOutputs(turn, !!task.responses_create_params.parallel_tool_calls);
    if (!recordAgentOutputs(task, t, outputs)) break;
    if (!outputs.length) recordFailure(t, INVALID.messageGeneration, labelFor('agent'), 'No text message or function call was found in the output list of a response');
    else if (t.agent_steps >= settings.max_agent_steps) {
      if (pendingCalls(t).length) stepLimitReached(t, settings.max_agent_steps);
      else limitAfterReply = true;
    }
  }
  return t;
}

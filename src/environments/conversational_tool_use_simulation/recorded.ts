// NeMo Gym's recorded conversational_tool_use rollouts, read for re-verification: their transcript moved the
// customer's opening message into the input and ends before the customer's closing one (both are in
// result.trajectory), and each judged message keeps the judge's reply text beside its verdict.
import type { JudgeExchange } from '../../reverify/judge';
import type { Row } from '../../reverify/join';
import { inputItems, type ConversationItem, type MessageItem } from '../../schemas/responses';
import { assistantMessage } from '../example_single_tool_call';
import { conversationPrompt, judgeSystemPrompt, stepPrompt } from './prompts';
import { SimulationTask } from './schema';
import type { TrajectoryMessage } from './trajectory';

interface RecordedResult {
  trajectory: {
    messages: TrajectoryMessage[];
    agent_verification_result?: { conversation_verification_result?: { judge_response?: string } | null } | null;
  };
}

export function isConversationRow(row: Row): row is Row & { result: RecordedResult } {
  return Array.isArray((row.result as RecordedResult | undefined)?.trajectory?.messages);
}

const POLICY_ONLY = new Set(['system', 'developer']);
const roleOf = (item: ConversationItem) => (item as MessageItem).role;

/** The rollout as Gymflow records one: the policy prompt as the input, the whole conversation as the response. */
export function withWholeConversation(row: Row & { result: RecordedResult }): Row {
  const params = row.responses_create_params as { input: unknown };
  const input = inputItems(params.input as never);
  const response = row.response as { output: ConversationItem[] };
  const output = [...input.filter((i) => !POLICY_ONLY.has(roleOf(i) ?? '')), ...response.output];
  const last = row.result.trajectory.messages.at(-1);
  const lastItem = output.at(-1);
  const closing = last?.type === 'text' && last.source === 'user' && !(lastItem && roleOf(lastItem) === 'user' && (lastItem as MessageItem).content === last.text);
  if (closing) output.push({ type: 'message', role: 'user', content: last.text ?? '' });
  return { ...row, responses_create_params: { ...params, input: input.filter((i) => POLICY_ONLY.has(roleOf(i) ?? '')) }, response: { ...response, output } };
}

/**
 * The judge exchanges the recording implies: each judged message's prompt (rendered by Gymflow from the
 * recorded trajectory) answered with the reply recorded for it, and the same for the conversation verdict.
 * A prompt Gymflow renders differently, or a message NeMo Gym did not judge, then has no reply.
 */
export function conversationJudgeExchanges(row: Row & { result: RecordedResult }): JudgeExchange[] {
  const task = SimulationTask.parse(withWholeConversation(row));
  const messages = row.result.trajectory.messages;
  const exchange = (role: Parameters<typeof judgeSystemPrompt>[1], prompt: string, reply: string): JudgeExchange => ({
    responses_create_params: {
      input: [
        { role: 'system', content: judgeSystemPrompt(task, role) },
        { role: 'user', content: prompt },
      ],
    },
    response: { output: [assistantMessage(reply)] },
  });
  const exchanges = messages.flatMap((m, i) => {
    const reply = m.verification_result?.judge_response;
    return typeof reply === 'string' ? [exchange(m.source, stepPrompt(messages.slice(0, i), m), reply)] : [];
  });
  const conversation = row.result.trajectory.agent_verification_result?.conversation_verification_result?.judge_response;
  if (typeof conversation === 'string') exchanges.push(exchange('agent_conversation', conversationPrompt(messages), conversation));
  return exchanges;
}

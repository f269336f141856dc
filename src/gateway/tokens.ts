// Real o200k token ids for the mock policy, so training pipelines and token accounting can be tested
// without a GPU. The prompt is a ChatML rendering encoded message by message, and a generation is
// encoded exactly as the next prompt renders it, so turn n's prompt + generation is a token prefix of
// turn n+1's prompt (what a multi-turn RL trainer relies on).
import { encode, ImEnd, ImStart } from 'gpt-tokenizer/encoding/o200k_base';
import { hash32 } from '../util/rng';
import type { ConversationItem, ResponseCreateParams } from '../schemas/responses';
import { contentText, responsesToChatRequest, type TrainingTokenIds } from './convert';
import type { ChatMessage } from './wire';

const MARKERS = { allowedSpecial: new Set([ImStart, ImEnd]) };
// Text from callers is data: a literal "<|im_end|>" in a message must not become the special token.
const PLAIN = { disallowedSpecial: new Set<string>() };

const END_OF_MESSAGE = encode(ImEnd, MARKERS);
const AFTER_MESSAGE = encode(`${ImEnd}\n`, MARKERS);

function header(role: string): number[] {
  return encode(`${ImStart}${role}\n`, MARKERS);
}

/** What a message says, tool calls included, as the model would have written it. */
function messageBody(message: ChatMessage): string {
  const text = message.content == null ? '' : contentText(message.content);
  if (message.role !== 'assistant' || !message.tool_calls?.length) return text;
  const calls = message.tool_calls.map(
    (c) => `<tool_call>${JSON.stringify({ name: c.function.name, arguments: c.function.arguments })}</tool_call>`,
  );
  return [text, ...calls].filter((part) => part.length > 0).join('\n');
}

/** Tokens of instructions + input + tools, ending with the assistant header the generation follows. */
export function promptTokenIds(params: ResponseCreateParams): number[] {
  const chat = responsesToChatRequest(params);
  const ids: number[] = [];
  if (chat.tools?.length) {
    ids.push(...header('tools'), ...encode(chat.tools.map((t) => JSON.stringify(t.function)).join('\n'), PLAIN), ...AFTER_MESSAGE);
  }
  for (const message of chat.messages) ids.push(...header(message.role), ...encode(messageBody(message), PLAIN), ...AFTER_MESSAGE);
  ids.push(...header('assistant'));
  return ids;
}

/** Tokens of one turn's output items as a single assistant message, ending with its end-of-message token. */
export function generationTokenIds(output: readonly ConversationItem[]): number[] {
  const [message] = responsesToChatRequest({ input: [...output] }).messages;
  return [...(message ? encode(messageBody(message), PLAIN) : []), ...END_OF_MESSAGE];
}

/** Deterministic stand-ins for sampled log-probs: in [ln 0.05, 0], fixed by `seed`, position and token. */
export function pseudoLogProbs(tokenIds: readonly number[], seed: string): number[] {
  return tokenIds.map((token, i) => {
    const u = hash32(`${seed}:${i}:${token}`) / 2 ** 32;
    return Math.round(Math.log(1 - 0.95 * u) * 1e4) / 1e4;
  });
}

export function turnTokens(params: ResponseCreateParams, output: readonly ConversationItem[], seed: string): TrainingTokenIds {
  const generation = generationTokenIds(output);
  return {
    prompt_token_ids: promptTokenIds(params),
    generation_token_ids: generation,
    generation_log_probs: pseudoLogProbs(generation, seed),
  };
}

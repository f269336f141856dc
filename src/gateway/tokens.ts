// Real o200k token ids for the mock policy, so training pipelines and token accounting can be tested
// without a GPU. The prompt is a ChatML rendering encoded message by message, and a generation is
// encoded exactly as the next prompt renders it, so turn n's prompt + generation is a token prefix of
// turn n+1's prompt (what a multi-turn RL trainer relies on).
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { encode, ImEnd, ImStart } from 'gpt-tokenizer/encoding/o200k_base';
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { hash32 } from '../util/rng';
import type { ConversationItem, ResponseCreateParams } from '../schemas/responses';
import { contentText, responsesToChatRequest, type TrainingTokenIds } from './convert';
import type { ChatMessage } from './wire';

const MARKERS = { allowedSpecial: new Set([ImStart, ImEnd]) };
// Text from callers is data: a literal "<|im_end|>" in a message must not become the special token.
const PLAIN = { disallowedSpecial: new Set<string>() };

const END_OF_MESSAGE = encode(ImEnd, MARKERS);
const AFTER_MESSAGE = encode(`${ImEnd}\n`, MARKERS);

/**
 * BPE merging is quadratic in the length of one pre-tokenizer piece (a 1 MB word takes hours), so a
 * piece longer than this is encoded in LONG_WORD_SLICE-character slices: real tokens that decode to the
 * text, though a few more than o200k's canonical encoding of that word. No natural word is this long.
 */
export const LONG_WORD_CHARS = 512;
const LONG_WORD_SLICE = 64;
/** Whole pieces are encoded this many characters at a time: cut at piece boundaries, so exactly. */
const CHUNK_CHARS = 16_384;
/** How long encoding may hold the event loop before letting timers and heartbeats run. */
const YIELD_AFTER_MS = 10;

/**
 * Every turn's prompt repeats the conversation so far, so most message texts were encoded on an earlier
 * turn: recently encoded texts are kept (least recently used dropped first) instead of re-encoded.
 */
const encodedTexts = new Map<string, { ids: readonly number[]; longWordsSplit: number }>();
/** Bounds on what is kept: ~16 M characters (and their ids) in all, no single text over 64 K. */
const CACHED_CHARS = 16_000_000;
const CACHED_TEXT_CHARS = 65_536;
let cachedChars = 0;

/** The ids of some texts, appended in order; counts the words split into slices. */
class TokenSink {
  readonly ids: number[] = [];
  longWordsSplit = 0;
  private lastYield = performance.now();

  append(tokens: readonly number[]): void {
    // A loop, not push(...tokens): spreading a million ids overflows the call stack.
    for (const id of tokens) this.ids.push(id);
  }

  async pause(): Promise<void> {
    if (performance.now() - this.lastYield < YIELD_AFTER_MS) return;
    await yieldToEventLoop();
    this.lastYield = performance.now();
  }

  /** Appends the ids of caller text: from the cache when it was encoded recently. */
  async text(text: string): Promise<void> {
    const known = encodedTexts.get(text);
    if (known) {
      // Refreshed as most recently used.
      encodedTexts.delete(text);
      encodedTexts.set(text, known);
      this.longWordsSplit += known.longWordsSplit;
      return this.append(known.ids);
    }
    const start = this.ids.length;
    const splitBefore = this.longWordsSplit;
    await this.encode(text);
    if (text.length > CACHED_TEXT_CHARS) return;
    encodedTexts.set(text, { ids: this.ids.slice(start), longWordsSplit: this.longWordsSplit - splitBefore });
    cachedChars += text.length;
    for (const oldest of encodedTexts.keys()) {
      if (cachedChars <= CACHED_CHARS) break;
      encodedTexts.delete(oldest);
      cachedChars -= oldest.length;
    }
  }

  /**
   * Encodes caller text as o200k does, in bounded synchronous steps. The pre-tokenizer has no
   * lookbehind and a piece never depends on text after it, so encoding runs of whole pieces separately
   * gives the same ids as encoding the text at once.
   */
  private async encode(text: string): Promise<void> {
    // Too short to hold a long word: the common case, encoded at once.
    if (text.length <= LONG_WORD_CHARS) return this.append(encode(text, PLAIN));
    let start = 0;
    const flush = async (end: number) => {
      if (end > start) this.append(encode(text.slice(start, end), PLAIN));
      start = end;
      await this.pause();
    };
    for (const match of text.matchAll(O200K_TOKEN_SPLIT_REGEX)) {
      const piece = match[0];
      const at = match.index;
      if (piece.length > LONG_WORD_CHARS) {
        await flush(at);
        await this.longWord(piece);
        start = at + piece.length;
      } else if (at + piece.length - start >= CHUNK_CHARS) {
        await flush(at + piece.length);
      }
    }
    await flush(text.length);
  }

  private async longWord(piece: string): Promise<void> {
    this.longWordsSplit++;
    for (let i = 0; i < piece.length;) {
      let end = Math.min(piece.length, i + LONG_WORD_SLICE);
      // Never between the two halves of a surrogate pair, so every slice is valid text.
      if (end < piece.length && isLowSurrogate(piece.charCodeAt(end))) end++;
      this.append(encode(piece.slice(i, end), PLAIN));
      i = end;
      await this.pause();
    }
  }
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

const headers = new Map<string, readonly number[]>();
function header(role: string): readonly number[] {
  let ids = headers.get(role);
  if (!ids) headers.set(role, (ids = encode(`${ImStart}${role}\n`, MARKERS)));
  return ids;
}

/** What a message says, tool calls included, as the model would have written it. */
function messageBody(message: ChatMessage): string {
  const text = message.content == null ? '' : contentText(message.content);
  if (message.role !== 'assistant' || !message.tool_calls?.length) return text;
  const calls = message.tool_calls.map(
    (c) => `<tool_call>${JSON.stringify(c.type === 'custom' ? { name: c.custom.name, input: c.custom.input } : { name: c.function.name, arguments: c.function.arguments })}</tool_call>`,
  );
  return [text, ...calls].filter((part) => part.length > 0).join('\n');
}

export interface EncodedTokens {
  ids: number[];
  /** Words longer than LONG_WORD_CHARS, encoded in slices (so not o200k's canonical ids for them). */
  longWordsSplit: number;
}

/** Tokens of instructions + input + tools, ending with the assistant header the generation follows. */
export async function promptTokenIds(params: ResponseCreateParams): Promise<EncodedTokens> {
  const chat = responsesToChatRequest(params);
  const sink = new TokenSink();
  if (chat.tools?.length) {
    sink.append(header('tools'));
    await sink.text(chat.tools.map((t) => JSON.stringify(t.function)).join('\n'));
    sink.append(AFTER_MESSAGE);
  }
  for (const message of chat.messages) {
    sink.append(header(message.role));
    await sink.text(messageBody(message));
    sink.append(AFTER_MESSAGE);
  }
  sink.append(header('assistant'));
  return { ids: sink.ids, longWordsSplit: sink.longWordsSplit };
}

/** Tokens of one turn's output items as a single assistant message, ending with its end-of-message token. */
export async function generationTokenIds(output: readonly ConversationItem[]): Promise<EncodedTokens> {
  const [message] = responsesToChatRequest({ input: [...output] }).messages;
  const sink = new TokenSink();
  if (message) await sink.text(messageBody(message));
  sink.append(END_OF_MESSAGE);
  return { ids: sink.ids, longWordsSplit: sink.longWordsSplit };
}

/** Deterministic stand-ins for sampled log-probs: in [ln 0.05, 0], fixed by `seed`, position and token. */
export function pseudoLogProbs(tokenIds: readonly number[], seed: string): number[] {
  return tokenIds.map((token, i) => {
    const u = hash32(`${seed}:${i}:${token}`) / 2 ** 32;
    return Math.round(Math.log(1 - 0.95 * u) * 1e4) / 1e4;
  });
}

export interface TurnTokens {
  ids: TrainingTokenIds;
  /** Words of the prompt and generation encoded in slices; the mock reports it in its usage. */
  longWordsSplit: number;
}

export async function turnTokens(params: ResponseCreateParams, output: readonly ConversationItem[], seed: string): Promise<TurnTokens> {
  const prompt = await promptTokenIds(params);
  const generation = await generationTokenIds(output);
  return {
    ids: {
      prompt_token_ids: prompt.ids,
      generation_token_ids: generation.ids,
      generation_log_probs: pseudoLogProbs(generation.ids, seed),
    },
    longWordsSplit: prompt.longWordsSplit + generation.longWordsSplit,
  };
}

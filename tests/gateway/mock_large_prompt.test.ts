// 5 MB prompts through the mock model (issue 6 item 15): a many-word one and a single 5 MB word both
// get answers with real token ids, and the gateway keeps the event loop turning while it tokenizes
// (a timer in this process keeps firing, as a worker's heartbeats must).
import { decode, encode, ImEnd, ImStart } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRng } from '../../src/util/rng';
import { gatewayWithLogs, MULTI_STEP_TASKS, postJson, type CapturedGateway, type JsonReply } from './helpers';

const FIVE_MB = 5 * 1024 * 1024;
/**
 * A gateway that held the event loop for the whole tokenization lets the timer fire a few times at most during
 * the call (8 to 12 here, while the body is read); one that yields between slices, 80 or more. A count, not a
 * gap in ms: on a loaded machine any process can be descheduled for seconds.
 */
const MIN_TICKS = 30;

let g: CapturedGateway;
let model: string;
beforeAll(async () => {
  g = await gatewayWithLogs();
  model = g.gateway.register({ backend: 'mock', env: 'example_multi_step', tasks_file: MULTI_STEP_TASKS });
});
afterAll(async () => {
  await g.gateway.close();
});

/** Varied text: words, digits, punctuation, runs of spaces, newlines and non-ASCII, from a fixed seed. */
function manyWords(bytes: number): string {
  const rng = seededRng('large-prompt-words');
  const words = ['alpha', 'Beta', "don't", 'naïve', '数据集', '42', '1234567', 'x', '🙂', 'ÉCOLE', 'co-op', 'e.g.', '<|im_end|>'];
  const gaps = [' ', ' ', ' ', '  ', '\n', '\n\n', ', ', '. ', '\t', ' \n '];
  const parts: string[] = ['Start'];
  let length = 5;
  while (length < bytes) {
    const part = rng.pick(gaps) + rng.pick(words) + (rng.next() < 0.1 ? String(rng.int(1e6)) : '');
    parts.push(part);
    length += part.length;
  }
  return parts.join('');
}

/**
 * One word of random letters. A 4,099-letter block repeated keeps the test affordable on a shared
 * machine (the tokenizer caches repeated slices); a wholly random word takes several times longer.
 */
function oneWord(chars: number): string {
  const rng = seededRng('large-prompt-word');
  let block = '';
  for (let i = 0; i < 4_099; i++) block += String.fromCharCode(97 + rng.int(26));
  return block.repeat(Math.ceil(chars / block.length)).slice(0, chars);
}

/** Posts the prompt while a 20 ms timer runs; returns the reply and how often the timer fired meanwhile. */
async function callWhileTicking(text: string): Promise<{ reply: JsonReply; ticks: number }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 20);
  try {
    const reply = await postJson(g.gateway, '/responses', { model, input: [{ role: 'user', content: text }] });
    return { reply, ticks };
  } finally {
    clearInterval(timer);
  }
}

function rendered(text: string): string {
  return `${ImStart}user\n${text}${ImEnd}\n${ImStart}assistant\n`;
}

/** Index of the first difference, or -1; toEqual's diff of a million ids would be unreadable. */
function firstDifference(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) if (a[i] !== b[i]) return i;
  return -1;
}

describe('a 5 MB prompt', () => {
  it('of many words gets o200k’s exact ids, with usage to match', async () => {
    const text = manyWords(FIVE_MB);
    const { reply, ticks } = await callWhileTicking(text);
    expect(reply.status).toBe(200);
    const last = reply.body.output.at(-1);
    // The reference: the tokenizer library encoding the whole message text at once, in the ChatML frame.
    const markers = { allowedSpecial: new Set([ImStart, ImEnd]) };
    const expected = encode(`${ImStart}user\n`, markers)
      .concat(encode(text, { disallowedSpecial: new Set() }))
      .concat(encode(`${ImEnd}\n`, markers))
      .concat(encode(`${ImStart}assistant\n`, markers));
    expect(firstDifference(last.prompt_token_ids, expected)).toBe(-1);
    expect(reply.body.usage.input_tokens).toBe(expected.length);
    expect(reply.body.usage.input_tokens_details.long_words_split).toBeUndefined();
    expect(ticks).toBeGreaterThanOrEqual(MIN_TICKS);
  }, 120_000);

  it('of a single word gets real ids that decode to it, says the word was split, and does not hold the event loop', async () => {
    const text = oneWord(FIVE_MB);
    const { reply, ticks } = await callWhileTicking(text);
    expect(reply.status).toBe(200);
    const ids: number[] = reply.body.output.at(-1).prompt_token_ids;
    expect(decode(ids)).toBe(rendered(text));
    expect(reply.body.usage.input_tokens).toBe(ids.length);
    expect(reply.body.usage.input_tokens_details.long_words_split).toBe(1);
    expect(ticks).toBeGreaterThanOrEqual(MIN_TICKS);
  }, 300_000);
});

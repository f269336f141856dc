// 5 MB prompts through the mock model (issue 6 item 15): a many-word one and a single 5 MB word both
// get answers with real token ids, and the gateway keeps the event loop turning while it tokenizes
// (no turn of this process's event loop runs for long, as a worker's heartbeats need).
import { decode, encode, ImEnd, ImStart } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRng } from '../../src/util/rng';
import { gatewayWithLogs, MULTI_STEP_TASKS, postJson, type CapturedGateway, type JsonReply } from './helpers';

const FIVE_MB = 5 * 1024 * 1024;
/**
 * The most of a call's CPU one turn of the event loop may take. A gateway that tokenized in one go runs most of
 * the call in one turn; one that yields between slices, a few percent (a slice, or a garbage collection). CPU
 * time, not wall time or a timer's ticks: a process descheduled on a loaded machine, or a fast one, changes
 * those but not this.
 */
const MAX_TURN_SHARE = 0.25;

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

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Posts the prompt while watching every turn of the event loop; returns the reply, the call's CPU and its longest turn's. */
async function callWhileWatching(text: string): Promise<{ reply: JsonReply; cpu: number; longestTurn: number }> {
  let watching = true;
  let longestTurn = 0;
  let last = cpuMs();
  const turn = () => {
    const now = cpuMs();
    longestTurn = Math.max(longestTurn, now - last);
    last = now;
    if (watching) setImmediate(turn);
  };
  setImmediate(turn);
  const started = cpuMs();
  try {
    const reply = await postJson(g.gateway, '/responses', { model, input: [{ role: 'user', content: text }] });
    return { reply, cpu: cpuMs() - started, longestTurn };
  } finally {
    watching = false;
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
    const { reply, cpu, longestTurn } = await callWhileWatching(text);
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
    expect(longestTurn / cpu).toBeLessThan(MAX_TURN_SHARE);
  }, 120_000);

  it('of a single word gets real ids that decode to it, says the word was split, and does not hold the event loop', async () => {
    const text = oneWord(FIVE_MB);
    const { reply, cpu, longestTurn } = await callWhileWatching(text);
    expect(reply.status).toBe(200);
    const ids: number[] = reply.body.output.at(-1).prompt_token_ids;
    expect(decode(ids)).toBe(rendered(text));
    expect(reply.body.usage.input_tokens).toBe(ids.length);
    expect(reply.body.usage.input_tokens_details.long_words_split).toBe(1);
    expect(longestTurn / cpu).toBeLessThan(MAX_TURN_SHARE);
  }, 300_000);
});

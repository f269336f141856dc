// Prompt encoding reuses the ids of texts it encoded recently: a cached text must give exactly what a
// fresh encoding gives, long-word accounting included.
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { promptTokenIds } from '../../src/gateway/tokens';

const request = (text: string) => ({ input: [{ role: 'user' as const, content: text }] });

describe('prompt token ids of a text seen before', () => {
  it('equal the first encoding, and the text encoded on its own', async () => {
    const text = `Which planet is largest? ${Math.random()}`;
    const first = await promptTokenIds(request(text));
    const second = await promptTokenIds(request(text));
    expect(second).toEqual(first);
    const body = encode(text);
    // <|im_start|>user\n, the text, <|im_end|>\n, <|im_start|>assistant\n
    expect(first.ids.slice(3, 3 + body.length)).toEqual(body);
  });

  it('still count the long words that were split', async () => {
    const word = 'x'.repeat(600) + String(Math.random()).slice(2);
    const text = `see ${word} and ${word}`;
    const first = await promptTokenIds(request(text));
    const second = await promptTokenIds(request(text));
    expect(first.longWordsSplit).toBe(2);
    expect(second).toEqual(first);
  });
});

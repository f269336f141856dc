// The mock's prompt index: a harness's task is found by its prompt inside the harness's own user message,
// also in the form OpenCode's `run` sends a message holding spaces (double-quoted, its quotes escaped).
import { describe, expect, it } from 'vitest';
import { PromptIndex } from '../../src/gateway/backends/mock/inputs';

const prompt = 'word_count("hello   world\\n") returns 4, not 2.\n\nFix it in /testbed.';
const index = new PromptIndex([{ input: [{ role: 'user', content: prompt }], row: 'the task' }]);
const user = (content: string) => [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content },
];

describe('PromptIndex', () => {
  it('finds a prompt inside a harness message as given, and as OpenCode quotes it', () => {
    expect(index.match(user(`Task:\n${prompt}\nGo.`))).toMatchObject({ rows: ['the task'], length: 2 });
    const quoted = `"${prompt.replaceAll('"', '\\"')}"`;
    expect(quoted).not.toContain(prompt);
    expect(index.match(user(quoted))).toMatchObject({ rows: ['the task'], inputKey: JSON.stringify(prompt), length: 2 });
  });

  it('finds nothing for a message that holds another text', () => {
    expect(index.match(user(prompt.replace('hello', 'goodbye')))).toBeUndefined();
    expect(index.match([{ role: 'assistant', content: prompt }])).toBeUndefined();
  });
});

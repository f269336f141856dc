// Responses ↔ Chat conversion keeps what a chat-only upstream needs to continue an episode: structured
// tool outputs, reasoning and effort, audio/file inputs, custom tools and parallel tool calls; and over
// every fixture rollout (tests/fixtures/nemo-gym/*/example_rollouts.jsonl) the round trip keeps every
// call, output and text where it was, and is stable once made (whitespace at <think> edges is trimmed
// on the first pass, as splitThink does).
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { chatRequestToResponses, contentText, responsesToChatRequest } from '../../src/gateway/convert';
import { ChatCompletionRequest } from '../../src/gateway/wire';
import { inputItems, isMessage, ResponseCreateParams, type ConversationItem } from '../../src/schemas/responses';
import { readJsonl } from './helpers';
import { flattenTransitions } from '../../src/reverify/transitions';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/nemo-gym');

const episodes = readdirSync(FIXTURES, { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(path.join(FIXTURES, d.name, 'example_rollouts.jsonl')))
  // Aviary's agent records its episode as transitions; read as the one Responses episode it ends with.
  .flatMap((d) => readJsonl(path.join(FIXTURES, d.name, 'example_rollouts.jsonl')).map((row, i) => ({ name: `${d.name}[${i}]`, row: flattenTransitions(row) as typeof row })));

/** What an episode says, item by item, in the terms both APIs share. */
function said(items: readonly ConversationItem[]) {
  return items.flatMap((item) => {
    if (item.type === 'function_call') return [`call ${item.call_id} ${item.name} ${item.arguments}`];
    if (item.type === 'function_call_output') return [`output ${item.call_id} ${typeof item.output === 'string' ? item.output : JSON.stringify(item.output)}`];
    if (item.type === 'reasoning') return item.summary.map((s) => `reasoning ${s.text.trim()}`);
    if (isMessage(item)) return contentText(item.content).trim() ? [`${item.role} ${contentText(item.content).trim()}`] : [];
    return [JSON.stringify(item)];
  });
}

/**
 * Chat keeps one assistant turn as one message: its reasoning, then its text, then its tool calls. A turn whose
 * model emitted a call before its reasoning (the simulated-customer rollouts do) comes back in that order, so
 * each turn's lines are compared in Chat's order (stable: calls keep theirs).
 */
function inChatOrder(lines: string[]): string[] {
  const rank = (l: string) => (l.startsWith('reasoning ') ? 0 : l.startsWith('assistant ') ? 1 : l.startsWith('call ') ? 2 : -1);
  const out: string[] = [];
  let turn: string[] = [];
  const close = () => {
    out.push(...turn.sort((a, b) => rank(a) - rank(b)));
    turn = [];
  };
  for (const line of lines) {
    if (rank(line) < 0) {
      close();
      out.push(line);
    } else turn.push(line);
  }
  close();
  return out;
}

describe('over the fixture rollouts', () => {
  it('has episodes with tool calls and reasoning to convert', () => {
    const all = episodes.flatMap((e) => e.row.response.output as ConversationItem[]);
    expect(all.some((i) => i.type === 'function_call')).toBe(true);
    expect(all.some((i) => i.type === 'reasoning')).toBe(true);
  });

  for (const { name, row } of episodes) {
    it(`${name}: Responses → Chat → Responses loses nothing said, and a second round trip changes nothing`, () => {
      const original = ResponseCreateParams.parse(row.responses_create_params);
      const items = [...inputItems(original.input), ...(row.response.output as ConversationItem[])];
      const chat = responsesToChatRequest({ ...original, input: items });
      const back = chatRequestToResponses(ChatCompletionRequest.parse({ ...chat, model: 'm' }));
      const again = responsesToChatRequest(back);
      expect(responsesToChatRequest(chatRequestToResponses(ChatCompletionRequest.parse(again)))).toEqual(again);
      expect(again.tools).toEqual(chat.tools);
      const withoutSystem = (lines: string[]) => lines.filter((l) => !l.startsWith('system ') && !l.startsWith('developer '));
      expect(inChatOrder(withoutSystem(said(back.input as ConversationItem[])))).toEqual(inChatOrder(withoutSystem(said(items))));
      expect(back.tools?.map((t) => t.name)).toEqual(original.tools?.length ? original.tools.map((t) => t.name) : undefined);
    });
  }
});

describe('what a chat-only upstream must be given', () => {
  it('keeps structured tool outputs as content parts, both ways', () => {
    const output = [
      { type: 'input_text', text: 'see chart' },
      { type: 'input_image', image_url: 'data:image/png;base64,AAAA' },
    ];
    const chat = responsesToChatRequest({
      input: [
        { type: 'function_call', call_id: 'c1', name: 'plot', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output },
      ],
    });
    expect(chat.messages[1]).toEqual({
      role: 'tool',
      tool_call_id: 'c1',
      content: [
        { type: 'text', text: 'see chart' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
      ],
    });
    const back = chatRequestToResponses(ChatCompletionRequest.parse({ ...chat, model: 'm' }));
    expect(back.input[1]).toEqual({ type: 'function_call_output', call_id: 'c1', output });
  });

  it('keeps audio and file inputs', () => {
    const content = [
      { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
      { type: 'input_file', filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' },
    ];
    const chat = responsesToChatRequest({ input: [{ role: 'user', content }] });
    expect(chat.messages[0]!.content).toEqual([
      { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
      { type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' } },
    ]);
    expect(chatRequestToResponses(ChatCompletionRequest.parse({ ...chat, model: 'm' })).input).toEqual([{ type: 'message', role: 'user', content }]);
  });

  it('keeps custom tools, their calls and outputs', () => {
    const tool = { type: 'custom' as const, name: 'apply_patch', description: 'Apply a patch', format: { type: 'grammar', syntax: 'lark', definition: 'start: /.+/' } };
    const input: ConversationItem[] = [
      { role: 'user', content: 'Fix it' },
      { type: 'custom_tool_call', call_id: 'p1', name: 'apply_patch', input: '*** Begin Patch' },
      { type: 'custom_tool_call_output', call_id: 'p1', output: 'applied' },
    ];
    const chat = responsesToChatRequest({ input, tools: [tool] });
    expect(chat.tools).toEqual([{ type: 'custom', custom: { name: 'apply_patch', description: 'Apply a patch', format: tool.format } }]);
    expect(chat.messages[1]).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'p1', type: 'custom', custom: { name: 'apply_patch', input: '*** Begin Patch' } }] });
    const back = chatRequestToResponses(ChatCompletionRequest.parse({ ...chat, model: 'm' }));
    expect(back.tools).toEqual([tool]);
    expect(back.input.slice(1)).toEqual([
      { type: 'custom_tool_call', call_id: 'p1', name: 'apply_patch', input: '*** Begin Patch', status: 'completed' },
      { type: 'custom_tool_call_output', call_id: 'p1', output: 'applied' },
    ]);
  });

  it('keeps reasoning, its effort, and parallel tool calls as one assistant turn', () => {
    const input: ConversationItem[] = [
      { role: 'user', content: 'Both cities' },
      { type: 'reasoning', summary: [{ type: 'summary_text', text: 'two lookups' }] },
      { type: 'function_call', call_id: 'a', name: 'w', arguments: '{"city":"Oslo"}' },
      { type: 'function_call', call_id: 'b', name: 'w', arguments: '{"city":"Rome"}' },
      { type: 'function_call_output', call_id: 'a', output: 'cold' },
      { type: 'function_call_output', call_id: 'b', output: 'warm' },
    ];
    const chat = responsesToChatRequest({ input, reasoning: { effort: 'high' }, parallel_tool_calls: true, tools: [{ type: 'function', name: 'w' }] });
    expect(chat.reasoning_effort).toBe('high');
    expect(chat.parallel_tool_calls).toBe(true);
    expect(chat.messages).toHaveLength(4);
    expect(chat.messages[1]).toMatchObject({ role: 'assistant', content: '<think>two lookups</think>', tool_calls: [{ id: 'a' }, { id: 'b' }] });
    const back = chatRequestToResponses(ChatCompletionRequest.parse({ ...chat, model: 'm' }));
    expect(back.reasoning).toEqual({ effort: 'high' });
    expect(said(back.input as ConversationItem[])).toEqual(said(input));
  });
});

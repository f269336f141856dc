// Gymflow's image-tools agent against NeMo Gym 0.7.0's own agent loop (image_tools_agent.cases.py runs its
// _run_image_tools_loop over scripted model turns on the drawn shapes image): the same aux reward, tool and error
// counts, output roles, tool replies (text, JSON results, and the size and type of every image shown) and stop strings.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { hasMalformedImageToolMarkup } from '../../src/agents/image-tools';
import { assistantMessage } from '../../src/environments/example_single_tool_call';
import { createImageToolsAgent } from '../../src/environments/image_tools_agent';
import { getEnvironment } from '../../src/environments/registry';
import type { ConversationItem, ResponseObject } from '../../src/schemas/responses';
import { readJsonl } from './nemo_fixtures';

const HERE = import.meta.dirname;
const SHAPES = path.join(HERE, 'image_tools.shapes.png');

interface AgentCase {
  name: string;
  settings: Record<string, unknown>;
  image: boolean;
  texts: string[];
  model_calls: number;
  stop: string[];
  aux_reward: number;
  call_count: number;
  error_count: number;
  output_paths: number;
  generation_images: number[];
  roles: string[];
  replies: (string | ({ text: string } | { image: number[]; mime: string })[])[];
}
const cases = readJsonl<AgentCase>(path.join(HERE, 'image_tools_agent.cases.jsonl'));

/** A reply as the cases record it, with the tool's JSON results parsed (JSON numbers lose Python's 3.0 vs 3). */
async function shown(content: unknown): Promise<unknown> {
  if (typeof content === 'string') return content;
  return Promise.all(
    (content as Record<string, string>[]).map(async (part) => {
      if (part.type === 'input_text') return parsedText(part.text!);
      const { width, height } = await sharp(Buffer.from(part.image_url!.slice(part.image_url!.indexOf(',') + 1), 'base64')).metadata();
      return { image: [width, height], mime: part.image_url!.slice(0, part.image_url!.indexOf(';')) };
    }),
  );
}
const parsedText = (text: string) => (text.trim().startsWith('{') ? { json: JSON.parse(text) } : { text });
const expectedReplies = (c: AgentCase) => c.replies.map((r) => (typeof r === 'string' ? r : r.map((p) => ('text' in p ? parsedText(p.text) : p))));

describe('image-tools agent against NeMo Gym ImageToolsAgent', () => {
  const cropDir = mkdtempSync(path.join(os.tmpdir(), 'gf-image-tools-agent-'));

  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const env = createImageToolsAgent(getEnvironment, { crop_dir: cropDir, max_steps: 21, max_tool_calls: 20, tool_success_reward_cap: 0.2, ...c.settings });
    const content: unknown[] = [{ type: 'input_text', text: 'What object is shown?' }];
    if (c.image) content.push({ type: 'input_image', image_url: SHAPES, detail: 'auto' });
    const task = env.taskSchema.parse({
      responses_create_params: { input: [{ role: 'user', content }] },
      expected_answer: 'car',
      extraction_mode: 'full_response',
      image_tools_base_agent_ref: { type: 'responses_api_agents', name: 'string_match_simple_agent' },
    });
    expect(task.responses_create_params.stop).toEqual(c.stop);
    let { state } = await env.reset!(task, {});
    const output: ConversationItem[] = [];
    let calls = 0;
    for (const text of c.texts) {
      const turn = [assistantMessage(text) as ConversationItem];
      calls++;
      output.push(...turn);
      const reply = await env.step!(task, state, turn, {});
      state = reply.state;
      output.push(...reply.items);
      if (reply.done) break;
    }
    expect(calls).toBe(c.model_calls);
    expect(output.map((i) => (i as { role: string }).role)).toEqual(c.roles);
    const replies = await Promise.all(output.filter((i) => (i as { role: string }).role === 'user').map((i) => shown((i as { content: unknown }).content)));
    expect(replies).toEqual(expectedReplies(c));

    const response: ResponseObject = { id: 'resp', object: 'response', model: 'm', status: 'completed', output };
    const result = await env.verify(task, response, { state });
    expect(result.image_tools_aux_reward).toBe(c.aux_reward);
    expect(result.image_tools_call_count).toBe(c.call_count);
    expect(result.image_tools_error_count).toBe(c.error_count);
    expect((result.image_tools_output_paths as string[]).length).toBe(c.output_paths);
    expect((result.image_tools_generation_image_paths as string[][]).map((g) => g.length)).toEqual(c.generation_images);
    // The base environment grades the last assistant message only; the tool reward is added to its reward.
    expect(result.reward).toBe((result.base_reward as number) + c.aux_reward);
  });

  it('clean XML is not malformed; a nested call is (NeMo Gym test_app)', () => {
    expect(
      hasMalformedImageToolMarkup(
        '<tool_call><function=image_zoom_in_tool><parameter=bbox_2d>[0, 0, 500, 500]</parameter><parameter=label>upper left</parameter><parameter=img_idx>0</parameter></function></tool_call>',
      ),
    ).toBe(false);
    expect(
      hasMalformedImageToolMarkup(
        '<tool_call><function=image_zoom_in_tool><parameter=bbox_2d>[0, 0, 500, 500]</parameter><parameter=label>bad\n</think>\n<tool_call><function=image_zoom_in_tool><parameter=bbox_2d>[10, 10, 100, 100]</parameter><parameter=label>nested</parameter><parameter=img_idx>0</parameter></function></tool_call>',
      ),
    ).toBe(true);
  });
});

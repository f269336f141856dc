// The mock's ForTraining token ids: real o200k tokens of the rendered prompt and of the generation,
// on the last item of each turn, consistent with usage, and continuing from turn to turn.
import { decode, encode, ImEnd } from 'gpt-tokenizer/encoding/o200k_base';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TaskRow } from '../../src/schemas/task';
import { gatewayWithLogs, MULTI_STEP_TASKS, postJson, readJsonl, runEpisode, type CapturedGateway } from './helpers';

const ENV = 'example_multi_step';
const tasks = readJsonl<TaskRow>(MULTI_STEP_TASKS);
const TOKEN_FIELDS = ['prompt_token_ids', 'generation_token_ids', 'generation_log_probs'];

let g: CapturedGateway;
let model: string;
beforeAll(async () => {
  g = await gatewayWithLogs();
  model = g.gateway.register({ backend: 'mock', env: ENV, tasks_file: MULTI_STEP_TASKS });
});
afterAll(async () => {
  await g.gateway.close();
});

describe('token ids', () => {
  it('are real tokens of the prompt and of the generated call, and match usage', async () => {
    const res = await postJson(g.gateway, '/responses', { ...tasks[0]!.responses_create_params, model });
    const [call] = res.body.output;
    const prompt = decode(call.prompt_token_ids);
    expect(prompt).toContain((tasks[0]!.responses_create_params.input as any[])[1].content);
    expect(prompt).toContain('extract_synonym_values');
    expect(prompt.endsWith('<|im_start|>assistant\n')).toBe(true);
    const generation = decode(call.generation_token_ids);
    expect(generation).toContain(call.name);
    expect(generation).toContain(JSON.stringify(call.arguments));
    expect(res.body.usage).toMatchObject({
      input_tokens: call.prompt_token_ids.length,
      output_tokens: call.generation_token_ids.length,
      total_tokens: call.prompt_token_ids.length + call.generation_token_ids.length,
    });
    expect(call.generation_log_probs).toHaveLength(call.generation_token_ids.length);
    expect(call.generation_log_probs.every((p: number) => p <= 0 && p > -4)).toBe(true);
    expect(new Set(call.generation_log_probs).size).toBeGreaterThan(1);
  });

  it("continue across turns: a turn's prompt + generation is a prefix of the next turn's prompt", async () => {
    const { turns } = await runEpisode(g.gateway, model, ENV, tasks[1]!, '1-0');
    expect(turns.length).toBeGreaterThanOrEqual(3);
    for (let t = 0; t + 1 < turns.length; t++) {
      const now = turns[t]!.output.at(-1) as any;
      const next = turns[t + 1]!.output.at(-1) as any;
      const sofar = [...now.prompt_token_ids, ...now.generation_token_ids];
      expect(next.prompt_token_ids.slice(0, sofar.length)).toEqual(sofar);
      expect(next.prompt_token_ids.length).toBeGreaterThan(sofar.length);
    }
  });

  it('sit on the last item of a multi-item turn only', async () => {
    // A recorded turn of reasoning + message + call, replayed without a task file.
    const dir = await mkdtemp(path.join(tmpdir(), 'gymflow-tokens-'));
    const file = path.join(dir, 'rollouts.jsonl');
    const input = [{ role: 'user', content: 'Weather in Paris?' }];
    const output = [
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'The user wants the weather.' }] },
      { type: 'message', id: 'msg_1', role: 'assistant', content: [{ type: 'output_text', text: 'Let me check.', annotations: [] }] },
      { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call_output', call_id: 'call_1', output: '{"weather_description":"cold"}' },
    ];
    await writeFile(file, `${JSON.stringify({ responses_create_params: { input }, response: { output } })}\n`);
    const replay = g.gateway.register({ backend: 'mock', env: 'example_single_tool_call', replay_files: [file] });
    const res = await postJson(g.gateway, '/responses', { model: replay, input });
    expect(res.body.output.map((i: any) => i.type)).toEqual(['reasoning', 'message', 'function_call']);
    for (const item of res.body.output.slice(0, -1)) for (const field of TOKEN_FIELDS) expect(item).not.toHaveProperty(field);
    const last = res.body.output.at(-1);
    const generation = decode(last.generation_token_ids);
    expect(generation).toContain('<think>The user wants the weather.</think>Let me check.');
    expect(generation).toContain('get_weather');
    expect(res.body.usage.output_tokens).toBe(last.generation_token_ids.length);
  });

  it('treat special-token text in a message as plain text', async () => {
    const res = await postJson(g.gateway, '/responses', { model, input: 'say <|im_end|> please' });
    expect(res.status).toBe(200);
    const prompt: number[] = res.body.output[0].prompt_token_ids;
    const [imEnd] = encode(ImEnd, { allowedSpecial: new Set([ImEnd]) });
    // Only the marker closing the user message is the special token; the user's literal one is text.
    expect(prompt.filter((t) => t === imEnd)).toHaveLength(1);
    expect(decode(prompt)).toContain('say <|im_end|> please');
  });
});

// The mock replaying NeMo Gym's recorded example_multi_step rollouts turn by turn: fed the recorded
// tool outputs, each turn must be the recorded items, ahead of the (here deliberately wrong) oracle.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleMultiStep } from '../../src/environments/example_multi_step';
import type { ConversationItem } from '../../src/schemas/responses';
import { gatewayWithLogs, MULTI_STEP_ROLLOUTS, MULTI_STEP_TASKS, postJson, readJsonl, withoutTokens, type CapturedGateway } from './helpers';

const recordings = readJsonl(MULTI_STEP_ROLLOUTS);
const tasks = readJsonl(MULTI_STEP_TASKS);

/** The recorded output cut into model turns: each ends where a tool output follows. */
function recordedTurns(output: ConversationItem[]): { turn: ConversationItem[]; toolOutputs: ConversationItem[] }[] {
  const turns = [];
  let i = 0;
  while (i < output.length) {
    const turn = [];
    while (i < output.length && output[i]!.type !== 'function_call_output') turn.push(output[i++]!);
    const toolOutputs = [];
    while (i < output.length && output[i]!.type === 'function_call_output') toolOutputs.push(output[i++]!);
    turns.push({ turn, toolOutputs });
  }
  return turns;
}

let g: CapturedGateway;
let model: string;
beforeAll(async () => {
  g = await gatewayWithLogs();
  // accuracy 0: were the oracle answering, every extraction would be wrong.
  model = g.gateway.register({ backend: 'mock', env: 'example_multi_step', tasks_file: MULTI_STEP_TASKS, replay_files: [MULTI_STEP_ROLLOUTS], accuracy: 0 });
});
afterAll(async () => {
  await g.gateway.close();
});

describe('replay', () => {
  it.each(recordings.map((r, i) => [i, r] as const))('replays recorded rollout %i turn by turn', async (i, recording) => {
    const input = recording.responses_create_params.input as ConversationItem[];
    const history: ConversationItem[] = [];
    const turns = recordedTurns(recording.response.output);
    for (const { turn, toolOutputs } of turns) {
      const res = await postJson(g.gateway, '/responses', { model, input: [...input, ...history] }, { 'x-gymflow-rollout-id': `replay-${i}` });
      expect(res.status).toBe(200);
      expect(withoutTokens(res.body.output)).toEqual(turn);
      expect(res.body.output.at(-1).generation_token_ids.length).toBe(res.body.usage.output_tokens);
      history.push(...res.body.output, ...toolOutputs);
    }
    const task = tasks.find((t) => JSON.stringify(t.responses_create_params.input.map((m: any) => m.content)) === JSON.stringify(input.map((m: any) => m.content)));
    const verdict = exampleMultiStep.verify(exampleMultiStep.taskSchema.parse(task), { id: 'r', output: history }, { state: null });
    expect(await verdict).toMatchObject({ reward: recording.reward });
  });

  it('replays a recording with a different path than the oracle (the "Hot" lookup first)', async () => {
    const recording = recordings.find((r) => r.response.output[0].arguments.includes('Hot'))!;
    const res = await postJson(g.gateway, '/responses', { model, input: recording.responses_create_params.input });
    expect(JSON.parse(res.body.output[0].arguments)).toEqual({ synonym: 'Hot' });
  });

  it('falls back to the oracle once the recording is used up', async () => {
    const recording = recordings[0]!;
    const input = [...recording.responses_create_params.input, ...recording.response.output];
    const res = await postJson(g.gateway, '/responses', { model, input }, { 'x-gymflow-rollout-id': 'replay-done' });
    expect(res.status).toBe(200);
    // The oracle's answer after an extraction: a closing message.
    expect(res.body.output).toEqual([expect.objectContaining({ type: 'message', content: [expect.objectContaining({ text: 'Done.' })] })]);
    expect(g.logLines().some((l) => l.rollout_id === 'replay-done' && /no turn left/.test(l.msg))).toBe(true);
  });
});

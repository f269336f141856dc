// example_tool_call_multireward against NeMo Gym: recorded rewards and components reproduce, recorded tool
// calls replay to the same outputs, and hand-made episodes score as NeMo Gym's app.py (v0.6.0) scores them.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { exampleToolCallMultireward as env, MultiRewardTask } from '../../src/environments/example_tool_call_multireward';
import { exampleToolCallMultirewardOracle } from '../../src/environments/example_tool_call_multireward/oracle';
import { seededRng } from '../../src/util/rng';
import type { ConversationItem, ResponseObject } from '../../src/schemas/responses';
import { FIXTURES, joinToTasks, readJsonl } from './nemo_fixtures';
import { replayToolCalls, settled } from './env_helpers';

const dir = path.join(FIXTURES, 'example_tool_call_multireward');
const ctx = { state: null };

interface Recorded {
  responses_create_params: { input: unknown };
  _ng_task_index: number;
  response: ResponseObject;
  reward: number;
  reward_components: Record<string, number>;
  predicted_calls: unknown[];
}

describe('example_tool_call_multireward conformance with NeMo Gym recorded rollouts', () => {
  const tasks = readJsonl(path.join(dir, 'example.jsonl')) as { responses_create_params: { input: unknown } }[];
  const rollouts = readJsonl(path.join(dir, 'example_rollouts.jsonl')) as unknown as Recorded[];
  for (const { rollout, task } of joinToTasks(rollouts, tasks)) {
    it(`task ${rollout._ng_task_index} reproduces reward ${rollout.reward} and its components`, async () => {
      const row = MultiRewardTask.parse(task);
      const result = env.verify(row, rollout.response, ctx) as Record<string, unknown>;
      expect(result.reward).toBe(rollout.reward);
      expect(result.reward_components).toEqual(rollout.reward_components);
      expect(result.predicted_calls).toEqual(rollout.predicted_calls);
      expect(result.failure_reason).toBe('format');

      const { calls } = await replayToolCalls(env, row, null, rollout.response.output);
      expect(calls.length).toBeGreaterThan(0);
      for (const call of calls) expect(call.ours).toEqual(call.recorded);
    });
  }
});

describe('example_tool_call_multireward edge cases (values from NeMo Gym v0.6.0)', () => {
  const tools = [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }];
  const PARIS = { name: 'get_weather', arguments: { city: 'Paris' } };
  const call = (args: string, name = 'get_weather'): ConversationItem => ({ type: 'function_call', call_id: 'c', name, arguments: args });
  const message: ConversationItem = { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'done' }] };

  it.each([
    ['one correct call, no text', PARIS, [call('{"city": "Paris"}')], 1, 1, 1],
    ['correct call then a message', PARIS, [call('{"city": "Paris"}'), message], 1, 1, 0],
    ['extra arguments are fine', PARIS, [call('{"city":"Paris","units":"C"}')], 1, 1, 1],
    ['wrong city (case matters)', PARIS, [call('{"city": "paris"}')], 0, 1, 1],
    ['missing required argument', PARIS, [call('{"town":"Paris"}')], 0, 0, 1],
    ['malformed arguments', PARIS, [call('{"city": "Paris"')], 0, 0, 1],
    ['arguments not an object', PARIS, [call('["Paris"]')], 0, 0, 1],
    ['NaN literal is valid Python JSON', { name: 'get_weather', arguments: { n: 1 } }, [call('{"city": "x", "n": NaN}')], 0, 1, 1],
    ['true equals 1', { name: 'get_weather', arguments: { n: 1 } }, [call('{"city": "x", "n": true}')], 1, 1, 1],
    ['a later call may be the correct one', PARIS, [call('{"city":"Lyon"}'), call('{"city": "Paris"}')], 1, 1, 0],
    ['tool not offered: no required params', PARIS, [call('{"city": "Paris"}', 'get_forecast')], 0, 1, 1],
    ['empty expected_call never matches', {}, [call('{"city": "Paris"}')], 0, 1, 1],
    ['a null expected value matches a missing key', { name: 'get_weather', arguments: { units: null } }, [call('{"city": "Paris"}')], 1, 1, 1],
    ['only a message', PARIS, [message], 0, 0, 0],
    ['unicode escapes', { name: 'get_weather', arguments: { city: 'Zürich' } }, [call('{"city": "Z\\u00fcrich"}')], 1, 1, 1],
    ['extra whitespace', PARIS, [call('  {  "city" :  "Paris"  }  ')], 1, 1, 1],
  ])('%s', (_name, expected_call, output, correctness, schema_valid, format) => {
    const task = MultiRewardTask.parse({ responses_create_params: { input: [], tools }, expected_call });
    const r = env.verify(task, { id: 'r', output: output as ConversationItem[] }, ctx) as Record<string, unknown>;
    expect(r.reward_components).toEqual({ correctness, schema_valid, format });
    expect(r).toMatchObject({ reward: correctness + schema_valid + format, correctness, schema_valid, format });
    if (correctness + schema_valid + format < 3) expect(r.failure_reason).toBeTypeOf('string');
  });

  it('reports parsed predicted calls, {} for unparseable arguments', () => {
    const task = MultiRewardTask.parse({ responses_create_params: { input: [], tools }, expected_call: PARIS });
    const r = env.verify(task, { id: 'r', output: [call('{"city": "Paris", "n": 2}'), call('oops')] }, ctx) as Record<string, unknown>;
    expect(r.predicted_calls).toEqual([
      { name: 'get_weather', arguments: { city: 'Paris', n: 2 } },
      { name: 'get_weather', arguments: {} },
    ]);
    expect(r.failure_reason).toBe('format');
  });

  it('names a missing call', () => {
    const task = MultiRewardTask.parse({ responses_create_params: { input: [], tools }, expected_call: PARIS });
    expect(env.verify(task, { id: 'r', output: [] }, ctx)).toMatchObject({ reward: 0, failure_reason: 'no_function_call' });
  });

  it('get_weather rejects arguments without a city string', () => {
    expect(env.tools.get_weather!.args.safeParse({ town: 'Paris' }).success).toBe(false);
    expect(env.tools.get_weather!.args.safeParse({ city: 7 }).success).toBe(false);
  });
});

describe('example_tool_call_multireward oracle', () => {
  it('makes the expected call, then answers: 2.0 under the simple agent loop; a wrong city gets 1.0', async () => {
    const rng = seededRng('multireward');
    for (const raw of readJsonl(path.join(dir, 'example.jsonl'))) {
      const task = MultiRewardTask.parse(raw);
      for (const correct of [true, false]) {
        const history: ConversationItem[] = [...exampleToolCallMultirewardOracle(task, [], { correct, rng })];
        const { calls } = await replayToolCalls(env, task, null, history);
        history.push({ type: 'function_call_output', call_id: (history[0] as { call_id: string }).call_id, output: JSON.stringify(calls[0]!.ours) });
        history.push(...exampleToolCallMultirewardOracle(task, history, { correct, rng }));
        expect(settled(env.verify(task, { id: 'r', output: history }, ctx)).reward).toBe(correct ? 2 : 1);
      }
    }
  });
});

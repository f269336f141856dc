// single_step_tool_use_with_argument_comparison against NeMo Gym: recorded rollouts reproduce (reward and
// category), and hand-made actions score as NeMo Gym v0.6.0 scores them under its default and parallel
// (f1, subset and superset allowed) configs — values checked against that code.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ArgumentComparisonTask,
  parallelToolCallsSingleStepToolUseWithArgumentComparison as parallelEnv,
  singleStepToolUseWithArgumentComparison as env,
} from '../../src/environments/single_step_tool_use_with_argument_comparison';
import { CATEGORIES, maximumMatching, type Category } from '../../src/environments/single_step_tool_use_with_argument_comparison/compare';
import { argumentComparisonOracle } from '../../src/environments/single_step_tool_use_with_argument_comparison/oracle';
import { seededRng } from '../../src/util/rng';
import type { ConversationItem, ResponseObject } from '../../src/schemas/responses';
import { FIXTURES, joinToTasks, readJsonl } from './nemo_fixtures';
import { settled } from './env_helpers';

const dir = path.join(FIXTURES, 'single_step_tool_use_with_argument_comparison');
const ctx = { state: null };

describe('single_step_tool_use_with_argument_comparison conformance with NeMo Gym recorded rollouts', () => {
  const tasks = readJsonl(path.join(dir, 'example.jsonl')) as { responses_create_params: { input: unknown } }[];
  const rollouts = readJsonl(path.join(dir, 'example_rollouts.jsonl')) as {
    responses_create_params: { input: unknown };
    response: ResponseObject;
    reward: number;
    category: string;
  }[];
  joinToTasks(rollouts, tasks).forEach(({ rollout, task }, i) => {
    it(`rollout ${i} reproduces reward ${rollout.reward} (${rollout.category})`, () => {
      const result = env.verify(ArgumentComparisonTask.parse(task), rollout.response, ctx);
      expect(result).toMatchObject({ reward: rollout.reward, category: rollout.category });
    });
  });
});

const call = (name: string, args: string): ConversationItem => ({ type: 'function_call', call_id: 'c', name, arguments: args });
const message = (text: string): ConversationItem => ({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });
const fc = (name: string, args: string) => ({ type: 'function_call', name, arguments: args });
const batch = (...calls: [string, string][]) => ({ type: 'function_call_batch', calls: calls.map(([n, a]) => fc(n, a)) });

describe('argument comparison edge cases (values from NeMo Gym v0.6.0)', () => {
  it.each<[string, object, ConversationItem[], number, Category, number, Category]>([
    ['exact call', fc('f', '{"a": 1}'), [call('f', '{"a":1}')], 1, 'EXPECTED_TOOL_CALL', 1, 'EXPECTED_TOOL_CALL'],
    ['int expected, float given', fc('f', '{"a": 1}'), [call('f', '{"a": 1.0}')], 0, 'ARGUMENT_VALUE_TYPE_DIFFERENT', 0, 'ARGUMENT_VALUE_TYPE_DIFFERENT'],
    ['float expected, int given', fc('f', '{"a": 1.0}'), [call('f', '{"a": 1}')], 0, 'ARGUMENT_VALUE_TYPE_DIFFERENT', 0, 'ARGUMENT_VALUE_TYPE_DIFFERENT'],
    ['bool passes for int', fc('f', '{"a": 1}'), [call('f', '{"a": true}')], 1, 'EXPECTED_TOOL_CALL', 1, 'EXPECTED_TOOL_CALL'],
    ['int does not pass for bool', fc('f', '{"a": true}'), [call('f', '{"a": 1}')], 0, 'ARGUMENT_VALUE_TYPE_DIFFERENT', 0, 'ARGUMENT_VALUE_TYPE_DIFFERENT'],
    ['float within 1e-6', fc('f', '{"a": 1.5}'), [call('f', '{"a": 1.5000001}')], 1, 'EXPECTED_TOOL_CALL', 1, 'EXPECTED_TOOL_CALL'],
    ['float outside 1e-6', fc('f', '{"a": 1.5}'), [call('f', '{"a": 1.51}')], 0, 'ARGUMENT_VALUE_DIFFERENT', 0, 'ARGUMENT_VALUE_DIFFERENT'],
    ['one-word strings must be equal', fc('f', '{"a": "Paris"}'), [call('f', '{"a": "paris"}')], 0, 'ARGUMENT_VALUE_DIFFERENT', 0, 'ARGUMENT_VALUE_DIFFERENT'],
    ['multi-word strings by word overlap', fc('f', '{"a": "hello big world"}'), [call('f', '{"a": "Hello  BIG   world"}')], 1, 'EXPECTED_TOOL_CALL', 1, 'EXPECTED_TOOL_CALL'],
    ['multi-word strings too different', fc('f', '{"a": "hello big world"}'), [call('f', '{"a": "totally different words"}')], 0, 'ARGUMENT_VALUE_DIFFERENT', 0, 'ARGUMENT_VALUE_DIFFERENT'],
    ['object keys differ', fc('f', '{"a": 1}'), [call('f', '{"a": 1, "b": 2}')], 0, 'ARGUMENT_OBJECT_KEYS_DIFFERENT', 0, 'ARGUMENT_OBJECT_KEYS_DIFFERENT'],
    ['list lengths differ', fc('f', '{"a": [1, 2]}'), [call('f', '{"a": [1]}')], 0, 'ARGUMENT_LIST_LENGTH_DIFFERENT', 0, 'ARGUMENT_LIST_LENGTH_DIFFERENT'],
    ['malformed arguments', fc('f', '{"a": 1}'), [call('f', '{"a": 1')], 0, 'ARGUMENTS_DECODE_ERROR', 0, 'ARGUMENTS_DECODE_ERROR'],
    ['NaN never equals NaN', fc('f', '{"a": NaN}'), [call('f', '{"a": NaN}')], 0, 'ARGUMENT_VALUE_DIFFERENT', 0, 'ARGUMENT_VALUE_DIFFERENT'],
    ['wrong tool', fc('f', '{"a": 1}'), [call('g', '{"a": 1}')], 0, 'UNEXPECTED_TOOL', 0, 'UNEXPECTED_TOOL'],
    ['message instead of call', fc('f', '{"a": 1}'), [message('hi')], 0, 'NO_EXPECTED_TOOL_CALL', 0, 'NO_EXPECTED_TOOL_CALL'],
    ['call instead of message', { type: 'message', content: 'x' }, [call('f', '{}')], 0, 'NO_EXPECTED_CHAT_MESSAGE', 0, 'NO_EXPECTED_CHAT_MESSAGE'],
    ['any message is fine, even empty', { type: 'message', content: 'x' }, [message('')], 1, 'EXPECTED_CHAT_MESSAGE_FOUND', 1, 'EXPECTED_CHAT_MESSAGE_FOUND'],
    ['calls win over text', fc('f', '{"a": 1}'), [message('let me check'), call('f', '{"a": 1}')], 1, 'EXPECTED_TOOL_CALL', 1, 'EXPECTED_TOOL_CALL'],
    ['nothing at all', { type: 'message', content: 'x' }, [], 0, 'NO_ACTION_FOUND', 0, 'NO_ACTION_FOUND'],
    ['unicode escapes', fc('f', '{"a": "Zürich"}'), [call('f', '{"a": "Z\\u00fcrich"}')], 1, 'EXPECTED_TOOL_CALL', 1, 'EXPECTED_TOOL_CALL'],
    ['a surplus call', fc('f', '{"a": 1}'), [call('f', '{"a": 1}'), call('f', '{"a": 2}')], 1, 'EXPECTED_TOOL_CALL', 2 / 3, 'FUNCTION_CALL_BATCH_LENGTH_DIFFERENT'],
    [
      'batch in any order',
      batch(['w', '{"c": "Paris"}'], ['w', '{"c": "Tokyo"}']),
      [call('w', '{"c": "Tokyo"}'), call('w', '{"c": "Paris"}')],
      1,
      'EXPECTED_TOOL_CALL_BATCH',
      1,
      'EXPECTED_TOOL_CALL_BATCH',
    ],
    [
      'batch with one wrong',
      batch(['w', '{"c": "Paris"}'], ['w', '{"c": "Tokyo"}']),
      [call('w', '{"c": "Tokyo"}'), call('w', '{"c": "Lima"}')],
      0,
      'ARGUMENT_VALUE_DIFFERENT',
      0.5,
      'ARGUMENT_VALUE_DIFFERENT',
    ],
    [
      'batch missing a call',
      batch(['w', '{"c": "Paris"}'], ['w', '{"c": "Tokyo"}']),
      [call('w', '{"c": "Tokyo"}')],
      0,
      'FUNCTION_CALL_BATCH_LENGTH_DIFFERENT',
      2 / 3,
      'FUNCTION_CALL_BATCH_LENGTH_DIFFERENT',
    ],
    [
      'batch with a surplus call',
      batch(['w', '{"c": "Paris"}'], ['w', '{"c": "Tokyo"}']),
      [call('w', '{"c": "Tokyo"}'), call('w', '{"c": "Paris"}'), call('s', '{}')],
      1,
      'EXPECTED_TOOL_CALL_BATCH',
      0.8,
      'FUNCTION_CALL_BATCH_LENGTH_DIFFERENT',
    ],
    [
      'duplicate expected calls need two calls',
      batch(['w', '{"c": "Paris"}'], ['w', '{"c": "Paris"}']),
      [call('w', '{"c": "Paris"}'), call('w', '{"c": "Lima"}')],
      0,
      'ARGUMENT_VALUE_DIFFERENT',
      0.5,
      'ARGUMENT_VALUE_DIFFERENT',
    ],
  ])('%s', (_name, expected_action, output, reward, category, parallelReward, parallelCategory) => {
    const task = ArgumentComparisonTask.parse({ responses_create_params: { input: [] }, expected_action });
    const response = { id: 'r', output };
    expect(env.verify(task, response, ctx)).toMatchObject({ reward, category: CATEGORIES[category] });
    expect(parallelEnv.verify(task, response, ctx)).toMatchObject({ reward: parallelReward, category: CATEGORIES[parallelCategory] });
    const result = env.verify(task, response, ctx) as Record<string, unknown>;
    expect(result.failure_reason).toBe(reward === 1 ? undefined : category.toLowerCase());
  });

  it('rejects a task whose expected arguments are not JSON (NeMo Gym would crash in verify)', () => {
    const parsed = ArgumentComparisonTask.safeParse({ responses_create_params: { input: [] }, expected_action: fc('f', '{a: 1}') });
    expect(parsed.success).toBe(false);
  });
});

describe('maximum matching', () => {
  it('undoes a greedy pairing to match every expected call', () => {
    // Expected 0 can use actual 0 or 1; expected 1 only actual 0.
    expect(maximumMatching([[0, 1], [0]]).size).toBe(2);
    expect(maximumMatching([[0], [0], [1]]).size).toBe(2);
    expect(maximumMatching([[], []]).size).toBe(0);
  });
});

describe('parallel_example.jsonl (the parallel config)', () => {
  const tasks = readJsonl(path.join(dir, 'parallel_example.jsonl')).map((t) => ArgumentComparisonTask.parse(t));
  it('the oracle earns full credit when correct and none otherwise, in both configs', () => {
    const rng = seededRng('parallel');
    for (const task of tasks) {
      for (const e of [env, parallelEnv]) {
        expect(settled(e.verify(task, { id: 'r', output: argumentComparisonOracle(task, [], { correct: true, rng }) }, ctx)).reward).toBe(1);
        expect(settled(e.verify(task, { id: 'r', output: argumentComparisonOracle(task, [], { correct: false, rng }) }, ctx)).reward).toBe(0);
      }
    }
  });

  it('scores partial parallel answers by F1, while the default config only asks for the expected calls', () => {
    const three = tasks[0]!; // get_weather for Paris, Tokyo and Cairo
    const output = [call('get_weather', '{"city": "Cairo"}'), call('get_weather', '{"city": "Paris"}')];
    expect(parallelEnv.verify(three, { id: 'r', output }, ctx)).toMatchObject({ reward: 0.8 });
    expect(env.verify(three, { id: 'r', output }, ctx)).toMatchObject({ reward: 0 });
    const spam = [...output, call('get_weather', '{"city": "Tokyo"}'), call('get_weather', '{"city": "Oslo"}')];
    expect(settled(parallelEnv.verify(three, { id: 'r', output: spam }, ctx)).reward).toBeCloseTo(6 / 7, 15);
    expect(settled(env.verify(three, { id: 'r', output: spam }, ctx)).reward).toBe(1);
  });
});

// NeMo Gym's example_tool_call_multireward: one expected get_weather call, graded on three independent
// 0/1 components (correctness, schema_valid, format); the reward is their sum, 0–3.
import { z } from 'zod';
import { functionCalls, type FunctionCallItem, type ResponseObject } from '../../schemas/responses';
import { TaskRow } from '../../schemas/task';
import { defineEnvironment } from '../define';
import { reply } from '../types';
import { fromPlainJson, jsonLoads, toPlainJson, type PyJson } from '../../python/json';
import { pyEq } from '../../python/values';

export const MultiRewardTask = TaskRow.extend({
  expected_call: z.looseObject({ name: z.string().optional(), arguments: z.record(z.string(), z.unknown()).nullish() }).optional(),
});
export type MultiRewardTask = z.infer<typeof MultiRewardTask>;

const GetWeatherArgs = z.object({ city: z.string() });

/** The call's arguments as a dict, and whether they were one (invalid JSON or a non-object gives {}). */
function parseArguments(call: FunctionCallItem): { args: Map<string, PyJson>; isObject: boolean } {
  let value: PyJson;
  try {
    value = jsonLoads(call.arguments);
  } catch {
    return { args: new Map(), isObject: false };
  }
  return value instanceof Map ? { args: value, isObject: true } : { args: new Map(), isObject: false };
}

/** `required` of the first tool in the request with this name; none if the tool is not offered. */
function requiredParams(task: MultiRewardTask, name: string): unknown[] {
  const tool = task.responses_create_params.tools?.find((t) => t.name === name);
  const required = tool?.type === 'function' ? tool.parameters?.required : undefined;
  return Array.isArray(required) ? required : [];
}

/** Same name, and every expected argument present with an equal value (extra arguments are fine). */
function matchesExpected(call: FunctionCallItem, expected: MultiRewardTask['expected_call']): boolean {
  if (!expected || Object.keys(expected).length === 0 || call.name !== expected.name) return false;
  const { args } = parseArguments(call);
  return Object.entries(expected.arguments ?? {}).every(([key, value]) => pyEq(args.get(key) ?? null, fromPlainJson(value)));
}

function scoreComponents(task: MultiRewardTask, response: ResponseObject) {
  const calls = functionCalls(response.output);
  const hasMessage = response.output.some((item) => (item.type ?? 'message') === 'message');
  const first = calls[0];
  const firstArgs = first ? parseArguments(first) : undefined;
  return {
    calls,
    components: {
      correctness: calls.some((call) => matchesExpected(call, task.expected_call)) ? 1.0 : 0.0,
      schema_valid: first && firstArgs!.isObject && requiredParams(task, first.name).every((k) => typeof k === 'string' && firstArgs!.args.has(k)) ? 1.0 : 0.0,
      format: calls.length === 1 && !hasMessage ? 1.0 : 0.0,
    },
  };
}

export const exampleToolCallMultireward = defineEnvironment({
  name: 'example_tool_call_multireward',
  description: 'One expected get_weather call scored on correctness, schema_valid and format; reward is their sum (0-3).',
  taskSchema: MultiRewardTask,
  tools: {
    get_weather: {
      args: GetWeatherArgs,
      run: ({ city }: z.infer<typeof GetWeatherArgs>, { state }) => reply({ city, weather_description: `The weather in ${city} is sunny.` }, state),
    },
  },
  verify(task, response) {
    const { calls, components } = scoreComponents(task, response);
    const failed = Object.entries(components)
      .filter(([, score]) => score < 1)
      .map(([name]) => name);
    return {
      reward: components.correctness + components.schema_valid + components.format,
      reward_components: components,
      ...components,
      predicted_calls: calls.map((call) => ({ name: call.name, arguments: toPlainJson(parseArguments(call).args) })),
      ...(failed.length === 0 ? {} : { failure_reason: calls.length === 0 ? 'no_function_call' : failed.join(',') }),
    };
  },
});

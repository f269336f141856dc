// NeMo Gym's "simple weather" example: one stateless tool, and a verify that accepts every episode
// (reward 1.0), as in NeMo Gym v0.6.0 — it exists to exercise the tool-calling loop, not to grade.
import { z } from 'zod';
import { TaskRow } from '../../schemas/task';
import { reply, type Environment } from '../types';

const GetWeatherArgs = z.object({ city: z.string() });

export const exampleSingleToolCall: Environment<TaskRow, null> = {
  name: 'example_single_tool_call',
  description: 'One get_weather tool; every episode is rewarded 1.0 (a harness smoke test).',
  taskSchema: TaskRow,
  reverifyMode: 'stateless',
  seedSession: () => null,
  tools: {
    get_weather: {
      args: GetWeatherArgs,
      run: ({ city }: z.infer<typeof GetWeatherArgs>, { state }) =>
        reply({ city, weather_description: `The weather in ${city} is cold.` }, state),
    },
  },
  verify: () => ({ reward: 1.0 }),
  oracle(_task, history, { correct, rng }) {
    const askedForWeather = history.some((i) => i.type === 'function_call');
    if (correct && !askedForWeather) {
      const city = rng.pick(['San Francisco', 'New York', 'Paris', 'Tokyo']);
      return [{ type: 'function_call', call_id: `call_${rng.int(1e9)}`, name: 'get_weather', arguments: JSON.stringify({ city }) }];
    }
    const last = history.at(-1);
    return [assistantMessage(last?.type === 'function_call_output' ? `Here is what I found: ${String(last.output)}` : 'Which city are you in?')];
  },
};

export function assistantMessage(text: string) {
  return {
    type: 'message' as const,
    role: 'assistant' as const,
    status: 'completed',
    content: [{ type: 'output_text' as const, text, annotations: [] }],
  };
}

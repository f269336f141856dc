// NeMo Gym's "simple weather" example: one stateless tool, and a verify that accepts every episode
// (reward 1.0), as in NeMo Gym v0.6.0 — it exists to exercise the tool-calling loop, not to grade.
import { z } from 'zod';
import { TaskRow } from '../../schemas/task';
import { defineEnvironment } from '../define';
import { reply } from '../types';

const GetWeatherArgs = z.object({ city: z.string() });

export const exampleSingleToolCall = defineEnvironment({
  name: 'example_single_tool_call',
  description: 'One get_weather tool; every episode is rewarded 1.0 (a harness smoke test).',
  taskSchema: TaskRow,
  tools: {
    get_weather: {
      args: GetWeatherArgs,
      run: ({ city }: z.infer<typeof GetWeatherArgs>, { state }) => reply({ city, weather_description: `The weather in ${city} is cold.` }, state),
    },
  },
  verify: () => ({ reward: 1.0 }),
});

export function assistantMessage(text: string) {
  return {
    type: 'message' as const,
    role: 'assistant' as const,
    status: 'completed',
    content: [{ type: 'output_text' as const, text, annotations: [] }],
  };
}

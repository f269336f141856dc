// The mock policy's player for example_single_tool_call: asks for the weather once (when playing
// right), then reports what the tool said.
import type { Oracle } from '../oracle';
import { assistantMessage } from '.';

export const exampleSingleToolCallOracle: Oracle = (_task, history, { correct, rng }) => {
  const askedForWeather = history.some((i) => i.type === 'function_call');
  if (correct && !askedForWeather) {
    const city = rng.pick(['San Francisco', 'New York', 'Paris', 'Tokyo']);
    return [{ type: 'function_call', call_id: `call_${rng.int(1e9)}`, name: 'get_weather', arguments: JSON.stringify({ city }) }];
  }
  const last = history.at(-1);
  return [assistantMessage(last?.type === 'function_call_output' ? `Here is what I found: ${String(last.output)}` : 'Which city are you in?')];
};

// The mock policy's player for example_tool_call_multireward: the expected call when playing right,
// a call for a city that does not exist when not, then a message with the forecast.
import { assistantMessage } from '../example_single_tool_call';
import type { Oracle } from '../oracle';
import type { MultiRewardTask } from '.';

export const exampleToolCallMultirewardOracle: Oracle<MultiRewardTask> = (task, history, { correct, rng }) => {
  const last = history.at(-1);
  if (last?.type === 'function_call_output') return [assistantMessage(`Here is the forecast: ${String(last.output)}`)];
  const expected = task.expected_call;
  const args = correct && expected?.arguments ? expected.arguments : { city: rng.pick(['Atlantis', 'El Dorado', 'Shangri-La']) };
  const name = correct && expected?.name ? expected.name : 'get_weather';
  return [{ type: 'function_call', call_id: `call_${rng.int(1e9)}`, name, arguments: JSON.stringify(args), status: 'completed' }];
};

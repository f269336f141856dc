// The mock policy's player for example_multi_step: one lookup per expected synonym, then the
// extraction, in order when playing right and reversed with the minefield value when not.
import type { FunctionCallItem } from '../../schemas/responses';
import { assistantMessage } from '../example_single_tool_call';
import type { Oracle } from '../oracle';
import type { MultiStepTask } from '.';

export const exampleMultiStepOracle: Oracle<MultiStepTask> = (task, history, { correct, rng }) => {
  const synonyms = task.expected_synonyms ?? [];
  const looked = history.filter((i) => i.type === 'function_call' && i.name === 'get_synonym_value').length;
  const extracted = history.some((i) => i.type === 'function_call' && i.name === 'extract_synonym_values');
  const call = (name: string, args: unknown): FunctionCallItem => ({
    type: 'function_call',
    call_id: `call_${rng.int(1e9)}`,
    name,
    arguments: JSON.stringify(args),
    status: 'completed',
  });
  if (extracted) return [assistantMessage('Done.')];
  if (looked < synonyms.length) return [call('get_synonym_value', { synonym: synonyms[looked] })];
  const values = correct ? task.expected_synonym_values : [...task.expected_synonym_values].reverse().concat([task.minefield_label_value]);
  return [call('extract_synonym_values', { synonym_values: values })];
};

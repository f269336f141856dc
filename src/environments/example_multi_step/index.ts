// NeMo Gym's multi-step extraction example: look up each synonym's value (the sum of its code
// points), then report them all in order with extract_synonym_values; verify compares that list.
import { z } from 'zod';
import { TaskRow } from '../../schemas/task';
import type { FunctionCallItem } from '../../schemas/responses';
import { defineEnvironment } from '../define';
import { reply } from '../types';

export const MultiStepTask = TaskRow.extend({
  id: z.union([z.number(), z.string()]).optional(),
  expected_synonyms: z.array(z.string()).optional(),
  expected_synonym_values: z.array(z.number().int()).min(1),
  minefield_label: z.string(),
  minefield_label_value: z.number().int(),
});
export type MultiStepTask = z.infer<typeof MultiStepTask>;

/** Python's sum(map(ord, s)): code points, not UTF-16 units. */
export function synonymValue(synonym: string): number {
  let sum = 0;
  for (const ch of synonym) sum += ch.codePointAt(0)!;
  return sum;
}

function lastExtractCall(output: readonly { type?: string }[]): FunctionCallItem | undefined {
  for (let i = output.length - 1; i >= 0; i--) {
    const item = output[i] as FunctionCallItem;
    if (item.type === 'function_call' && item.name === 'extract_synonym_values') return item;
  }
  return undefined;
}

export const exampleMultiStep = defineEnvironment({
  name: 'example_multi_step',
  description: 'Look up synonym values with a tool, then extract them in order; reward is exact list match.',
  taskSchema: MultiStepTask,
  tools: {
    get_synonym_value: {
      args: z.object({ synonym: z.string() }),
      run: ({ synonym }: { synonym: string }, { state }) => reply({ synonym_value: synonymValue(synonym) }, state),
    },
    extract_synonym_values: {
      args: z.object({ synonym_values: z.array(z.number().int()) }),
      run: (_args: unknown, { state }) => reply({ success: true }, state),
    },
  },
  verify(task, response) {
    const expected = task.expected_synonym_values;
    const call = lastExtractCall(response.output);
    const actual: number[] = call ? (JSON.parse(call.arguments) as { synonym_values: number[] }).synonym_values : [];
    const accuracy = actual.length === expected.length && actual.every((v, i) => v === expected[i]);
    const expectedSet = new Set(expected);
    const overlap = new Set(actual.filter((v) => expectedSet.has(v))).size / expected.length;
    return {
      reward: accuracy ? 1.0 : 0.0,
      parsed_synonym_values: actual,
      accuracy,
      set_overlap: overlap,
      // Python's `label in actual` on a list of ints is false for a string label.
      original_term_minefield_hit: actual.includes(task.minefield_label_value),
      order_instruction_following_failure: !accuracy && overlap === 1.0,
      ...(accuracy ? {} : { failure_reason: call ? 'wrong_synonym_values' : 'no_extract_call' }),
    };
  },
});

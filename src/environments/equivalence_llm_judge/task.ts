// An equivalence_llm_judge task row: the gold answer (top level or in metadata) and, for OpenQA-style
// rows, the template's output_regex that pulls the final answer out of the model's text.
import { z } from 'zod';
import { TaskRow } from '../../schemas/task';
import { pyPattern } from '../pattern-field';
import { EXTRACT_REGEX_FLAGS } from './extract';

export const EquivalenceTask = TaskRow.extend({
  uuid: z.union([z.string(), z.number()]).nullish(),
  expected_answer: z.string().nullish(),
  options: z.array(z.record(z.string(), z.string())).nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  template_metadata: z.looseObject({ output_regex: pyPattern(EXTRACT_REGEX_FLAGS).nullish() }).nullish(),
});
export type EquivalenceTask = z.infer<typeof EquivalenceTask>;

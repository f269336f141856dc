// A RULER v2 task row: soft string-match rows carry a list of reference strings, multichoice rows one
// letter; eval_type tells them apart (NeMo Gym's task_data union), match_type picks the aggregation.
import { z } from 'zod';
import { TaskRow } from '../../schemas/task';
import { MATCH_TYPES } from './score';

const Ruler2Base = TaskRow.extend({
  match_type: z.enum(MATCH_TYPES).default('all'),
  /** The RULER v2 sub-task (mk_niah_basic, qa_hard, …): a metrics subset key, not scored. */
  task: z.string().nullish(),
  /** The context length the row was generated for: carried through, not scored. */
  length: z.number().int().nullish(),
});

export const Ruler2StringMatchTask = Ruler2Base.extend({
  eval_type: z.literal('ruler2').default('ruler2'),
  expected_answer: z.array(z.string()),
});

export const Ruler2MultichoiceTask = Ruler2Base.extend({
  eval_type: z.literal('multichoice'),
  expected_answer: z.string(),
});

export const Ruler2Task = z.union([Ruler2MultichoiceTask, Ruler2StringMatchTask]);
export type Ruler2Task = z.infer<typeof Ruler2Task>;

// A litmus_agent row: the expected answer, how to find the answer in the response (output_regex, or a
// named format) and how to compare it (answer_type or legacy property_type, optional match rule).
// Domain fields (smiles, property, method, …) ride along untouched.
import { z } from 'zod';
import { tryPyRegex } from '../../python/regex';
import { TaskRow } from '../../schemas/task';
import { ANSWER_FORMATS, ANSWER_TYPES, type AnswerType } from './extract';
import { RULES } from './rules';

/** Legacy rows name a property_type instead of an answer_type. */
export const PROPERTY_TYPES: Readonly<Record<string, AnswerType>> = { float: 'float', count: 'float', fragment: 'float', bool: 'bool', presence: 'bool' };

export const LitmusTask = TaskRow.extend({
  expected_answer: z.union([z.string(), z.number()]),
  answer_type: z.enum(ANSWER_TYPES).nullish(),
  property_type: z.string().nullish(),
  output_regex: z
    .string()
    .nullish()
    .superRefine((pattern, ctx) => {
      if (pattern === null || pattern === undefined) return;
      const compiled = tryPyRegex(pattern, 's');
      if (!compiled) ctx.addIssue({ code: 'custom', message: `${JSON.stringify(pattern)} is not a valid regular expression` });
      else if (compiled.groupCount !== 1) ctx.addIssue({ code: 'custom', message: `must have exactly one capture group, has ${compiled.groupCount}` });
    }),
  answer_format: z.enum(ANSWER_FORMATS).nullish(),
  use_box_format: z.boolean().default(false),
  // NeMo Gym reads an empty match as "no override"; a non-empty one must name its rule.
  match: z
    .looseObject({ rule: z.enum(RULES).optional(), rel_tol: z.number().optional(), abs_tol: z.number().optional() })
    .nullish()
    .refine((m) => !m || Object.keys(m).length === 0 || m.rule !== undefined, { message: "a match must include a 'rule' key" }),
  method: z.string().nullish(),
}).superRefine((row, ctx) => {
  if (!row.answer_type && !(typeof row.property_type === 'string' && Object.hasOwn(PROPERTY_TYPES, row.property_type))) {
    ctx.addIssue({
      code: 'custom',
      path: ['answer_type'],
      message: `is required unless property_type is one of ${Object.keys(PROPERTY_TYPES).join(', ')} (got ${JSON.stringify(row.property_type ?? null)})`,
    });
  }
});
export type LitmusTask = z.infer<typeof LitmusTask>;

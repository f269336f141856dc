// The citation_if task row: a frozen retrieval conversation plus the `verifier` block that says
// which grammar to cite in, which IDs exist, and which must be cited (or, in no_cite mode, none).
import { z } from 'zod';
import { TaskRow } from '../../schemas/task';
import { pyPattern } from '../pattern-field';

/** Python's int(x) for the counts, which rows may also give as strings. */
const pyInt = z.union([z.number(), z.string().regex(/^\s*[+-]?\d+\s*$/)]).transform((v) => Math.trunc(Number(v)));

export const Verifier = z.looseObject({
  type: z.string().optional(),
  mode: z.string().optional(),
  grammar: z.string().optional(),
  id_kind: z.string().optional(),
  id_regex: pyPattern().nullish(),
  valid_id_set: z.array(z.string()).nullish(),
  expected_ids: z.array(z.string()).nullish(),
  expected_slack: pyInt.optional(),
  min_valid_citations: pyInt.optional(),
});
export type Verifier = z.infer<typeof Verifier>;

export const CitationIfTask = TaskRow.extend({ verifier: Verifier });
export type CitationIfTask = z.infer<typeof CitationIfTask>;

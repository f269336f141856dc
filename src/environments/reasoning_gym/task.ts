// A reasoning_gym task row (knights_knaves only): the question, the gold answer text, and the
// generator's metadata, whose source_dataset picks the scorer.
import { z } from 'zod';
import { TaskRow } from '../../schemas/task';

export const KnightsKnavesMetadata = z.looseObject({
  source_dataset: z.literal('knights_knaves'),
  source_index: z.number().int().optional(),
  statements: z.array(z.unknown()).optional(),
  solution: z.array(z.boolean()).nullish(),
  names: z.array(z.string()).optional(),
  knight_knave_terms: z.record(z.string(), z.string()).optional(),
  difficulty: z.record(z.string(), z.unknown()).optional(),
});

export const ReasoningGymTask = TaskRow.extend({
  question: z.string(),
  answer: z.string().nullable(),
  metadata: KnightsKnavesMetadata,
});
export type ReasoningGymTask = z.infer<typeof ReasoningGymTask>;

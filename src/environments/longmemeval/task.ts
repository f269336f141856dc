// A LongMemEval row: the chat history and question are already in the prompt; verifier_metadata carries
// what the judge rubric needs (question type, question, gold answer, abstention).
import { z } from 'zod';
import { TaskRow } from '../../schemas/task';

export const LongMemEvalTask = TaskRow.extend({
  // NeMo Gym accepts any contents and grades unusable metadata 0.0 (bad_metadata), so nothing here is required.
  verifier_metadata: z
    .looseObject({
      question_id: z.string().nullish(),
      question_type: z.string().nullish(),
      question: z.string().nullish(),
      answer: z.union([z.string(), z.number()]).nullish(),
      abstention: z.boolean().nullish(),
      question_date: z.string().nullish(),
    })
    .nullish(),
});
export type LongMemEvalTask = z.infer<typeof LongMemEvalTask>;

// A math_with_judge task row: the question (for the judge) and the gold answer, often LaTeX wrapped
// in \(…\) or $…$.
import { z } from 'zod';
import { TaskRow } from '../../schemas/task';

export const MathTask = TaskRow.extend({ question: z.string(), expected_answer: z.string() });
export type MathTask = z.infer<typeof MathTask>;

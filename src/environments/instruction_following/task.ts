// The instruction_following task row. Rows keep the verifier fields either under
// `verifier_metadata` (current layout) or at the top level (legacy layout); NeMo Gym merges the
// two, the nested value winning, and rejects a row missing ids, prompt or kwargs.
import { z } from 'zod';
import { TaskRow } from '../../schemas/task';

const VERIFIER_FIELDS = ['instruction_id_list', 'prompt', 'kwargs', 'grading_mode'] as const;
const REQUIRED = ['instruction_id_list', 'prompt', 'kwargs'] as const;

export const VerifierMetadata = z.looseObject({
  instruction_id_list: z.array(z.string()),
  prompt: z.unknown(),
  kwargs: z.array(z.unknown()),
  grading_mode: z.enum(['binary', 'fraction']).optional(),
});
export type VerifierMetadata = z.infer<typeof VerifierMetadata>;

export const InstructionFollowingTask = TaskRow.extend({
  id: z.number().int(),
  verifier_metadata: z.record(z.string(), z.unknown()).optional(),
}).superRefine((row, ctx) => {
  const merged = mergedMetadata(row);
  const missing = REQUIRED.filter((f) => !(f in merged));
  if (missing.length > 0) {
    ctx.addIssue({ code: 'custom', message: `verifier_metadata is missing required fields: ${missing.join(', ')}` });
    return;
  }
  const parsed = VerifierMetadata.safeParse(merged);
  if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, path: ['verifier_metadata', ...issue.path] } as never);
});
export type InstructionFollowingTask = z.infer<typeof InstructionFollowingTask>;

function mergedMetadata(row: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...((row.verifier_metadata as Record<string, unknown> | undefined) ?? {}) };
  for (const field of VERIFIER_FIELDS) if (!(field in merged) && field in row) merged[field] = row[field];
  return merged;
}

/** The verifier fields of a validated row, legacy top-level ones moved in. */
export function verifierMetadata(task: InstructionFollowingTask): VerifierMetadata {
  return VerifierMetadata.parse(mergedMetadata(task));
}

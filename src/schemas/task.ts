// A task row as NeMo Gym ships it: `responses_create_params` plus free-form, environment-specific
// fields at the top level. Each environment validates its own fields with its task_data schema.
import { z } from 'zod';
import { ResponseCreateParams } from './responses';

export const TaskRow = z.looseObject({
  responses_create_params: ResponseCreateParams,
  agent_ref: z.looseObject({ name: z.string() }).optional(),
  _ng_task_index: z.number().int().nonnegative().optional(),
  _ng_rollout_id: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/)
    .optional(),
});
export type TaskRow = z.infer<typeof TaskRow>;

/** One unit of work: a task (by index into the run's collated task file) and a repeat of it. */
export const RolloutKey = z.object({ taskIndex: z.number().int().nonnegative(), rolloutIndex: z.number().int().nonnegative() });
export type RolloutKey = z.infer<typeof RolloutKey>;

export function rolloutId(key: RolloutKey): string {
  return `${key.taskIndex}-${key.rolloutIndex}`;
}
